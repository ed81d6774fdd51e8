// tiresias.cpp - rigid, preemptive, discretised two-dimensional
// least-attained-service (2D-LAS), after Tiresias (Gu et al., NSDI'19).
// Nobody knows a job's duration in advance, but the service it has attained
// so far, GPUs x time it has held them, is known; giving the GPUs to the jobs
// that have had least lets short jobs finish ahead of long ones.
//
// The ascending thresholds of --tiresias-thresholds (GPU-seconds) cut the
// attained service into queues Q0..QK: a job that has attained less than the
// first threshold is in Q0, and so on.  At every event the active jobs,
// running and waiting, are ordered by (queue, submission order) and, with
// the cluster's GPUs as the budget, each job whose requested GPUs still fit
// what is left of it is selected: a small job may pass a large one that does
// not fit.  A job still paying its restart overhead cannot be stopped, so it
// is selected before everyone else.  Running jobs that were not selected are
// preempted (they keep their progress); selected waiting jobs start at their
// requested size, packed, in priority order, and one that cannot be placed
// (fragmented free GPUs, or no profile row for the spread) waits for the
// next event.  Running jobs never move and no job changes size.  Ties keep
// submission order, so a running job is never preempted by a later job of
// its own queue.
//
// Besides arrivals and completions, the policy asks to be woken when a
// running job's attained service reaches its next threshold, so the job is
// demoted on time, and, while jobs wait, when a restart overhead ends, since
// only then may that job be preempted.
//
// Not implemented: Tiresias's starvation knob (PROMOTEKNOB: a job that has
// waited longer than that many times its executed time goes back to Q0;
// without it, as here, the last queue is plain first-come first-served and
// a demoted job waits for as long as newer jobs fill the cluster), its
// Gittins-index variant for known duration distributions, and its
// profile-guided choice between consolidated and spread placement: every
// job is packed on the fewest nodes.
#include <algorithm>
#include <utility>

#include "policy/policy.hpp"
#include "policy/registry.hpp"

namespace omru {
namespace {

// Attained service within this many GPU-seconds of a threshold counts as
// past it, so a wake-up computed for the crossing demotes the job although
// time arithmetic rounds.
constexpr double kThresholdSlackGpuS = 1e-6;

class Tiresias final : public Policy {
    public:
	explicit Tiresias(std::vector<double> thresholds)
		: thresholds_(std::move(thresholds))
	{
		std::sort(thresholds_.begin(), thresholds_.end());
	}

	void schedule(SchedulingContext &ctx) override
	{
		const Workload &w = ctx.workload();
		int budget = ctx.cluster().total_gpus();

		// (queue, job) for every job that may be preempted or started;
		// jobs in their restart overhead are selected up front.
		std::vector<std::pair<int, int>> order;
		std::vector<int> selected; // waiting jobs to start, in order
		for (int job : ctx.running()) {
			if (ctx.in_restart_overhead(job))
				budget -= ctx.progress(job).gpus;
			else
				order.emplace_back(queue_of(ctx.attained_gpu_seconds(job)),
						   job);
		}
		for (int job : ctx.pending())
			order.emplace_back(queue_of(ctx.attained_gpu_seconds(job)), job);
		std::sort(order.begin(), order.end()); // ties: submission order

		std::vector<int> preempt;
		for (auto [queue, job] : order) {
			bool running = ctx.progress(job).state ==
				       JobProgress::State::Running;
			if (w.jobs[job].gpus <= budget) {
				budget -= w.jobs[job].gpus;
				if (!running)
					selected.push_back(job);
			} else if (running) {
				preempt.push_back(job);
			}
		}

		for (int job : preempt)
			ctx.stop(job);
		for (int job : selected)
			start_packed(ctx, job, w.jobs[job].gpus);

		request_wakeups(ctx);
	}

    private:
	int queue_of(double attained_gpu_s) const
	{
		int q = 0;
		while (q < static_cast<int>(thresholds_.size()) &&
		       attained_gpu_s + kThresholdSlackGpuS >= thresholds_[q])
			q++;
		return q;
	}

	void request_wakeups(SchedulingContext &ctx) const
	{
		bool waiting = !ctx.pending().empty();
		for (int job : ctx.running()) {
			const JobProgress &p = ctx.progress(job);
			int q = queue_of(ctx.attained_gpu_seconds(job));
			if (q < static_cast<int>(thresholds_.size()))
				// Attained = closed GPU-seconds + gpus x (t - start).
				ctx.wake_at(p.segment_start_s +
					    (thresholds_[q] - p.gpu_seconds) / p.gpus);
			if (waiting && ctx.in_restart_overhead(job))
				ctx.wake_at(p.progress_start_s);
		}
	}

	std::vector<double> thresholds_;
};

} // namespace

std::unique_ptr<Policy> make_tiresias(const PolicyOptions &o)
{
	return std::make_unique<Tiresias>(o.tiresias_thresholds_gpu_s);
}

} // namespace omru
