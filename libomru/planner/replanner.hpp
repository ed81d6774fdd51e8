// replanner.hpp - the planner as select/omru and omru-sim call it: once per
// event, keeping the previous plan's choice, and incrementally (the kept
// choice and its nearest budgets, PlanSearch::max_simulations) while a long
// queue changes little.  A burst of submissions to a queue of 10,000 jobs
// then costs a few simulations per pass instead of a full search each, and
// a full search still runs once enough has changed (or after
// kMaxIncremental passes), so the plan cannot drift far from what a full
// search finds.
#ifndef OMRU_PLANNER_REPLANNER_HPP
#define OMRU_PLANNER_REPLANNER_HPP

#include <vector>

#include "planner/arrival_guard.hpp"
#include "planner/planner.hpp"
#include "planner/reference_shadow.hpp"

namespace omru {
namespace planner {

class Replanner {
    public:
	// The plan for `in` (make_plan with the previous choice).  Full
	// search unless the queue is long (more than kLongQueue pending), a
	// previous choice exists, at most max(1, 1%) of the jobs arrived or
	// left since the last full search (by PlanJob::id) and fewer than
	// kMaxIncremental passes were incremental since.
	Plan plan(const PlanInput &in);

	const PlanChoice &choice() const { return keep_; }
	// A choice from elsewhere (a restart): the next plan searches fully.
	void set_choice(const PlanChoice &c)
	{
		keep_ = c;
		ids_at_full_.clear();
	}

	static constexpr int kNeighbours = 2;      // budgets next to the kept one
	static constexpr int kMaxIncremental = 50; // passes between full searches

    private:
	PlanChoice keep_;
	std::vector<long> ids_at_full_; // sorted, at the last full search
	// With the bound on: Slurm's policy played beside the plans, whose
	// ends bound them (reference_shadow.hpp).
	ReferenceShadow shadow_;
	// The passes that saw new jobs (PlanInput::arrival_guard).
	ArrivalGuard arrivals_;
	int incremental_since_full_ = 0;
};

} // namespace planner
} // namespace omru

#endif
