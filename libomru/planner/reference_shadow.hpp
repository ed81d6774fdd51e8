// reference_shadow.hpp - Slurm's own policy played beside the plans since
// the first one: the state the cluster would be in had it run backfill all
// along, and each job's end there.
//
// The reference from the plan's own state (backfill_reference of the
// current input) cannot see what earlier plans did: a job the plan started
// on 16 GPUs an hour ago holds them now, and a job arriving now is
// promised only what is left.  Under backfill that job would have found
// the GPUs its predecessors did not ask for.  The shadow keeps the
// backfill run itself: jobs start in it when the reference made at an
// earlier plan starts them (their start, end and GPUs as that reference
// placed them), end at their predicted ends, and each plan's reference for
// the jobs not yet started in it is made from the shadow's state; between
// two plans it plans again at each time the last reference starts
// something (catch_up), as Slurm's scheduler decides at every event.  A job's
// end in the shadow is what Slurm's policy would have given it, and what
// the plan is bounded by (planner.hpp, make_plan's `ref_end`).
//
// What it knows: GPUs per node, node sets, pools (a user's GPU limit, a
// license: Slurm's policy waits for them too), CPUs and memory (what each
// shadow job holds by its need; what jobs outside the plan hold, as the
// input says), the jobs' asked counts, priorities and work (their whole
// work as first seen pending).  A job first
// seen running (started before any plan saw it) runs in the shadow where
// it really runs.  A job that leaves the input (it ended, was cancelled or
// is held) ends in the shadow no later than its real run says: the share
// of its predicted run it really ran, of its run in the shadow, and now if
// it never ran for real (a blocker cancelled early frees its GPUs in the
// shadow too, as it would have under backfill).  A job that runs past the
// end first predicted for its real run runs that much longer in the shadow
// too (its start-up, a slower epoch than profiled: backfill would have
// paid them as well); seconds, not a ratio, so a plan that widened the
// job, whose run is shorter, never stretches the shadow's longer run by
// more than it saw.  In memory only: after a restart the shadow starts
// again from the state then.
#ifndef OMRU_PLANNER_REFERENCE_SHADOW_HPP
#define OMRU_PLANNER_REFERENCE_SHADOW_HPP

#include <map>
#include <vector>

#include "planner/plan.hpp"

namespace omru {
namespace planner {

class ReferenceShadow {
    public:
	// Advances the shadow to in.now_s and RET each job's end in it, per
	// in.jobs entry (infinity: none, e.g. a job that asked no count or
	// never fits).  Running jobs get theirs too (unused by the bound).
	std::vector<double> ends(const PlanInput &in);

	size_t running() const { return running_.size(); }

    private:
	struct Run {
		double start_s = 0, end_s = 0;
		double planned_end_s = 0; // end_s before any overrun stretched it
		int gpus = 0;
		// When its time limit ends (PlanJob::limit_end_s; 0: none).
		double limit_end_s = 0;
		NodeCounts where;
		// CPUs and memory on each node of `where` (same order; empty
		// without node resources).
		std::vector<NodeUse> use;
	};
	struct Seen {
		double work = 0;       // epochs, as first seen pending
		double end_s = -1;     // ended in the shadow at (-1: not yet)
		bool planned = false;  // a reference placed it last time
		Run next;              // where and when, if planned
		// Its real run, while the input shows it running: first seen
		// start, the end first predicted for it and the last predicted
		// end (-1: never seen running).
		double real_start_s = -1, first_real_end_s = -1, real_end_s = -1;
	};
	// A job the input shows running: its real start and predicted end.
	static void note_real_run(Seen &seen, const PlanJob &pj);
	// A job gone from the input: cut its shadow run to what it really ran,
	// or stretch it by what it ran past its first predicted end.
	void cut_to_real_run(long id, const Seen &seen, double now);
	// A job still running for real at `now`, past its first predicted
	// end: its shadow run lasts that much longer.
	void stretch_by_overrun(long id, const Seen &seen, double now);
	// The jobs the last reference started by `now` start in the shadow
	// where it placed them, in their order, each if those GPUs are free
	// in the shadow at its start (an overrun noted since may hold them).
	void start_planned(const PlanInput &in, double now);
	// What runs in the shadow and ends by `t` ends.
	void end_runs_by(double t);
	// Slurm's scheduler decides again at every event, not only at the
	// plan's passes: when a job ends, the jobs it frees room for start
	// by priority then (a job its user's limit blocked at the last pass
	// included).  So from the last reference to now the shadow plans
	// again at each time the last reference started something, with what
	// ended by then (at most a few dozen steps a pass; past them the last
	// reference's starts stand).  Following one reference for a whole
	// gap started a lower-priority job it had placed while a blocker's
	// limit was full (limits-stream-4, 2026-11-29: L08-plain took the
	// node L03-cpu got under backfill, and L09-cpu's reference jumped
	// from 108 s to 204 s).
	void catch_up(const PlanInput &in, double now, const std::map<long, size_t> &input_of);
	// The reference from the shadow's state at `t`: each pending job's
	// next start (Seen::next), for the input's jobs (`input_of`: by id)
	// submitted by then.
	void plan_from(const PlanInput &in, double t, const std::map<long, size_t> &input_of);
	bool free_at(const PlanInput &in, const NodeCounts &where, double t) const;
	// The shadow's CPUs and memory: what the input's nodes would have
	// free with none of the plan's jobs on them (jobs outside the plan
	// keep theirs), less what the shadow's running jobs hold.
	static void node_resources(const PlanInput &in, PlanInput &s);
	std::map<long, Run> running_; // started in the shadow, not ended
	std::map<long, Seen> seen_;   // every job of the last input
	double last_now_s_ = -1;
	double planned_at_s_ = -1; // the time of the last reference

};

} // namespace planner
} // namespace omru

#endif
