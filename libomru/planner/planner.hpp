// planner.hpp - the OMRU planner: for every job, how many GPUs, when, where,
// and which running jobs grow into GPUs that would sit idle.  Called at
// every arrival and completion (offline batches are the case where every job
// arrives at once).  doc/omru-planner.md describes the algorithm, why it is
// built this way and what it guarantees.
#ifndef OMRU_PLANNER_PLANNER_HPP
#define OMRU_PLANNER_PLANNER_HPP

#include "planner/plan.hpp"

namespace omru {
namespace planner {

// RET the plan for `in`.  `keep` is the choice of the previous call (or
// invalid): it is tried first and only replaced by a strictly better plan,
// so with nothing changed the answer does not change.  Deterministic.
// Throws std::invalid_argument on an inconsistent input (see
// check_plan_input).
// Queues longer than this many pending jobs are searched coarse to fine: a
// few budgets of the grid and their neighbours rather than every budget
// with every queue order, then no local search (their simulations cost the
// most; the whole grid made a re-plan of 1,000 jobs take a tenth of a
// second).  At or below it (every batch and online window of
// tests/bench/omru-targets.sh) the whole grid is simulated, then local
// search.  doc/omru-planner.md gives what the coarse search costs in plan
// quality.
constexpr size_t kLongQueue = 256;

// How much of the candidate space a call searches.
struct PlanSearch {
	// > 0, with a valid `keep`: an incremental re-plan, for a small change
	// to a long queue: the kept choice and this many of its neighbours
	// (its queue order at the nearest budgets), no full search.  0: the
	// full search.
	int max_simulations = 0;
	// Simulate the whole grid whatever the queue's length (benchmarks
	// measure what the coarse search of long queues gives up).
	bool exhaustive = false;
};

// With in.bound.on, `ref_end` (one per job, or null) is each job's end
// under Slurm's own policy the plan is bounded by: the caller's
// ReferenceShadow (reference_shadow.hpp); null: the reference from this
// state (backfill_reference).
Plan make_plan(const PlanInput &in, const PlanChoice &keep = {},
	       const PlanSearch &search = {},
	       const std::vector<double> *ref_end = nullptr);

// Throws std::invalid_argument naming the first inconsistency: a curve
// without a packed time, a job pointing at a missing curve or node set,
// negative work, node_gpus not one per node or outside 0..gpus_per_node,
// more free GPUs than a node has, a running job holding more GPUs than its
// nodes have, a node set not ascending and distinct, a fairness factor in
// (0, 1).
void check_plan_input(const PlanInput &in);

} // namespace planner
} // namespace omru

#endif
