// arrival_guard.hpp - moldable starts while jobs keep arriving.
//
// The reference bound (plan.hpp, ReferenceBound) protects the jobs a plan
// knows.  A job submitted a moment later is protected only by what the
// plan left free: a job the plan started wider than its user asked holds
// the extra GPUs for its whole run, and one it started narrower, ahead of
// its reference, holds GPUs Slurm's policy would have left idle.  An elastic
// job gives such GPUs back when a newcomer needs them (shrink_to_admit.hpp);
// a job that is not elastic cannot.  In a stream of submissions that is a
// bet against the next arrival, and it loses: omru-sim, the limits bench's
// mixes (24 jobs, one every 2 s, not elastic), 12-29% of jobs more than 5%
// later than under backfill, and the OMRU batches submitted one every 2 s,
// 12-19% later with the worst job 4-16 x (2026-11-29).
//
// So while jobs keep arriving, a pending job that cannot give GPUs back runs
// at the count its user asked (the option Slurm's policy runs it at,
// reference.hpp's asked_option): the plan still chooses its order, start
// and nodes within the bound.  "Keep arriving": the jobs the plan holds
// now, pending or running, were first seen at two or more of its passes
// within the job's own run at its asked count before now, the best evidence
// there is that another one arrives while it would run; or a pass within
// that run first saw one job alone.  Nothing tells the first job of a
// stream from a job that nobody follows: widened alone, it took the GPUs
// of the jobs submitted seconds later (limits-stream-2: a CPU-heavy job
// widened at t=0 over two nodes' CPUs, the job 8 s behind it 1.31 x and
// the order that followed 1.96 x; slurm-fairshare.sh: a job widened to a
// whole node, the one 3 s later 1.56-1.82 x; 2026-11-29).  A batch
// submitted at once (or free to start at one --begin time: such a job is
// outside the plan until then; not `scontrol release A,B`, one request per
// job, which a pass can fall between) is one pass with several jobs, so
// its jobs keep their ranges; so does every job once arrivals have paused
// for as long as it would run.  A pass is known by its time, which
// slurmctld gives in whole seconds: jobs first seen at two passes within
// one second are one arrival.
// A job that wants the idle GPUs of a quiet cluster asks for them with
// --omru-elastic: it gives them back when the next job comes.
#ifndef OMRU_PLANNER_ARRIVAL_GUARD_HPP
#define OMRU_PLANNER_ARRIVAL_GUARD_HPP

#include <map>
#include <vector>

#include "planner/plan.hpp"

namespace omru {
namespace planner {

class ArrivalGuard {
    public:
	ArrivalGuard() { forget(); }

	// A pending job held to its asked count: its in.jobs index and the
	// option of its curve it runs at (reference.hpp's asked_option).
	struct Held {
		int job = -1;
		int option = -1;
	};

	// Notes the jobs `in` shows for the first time (at in.now_s; a job
	// is forgotten once it leaves the input) and RET the pending jobs
	// guarded now: empty unless in.arrival_guard.
	std::vector<Held> guarded(const PlanInput &in);

	// Each held job's curve replaced by one with only its option
	// (appended to in.curves, one per curve and option).
	static void hold_to_ask(PlanInput &in, const std::vector<Held> &jobs);

    private:
	void forget();

	// When the jobs of the last input were first seen, by PlanJob::id.
	std::map<long, double> first_seen_;
	// How many jobs each pass of first_seen_ first saw, at that pass.
	std::map<double, int> arrivals_;
	double last_now_s_;
};

} // namespace planner
} // namespace omru

#endif
