// reference.hpp - what Slurm's own policy would do from the plan's state:
// the reference every plan is bounded by (PlanInput::bound) and omru-sim's
// `backfill` policy.
//
// Slurm's sched/backfill walks pending jobs in priority order and gives each
// the earliest start at which its request fits for its whole expected run
// beside the running jobs and every reservation made before it (a later job
// never delays an earlier one's expected start: conservative backfill, the
// promise admins trust).  Here the same walk runs on the plan's input:
// pending jobs by PlanJob::priority (ties: submission, then input order),
// each at the GPU count its user asked (PlanJob::asked_gpus; the nearest
// count its curve has), placed by pack_gpus on the nodes, CPUs, memory and
// pools free over the whole run; running jobs end as the plan predicts them
// (their neighbours' slowdown aside).  A job whose pools (a user's GPU
// limit, a license) have no room now gets no reservation, as sched/backfill
// skips a job its limits block: it is placed after every job that could
// be (doc/slurm-facts.md, section 12).
//
// What starts now is decided as sched/backfill decides it, on the jobs'
// time limits (PlanJob::limit_s, limit_end_s): a running job's GPUs come
// back when its limit ends, a pending job needs its whole limit free, so a
// job with a short limit starts in a hole before a reservation exactly when
// Slurm would start it there.  Judged on predictions instead, the hole
// closed wherever a higher-priority job's resources were predicted back
// soon: on the limits bench (seed 2) backfill started a 4-minute job in
// such a hole, the reference placed it after the higher-priority job, and
// the plan's bound let it end 2.1-2.2 x its backfill JCT.  Everything after
// now is the predictions': those jobs start first, the others at the
// earliest time something comes back (Slurm decides again at each end;
// jobs end when they are predicted to, not at their limits), so a job's
// reference end is the earliest a scheduler following Slurm's policy could
// give it.  Without limits (none known) both walks are the one on
// predictions.
#ifndef OMRU_PLANNER_REFERENCE_HPP
#define OMRU_PLANNER_REFERENCE_HPP

#include <vector>

#include "planner/plan.hpp"

namespace omru {
namespace planner {

struct Reference {
	// Per PlanInput::jobs entry.  Pending: when it would start and end
	// (infinity: it never fits); running: start its progress start, end
	// its predicted end.
	std::vector<double> start_s, end_s;
	// Pending: the curve option it runs at (-1: none) and its placement at
	// its start.
	std::vector<int> option;
	std::vector<NodeCounts> where;
	// Pending jobs in the order the reference walked them.
	std::vector<int> order;
};

// The pending jobs by Slurm's priority: higher PlanJob::priority first,
// then earlier submit_s, then input order.
std::vector<int> priority_order(const PlanInput &in);

// The option of `job`'s curve Slurm's policy runs it at: its asked count,
// else the nearest count its curve has that fits its nodes when idle (the
// smaller on ties); -1 when none does.
int asked_option(const PlanInput &in, int job);

// Conservative backfill over `in` (see above; on limits for what starts
// now, when a job has one, then on predictions): the first bound.max_jobs
// pending jobs by priority get reservations (sched/backfill's
// bf_max_job_test, 500 by default); a job after them only starts now if
// it fits now, else has no reference.  Deterministic; check_plan_input(in)
// must hold.
Reference backfill_reference(const PlanInput &in);

// Per job: the latest end the bound allows, from its reference end
// (`end`, one per job): submit + (end - submit) x (1 + slack) + slack_s for
// the first bound.max_jobs pending jobs by priority that asked a count and
// for every running job that asked one (a shrink must not push it past
// its bound; the plan's lateness counts pending jobs only); infinity for
// the others.
std::vector<double> reference_deadlines(const PlanInput &in, const std::vector<double> &end);

// Whether the reference starts pending job `j` now: at in.now_s itself,
// as the plan's simulation starts only what it starts at now.  Not
// clearly_less: its tolerance is relative, and select/omru's times are
// Unix seconds (about 1.8e9), so it took a start 1.8 s away for now.
// slurmctld then tried a start on a node whose job had not ended yet;
// cons_tres refused it, the refusal took the job's only node from the
// plan, and a job of lower priority got the node (the limits bench, seed
// 2: a 4-GPU reservation job 2.3 x its backfill JCT).
bool starts_now(const PlanInput &in, const Reference &ref, int j);

// The reference as a plan: starts now what it starts now (starts_now),
// each pending job one segment at its asked count, running jobs to their
// predicted ends; no reuse.  `is_reference` set.
Plan reference_plan(const PlanInput &in, const Reference &ref);

} // namespace planner
} // namespace omru

#endif
