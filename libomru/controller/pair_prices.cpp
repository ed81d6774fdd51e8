// pair_prices.cpp - see pair_prices.hpp.
#include "controller/pair_prices.hpp"

#include <algorithm>

namespace omru {
namespace controller {

double PairPrices::slowdown(uint32_t uid, const std::string &model,
			    const std::string &neighbour) const
{
	if (!store_ || uid == profiler::kSiteUid)
		return table_.slowdown(model, neighbour);
	// The table's price, from the user's own solo signals of the model
	// where its nodes sampled them (pairs nobody measured).
	const profiler::SignalsRow *sig = store_->signals(uid, model);
	const double table = sig ? table_.slowdown(model, sig->gpu_pct / 100,
						   sig->mem_pct / 100, neighbour)
				 : table_.slowdown(model, neighbour);
	const profiler::BesideRow *own = store_->beside(uid, model, neighbour);
	if (!own)
		return table;
	double mixed = (table * kTablePriorRuns + own->slowdown * own->runs) /
		       (kTablePriorRuns + own->runs);
	return std::clamp(mixed, 1.0, kMaxSlowdown);
}

bool PairPrices::measured_by(uint32_t uid, const std::string &model) const
{
	return store_ && uid != profiler::kSiteUid && store_->measured_colocation(uid, model);
}

} // namespace controller
} // namespace omru
