// plan_simulation.hpp - plays one candidate plan forward in time: pending
// jobs with fixed GPU counts are list-scheduled in a fixed priority order
// (Graham: whenever GPUs free up, start the first job in the order that
// fits; one that fits only spread over more nodes than it needs waits if
// the running jobs' ends would let it end sooner on fewer), and once
// nothing is left to start, idle GPUs are reused by growing running jobs
// (OMRU's GPU reuse), each growth paying the restart overhead.  Jobs
// start and grow only within their pools (a user's GPU limit, a license:
// PlanInput::pool_capacity).
// The planner (planner.cpp) simulates many candidates and keeps the best;
// the same code with the same inputs later reproduces that plan exactly,
// which is what makes re-planning at every event stable.
#ifndef OMRU_PLANNER_PLAN_SIMULATION_HPP
#define OMRU_PLANNER_PLAN_SIMULATION_HPP

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "planner/plan.hpp"

namespace omru {
namespace planner {

struct Candidate {
	// Per PlanInput::jobs entry: index into its curve's gpus for a pending
	// job (ignored for running ones).
	std::vector<int> option;
	// Pending jobs, highest priority first.  A pending job left out is
	// unplaced (its option never fits its node set: fits_when_idle).
	std::vector<int> order;
	// pool_signatures(in), computed once per input and shared by its
	// candidates; null: simulate_plan computes it.
	std::shared_ptr<const std::vector<int>> pool_sig;
	// Per PlanInput::jobs entry, or empty for none: pending jobs that
	// hold their earliest start while they wait, as sched/backfill
	// reserves for the jobs it tests.  A job after such a job in the order
	// starts on its nodes only if it ends by then; list scheduling
	// otherwise starts whatever fits now, and a whole-node job a bound
	// promoted waited behind smaller ones plan after plan.
	std::vector<char> reserve;
};

// Per PlanInput::jobs entry, an id shared by the jobs with the same pools
// and amounts (0: none); start classes key on it.
std::vector<int> pool_signatures(const PlanInput &in);

struct Outcome {
	double makespan_s = 0;
	double sum_jct_s = 0;
	int unplaced = 0;
	// Pending jobs ending after their deadline (PlanInput::deadline_s),
	// their neighbours' slowdown left out and growth after their start
	// not counted on (later plans may not give it), and by how much in
	// all; which, and by how many seconds each (recorded runs only).
	int late = 0;
	double late_s = 0;
	std::vector<std::pair<int, double>> late_jobs;
	// Stopped early (simulate_plan's give_up_after): the other numbers
	// are partial and the plan loses to the one that set the limit.
	bool gave_up = false;
	// Filled only when asked to record:
	std::vector<Action> now;
	std::vector<PlannedJob> jobs;
};

// True when a is smaller than b by more than rounding: plans compare
// simulated times, and ties must not flip on the last bit.
inline bool clearly_less(double a, double b)
{
	return a < b - 1e-9 * std::max(1.0, std::fabs(b));
}

// IN give_up_after: a makespan (absolute time) this plan is of no use
// beyond: once simulated time passes it, the simulation stops and says so
// (Outcome::gave_up).  Time never goes back, so such a plan's makespan
// would have been later.
Outcome simulate_plan(const PlanInput &in, const Candidate &c, bool record,
		      double give_up_after = std::numeric_limits<double>::infinity());

// Whether `cv.gpus[option]` GPUs ever start on node set `set` (-1: every
// node): packed on the set's nodes with all their GPUs free, the spread
// has a time.  List scheduling starts every job whose option passes (the
// jobs before it end, then it fits); a job whose option fails would wait
// for ever and hold up GPU reuse, so the planner gives it another option
// or leaves it out of the order.  Always true on identical nodes without
// node sets (check_plan_input: every count has its packed time).  With
// node resources, on the GPUs the job's `need` allows on each idle node.
bool fits_when_idle(const PlanInput &in, const SpeedCurve &cv, size_t option,
		    int set, const NodeNeed &need = {});

} // namespace planner
} // namespace omru

#endif
