// plan.hpp - what the OMRU planner reads and what it answers (planner.hpp).
// Slurm-free and simulator-free: omru-sim's `omru` policy and select/omru
// both translate their own state into a PlanInput and act on the Plan.
#ifndef OMRU_PLANNER_PLAN_HPP
#define OMRU_PLANNER_PLAN_HPP

#include <algorithm>
#include <limits>
#include <tuple>
#include <utility>
#include <vector>

#include "model/node_need.hpp"
#include "policy/placement.hpp" // NodeCounts

namespace omru {
namespace planner {

// What the plan minimises.  Makespan is the OMRU paper's objective and the
// default for batches; MeanJct orders the queue shortest-first and suits
// online clusters where jobs keep arriving.
enum class Objective { Makespan, MeanJct };

constexpr double kNoRow = std::numeric_limits<double>::quiet_NaN();

// How fast one kind of job runs: the GPU counts it may be given (ascending,
// already cut to the job's moldable range and the cluster) and, for each,
// seconds per epoch by the number of nodes spanned.  epoch_s[i][k] is for
// gpus[i] GPUs over k nodes; kNoRow where that spread may not be used (in
// simulation: the profiles have no row for it).  epoch_s[i][min_nodes]
// must be a number: it is the packed time the allotment is chosen on.
struct SpeedCurve {
	std::vector<int> gpus;
	std::vector<std::vector<double>> epoch_s;

	double packed(size_t i, int gpus_per_node) const
	{
		return epoch_s[i][(gpus[i] + gpus_per_node - 1) / gpus_per_node];
	}
};

// What a job takes of a node besides GPUs (model/node_need.hpp).
using omru::NodeNeed;

// CPUs and memory (MB) a running job holds on one node.
struct NodeUse {
	double cpus = 0, mem = 0;
};

// What a job takes of a shared limit that is not about nodes
// (PlanInput::pool_capacity): per_gpu x its GPU count + per_job.  A user's
// GPU limit (QOS MaxTRESPerUser=gres/gpu, GrpTRES) is per_gpu 1; a license
// is per_job its count.
struct PoolUse {
	int pool = -1;
	double per_gpu = 0;
	double per_job = 0;
	double of(int gpus) const { return per_gpu * gpus + per_job; }
	// Whether `used` of a pool of `capacity` leaves room for it at `gpus`
	// GPUs (rounding aside).
	bool fits(int gpus, double used, double capacity) const
	{
		return used + of(gpus) <= capacity + 1e-9 * std::max(1.0, capacity);
	}
};

// A job the plan covers: pending (running == false) or running.
struct PlanJob {
	long id = 0;                  // the caller's name for it, stable
				      // across calls (PlanChoice refers to it)
	int curve = -1;               // index into PlanInput::curves
	double submit_s = 0;
	double remaining_epochs = 0;  // pending: all that is left
	// Running jobs only:
	bool running = false;
	int gpus = 0;
	NodeCounts where;             // the GPUs it holds, per node
	double progress_start_s = 0;  // when it started progressing (after
				      // its restart overhead)
	double epochs_at_progress_start = 0; // left at progress_start_s
	double epoch_s = 0;           // on its current spread
	// The caller lets the plan resize it (stop it and restart it on more
	// GPUs); the plan waits for progress_start_s first, since a job paying
	// its restart overhead cannot be stopped.
	bool resizable = true;
	// What a resize costs this job (stop, requeue, start, resume), when
	// the caller measured it; < 0: PlanInput::restart_overhead_s.
	double restart_s = -1;
	// Running and resizable: the plan may also shrink it so that a
	// waiting job starts (phase-aware reallocation: the caller sets it
	// for jobs in their late training phase, policy/training_phase.hpp).
	bool may_shrink = false;
	// The nodes it may be placed on: an index into PlanInput::node_sets
	// (a Slurm partition, --nodelist, --exclude, --constraint), or -1 for
	// every node.  Starts and growths use only these nodes.
	int node_set = -1;
	// What it takes of a node besides GPUs (PlanInput::has_resources).
	NodeNeed need;
	// Running: what it holds on each node of `where` (same order); empty:
	// need applied to its GPUs there.
	std::vector<NodeUse> holding;
	// The shared limits it counts against, each pool once.
	std::vector<PoolUse> pools;
	// How it interferes (PlanInput::slowdown): an index into it, -1 for a
	// job the plan does not price (it neither slows nor is slowed).
	int kind = -1;
	// Pending: seconds from its start to its first progress (the job's
	// launch, its framework's start, its first data: what its user's
	// jobs were measured to take, controller/start_overhead.hpp), at any
	// GPU count.  The plan and the reference both add it to its run, so
	// a chain of starts is priced as it will run.  0: none.
	double start_overhead_s = 0;
	// Pending: its run if started on a spread of `epoch_s` an epoch.
	double run_s(double epoch_s) const
	{
		return start_overhead_s + remaining_epochs * epoch_s;
	}
	// Pending: the GPU count its user asked (--gpus), what Slurm's own
	// policy runs it at (planner/reference.hpp); 0: none asked, the job
	// has no reference bound.
	int asked_gpus = 0;
	// Slurm's priority without the plan's own part (multifactor's factors,
	// partition PriorityTier above them; priority/basic: submission
	// order): higher first in the reference, ties by submit_s.
	double priority = 0;
	// What sched/backfill reserves by: its time limit, not its predicted
	// run (planner/reference.hpp decides what Slurm's policy starts now
	// with them).  Pending: the limit in seconds; running: the time its
	// limit ends (its start plus its limit).  0: none known (the
	// prediction stands in).
	double limit_s = 0;
	double limit_end_s = 0;
};

// The promise the plan keeps to every pending job (doc/omru-planner.md,
// "The reference bound"): it ends no later than Slurm's own policy would
// end it from the same state (its reference, planner/reference.hpp), its
// completion time from submission stretched by `slack` plus `slack_s`.
struct ReferenceBound {
	bool on = false;
	double slack = 0.05;
	double slack_s = 1;
	// Jobs the reference covers, by priority (Slurm's backfill tests
	// bf_max_job_test jobs, 500 by default); the rest have no bound.
	int max_jobs = 500;
};

struct PlanInput {
	double now_s = 0;
	int nodes = 0;
	// The largest node's GPUs: packed times (SpeedCurve::packed) are
	// priced on spans of this many GPUs per node.
	int gpus_per_node = 0;
	// GPUs of each node, for clusters whose nodes differ; empty: every
	// node has gpus_per_node.  0 <= node_gpus[n] <= gpus_per_node.
	std::vector<int> node_gpus;
	// Node sets jobs may be confined to (PlanJob::node_set): each
	// ascending, distinct, valid node indices.
	std::vector<std::vector<int>> node_sets;
	std::vector<int> free_per_node; // GPUs the plan may hand out now
	// Node resources besides GPUs, per node: CPUs and memory (MB), what
	// each has and what is free now (what Slurm's running jobs, GPU or
	// not, leave).  Empty: GPUs are the only resource and NodeNeed is
	// not used; otherwise all four have one entry per node.
	std::vector<double> node_cpus, node_mem, free_cpus, free_mem;
	// Limits shared by jobs that are not about nodes (PoolUse): how much
	// of each the plan's jobs, running ones included, may hold at once
	// (the limit less what jobs outside the plan hold).  A job starts or
	// grows only within them; a count beyond a pool's capacity is never
	// offered.
	std::vector<double> pool_capacity;
	std::vector<SpeedCurve> curves;
	std::vector<PlanJob> jobs;     // ties in any ordering go to the lower index
	double restart_overhead_s = 0; // paid by every resized job
	Objective objective = Objective::Makespan;
	// Fairness guard: > 0 promotes any pending job whose planned
	// completion time (from submission) exceeds this factor times the one
	// it gets in a first-come-first-served plan; 0 turns it off.
	double fairness_factor = 0;
	// Let running jobs grow into GPUs nothing else will use (GPU reuse).
	bool reuse = true;
	// While jobs keep arriving, pending jobs that cannot give GPUs back
	// start only at the count they asked (arrival_guard.hpp; Replanner
	// applies it, since it needs the passes before this one).
	bool arrival_guard = false;
	// Growths only onto one node.  Slurm places a restarted job itself
	// (cons_tres takes no per-node GPU counts): a growth over several nodes
	// can land off the plan, on GPUs the plan gave another job.
	bool grow_on_one_node = false;
	// Try shrinking running jobs that may_shrink so a waiting job starts
	// now; kept when the plan ends sooner (makespan; mean JCT under that
	// objective) by more than kShrinkGain (shrink_to_admit.hpp).
	bool shrink_to_admit = false;
	// Interference (profile/interference_model.hpp): slowdown[a][b] is
	// the factor on a job of kind a's epoch time next to one job of kind
	// b on a node, in [1, kMaxSlowdown]; a job's neighbours (distinct jobs
	// on any of its nodes) add up (combined_slowdown).  Empty: jobs never
	// slow each other down.  With it, a start goes to the nodes where it
	// and its neighbours lose least on the fewest nodes it needs, and
	// every running job's time follows its neighbours as they come and go
	// (plan_simulation.hpp).
	std::vector<std::vector<double>> slowdown;
	// With a slowdown matrix: starts go where they interfere least
	// (true), or where pack_gpus puts them, still priced (false).
	// make_plan also plans the latter way, from the choice it makes blind
	// to the matrix, and keeps that plan only where it is clearly better
	// (pack_gpus may keep large nodes whole).
	bool place_apart = true;
	// Keep the reference bound (ReferenceBound).
	ReferenceBound bound;
	// Per job: the latest end the bound allows (absolute time; infinity:
	// none).  make_plan fills it from the reference when bound.on; empty:
	// no job is bound.  Pending jobs' count as the plan's lateness;
	// running jobs' only limit shrinks (shrink_to_admit).
	std::vector<double> deadline_s;

	int capacity(int node) const
	{
		return node_gpus.empty() ? gpus_per_node : node_gpus[node];
	}
	bool has_resources() const { return !node_cpus.empty(); }
	// Whether CPUs or memory can keep a job off free GPUs in this input:
	// false when every job takes at most the nodes' CPUs and memory per
	// GPU and every node has that much free per free GPU (then packing
	// on free GPUs alone is exact, and cheaper).
	bool resources_bind() const;
	// The most GPUs a job needing `need` can take on `node` given `gpus`
	// free GPUs, `cpus` CPUs and `mem` MB free there: GPUs alone
	// without node resources or a need.
	int fit_on(const NodeNeed &need, int node, int gpus, double cpus,
		   double mem) const;
	// What a job needing `need` takes of `node` with `gpus` GPUs there.
	NodeUse use_of(const NodeNeed &need, int node, int gpus) const;
};

// Something to do now, in this order.
struct Action {
	enum class Kind { Start, Resize } kind = Kind::Start;
	int job = -1;     // index into PlanInput::jobs
	int gpus = 0;
	// On the free GPUs (a resize: plus its own); a shrink: the part of
	// its own GPUs it keeps.
	NodeCounts where;
};

// One stretch of a job on a fixed set of GPUs.
struct PlannedSegment {
	double start_s = 0;
	double end_s = 0;
	int gpus = 0;
	int nodes = 0;
};

struct PlannedJob {
	// Planned segments from now on, in time order.  Empty when the plan
	// could not place the job (it never fits: more GPUs than its node set
	// has, or no usable spread).
	std::vector<PlannedSegment> segments;
	double start_s() const
	{
		return segments.empty() ? std::numeric_limits<double>::infinity()
					: segments.front().start_s;
	}
	double end_s() const
	{
		return segments.empty() ? std::numeric_limits<double>::infinity()
					: segments.back().end_s;
	}
};

// Which of the planner's candidate plans this is; passing it back in the
// next call (make_plan's `keep`) keeps decisions stable across passes.
struct PlanChoice {
	double budget_s = 0; // longest runtime an allotment may have
	int order = 0;       // index of the queue order tried
	// GPU counts that local search moved away from the budget's
	// allotment, by PlanJob::id, ascending.
	std::vector<std::pair<long, int>> moved;
	bool valid = false;
};

struct Plan {
	std::vector<Action> now;
	std::vector<PlannedJob> jobs; // one per PlanInput::jobs entry
	double makespan_s = 0;        // latest planned end (absolute time)
	double mean_jct_s = 0;        // planned, over the input's jobs
	int unplaced = 0;             // jobs the plan could not place
	// Pending jobs planned to end after their deadline (PlanInput::
	// deadline_s) or never placed; make_plan returns the reference from
	// this state rather than a plan with more of them than it has.
	int late = 0;
	double late_s = 0; // by how much in all (the search's own count)
	// Which (PlanInput::jobs index) and by how many seconds each.
	std::vector<std::pair<int, double>> late_jobs;
	// The plan is Slurm's own policy's (the reference): no plan the search
	// found kept every job's bound.
	bool is_reference = false;
	// Per job (PlanInput::jobs): when Slurm's own policy would end it, the
	// end its bound is made from (infinity: it has no reference); empty
	// without the bound.
	std::vector<double> ref_end_s;
	PlanChoice choice;
	// Pending jobs planned at their asked count only, while jobs keep
	// arriving (PlanInput::arrival_guard; set by Replanner).
	int held_to_ask = 0;
	int candidates = 0;           // plans simulated to find this one
	bool incremental = false;     // PlanSearch::max_simulations applied
};

} // namespace planner
} // namespace omru

#endif
