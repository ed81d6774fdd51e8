// pair_prices.cpp - see pair_prices.hpp.
#include "controller/pair_prices.hpp"

#include <algorithm>

namespace omru {
namespace controller {

double PairPrices::slowdown(uint32_t uid, const std::string &model,
			    const std::string &neighbour) const
{
	const double table = table_.slowdown(model, neighbour);
	if (!store_ || uid == profiler::kSiteUid)
		return table;
	const profiler::BesideRow *own = store_->beside(uid, model, neighbour);
	if (!own)
		return table;
	double mixed = (table * kTablePriorRuns + own->slowdown * own->runs) /
		       (kTablePriorRuns + own->runs);
	return std::clamp(mixed, 1.0, kMaxSlowdown);
}

bool PairPrices::measured_by(uint32_t uid, const std::string &model) const
{
	return store_ && uid != profiler::kSiteUid && !store_->beside(uid, model).empty();
}

} // namespace controller
} // namespace omru
