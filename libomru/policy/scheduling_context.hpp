// scheduling_context.hpp - what a policy sees and may do.  The simulator
// implements it over a trace; select/omru implements it over slurmctld's job
// and node tables.  Policies are written against this interface only, so the
// same policy code runs in both.
#ifndef OMRU_POLICY_SCHEDULING_CONTEXT_HPP
#define OMRU_POLICY_SCHEDULING_CONTEXT_HPP

#include <vector>

#include "model/cluster.hpp"
#include "model/site_usage.hpp"
#include "profile/profile_table.hpp"
#include "model/workload.hpp"
#include "policy/placement.hpp"

namespace omru {

// A job's state as of the end of its last segment, plus its current segment
// if it runs.  Quantities "now" come from SchedulingContext helpers.
struct JobProgress {
	enum class State { Future, Pending, Running, Done } state = State::Future;
	double epochs_done = 0;   // in closed segments
	double gpu_seconds = 0;   // GPUs held x time, closed segments
	int segments = 0;         // closed and current
	// Current segment (state Running):
	int gpus = 0;
	int nodes = 0;            // distinct nodes spanned
	double segment_start_s = 0;
	double progress_start_s = 0; // segment start + restart overhead
	double epoch_s = 0;          // truth for this spread, with the
				     // slowdown its neighbours cause now
	double solo_epoch_s = 0;     // truth for this spread alone
	double end_s = 0;            // when it completes if left alone
	std::vector<int> gpu_ids;
};

class SchedulingContext {
    public:
	virtual ~SchedulingContext() = default;

	virtual double now_s() const = 0;
	virtual const Cluster &cluster() const = 0;
	virtual const ProfileTable &profiles() const = 0;
	virtual const Workload &workload() const = 0;
	virtual double restart_overhead_s() const = 0;

	// Submitted jobs that neither run nor are done, ascending index (which
	// is submission order).
	virtual const std::vector<int> &pending() const = 0;
	// Running jobs, ascending index.
	virtual const std::vector<int> &running() const = 0;
	virtual const JobProgress &progress(int job) const = 0;
	virtual const std::vector<int> &free_gpus_per_node() const = 0;
	// What running jobs hold besides GPUs, and where a job fits as far as
	// the site's limits go (the workload's site-limit columns).
	virtual const SiteUsage &site() const = 0;

	// Starts a pending job now on the given GPUs per node.  RET false, and
	// nothing changes, when the job is not pending, a node lacks the free
	// GPUs, the count is outside [gpus_min, gpus_max], the profiles have
	// no row for that count and spread, or a site limit refuses it
	// (SiteUsage: admits, fit_on).
	virtual bool start(int job, const NodeCounts &where) = 0;
	// Preempts a running job now, keeping its progress.  RET false when it
	// is not running or still paying its restart overhead.
	virtual bool stop(int job) = 0;
	// Asks to be scheduled again at time t (> now) even if nothing happens.
	virtual void wake_at(double t) = 0;

	// Derived quantities, the same for every implementation.
	double remaining_epochs(int job) const;
	double attained_gpu_seconds(int job) const;
	bool in_restart_overhead(int job) const;
	int free_gpus() const;
};

} // namespace omru

#endif
