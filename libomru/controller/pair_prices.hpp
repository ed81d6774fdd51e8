// pair_prices.hpp - what a job of one user's model loses beside another
// model, as plans and the colocation book price it: the site's co-location
// table (ColocationFile=, profile/interference_model.hpp) corrected by
// that user's own measurements of the pair (the profile store's beside
// lines, profile_store.hpp: its jobs that shared nodes with the other model
// all along).  The table counts as kTablePriorRuns jobs, so one job of the
// user's moves the price halfway and eight make it nearly all the user's.
// Where the table has no measurement of the pair, its fit prices the
// user's jobs from the user's own solo signals of the model (the store's
// signals line: GPU and memory-controller utilisation its nodes sampled in
// its jobs that ran alone) rather than the table's.
// One user's measurements price only that user's jobs: what its job costs a
// neighbour is the neighbour's own price.
#ifndef OMRU_CONTROLLER_PAIR_PRICES_HPP
#define OMRU_CONTROLLER_PAIR_PRICES_HPP

#include <cstdint>
#include <string>

#include "profile/interference_model.hpp"
#include "profile/profile_store.hpp"

namespace omru {
namespace controller {

constexpr double kTablePriorRuns = 1;

class PairPrices {
    public:
	// `store` may be null: the table alone.  Both must outlive this.
	PairPrices(const InterferenceModel &table, const profiler::ProfileStore *store)
		: table_(table), store_(store)
	{
	}

	// Within [1, kMaxSlowdown]; uid kSiteUid: the table's price.
	double slowdown(uint32_t uid, const std::string &model,
			const std::string &neighbour) const;
	// Whether the user measured the model beside any other, or its solo
	// signals (its jobs of the model are then priced apart from other
	// users').
	bool measured_by(uint32_t uid, const std::string &model) const;

    private:
	const InterferenceModel &table_;
	const profiler::ProfileStore *store_;
};

} // namespace controller
} // namespace omru

#endif
