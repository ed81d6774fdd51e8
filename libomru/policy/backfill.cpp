// backfill.cpp - rigid EASY backfill, as Slurm's sched/backfill does it with
// one reservation: jobs start in submission order while they fit; the first
// that does not gets a reservation at the earliest time the running jobs'
// estimated ends free enough GPUs for it (on concrete nodes); a later job may
// start now if, by its estimate, it ends before that time, or if it only uses
// GPUs the reservation leaves free.  Estimates are walltime limits: F x the
// job's true runtime at its requested size (--walltime-factor F >= 1).
// Site limits (SiteUsage): a job held by its user's GPU limit or a license
// is passed over, as slurmctld passes it over, and gets no reservation; the
// reservation is on the head job's node_list, counted in GPUs (the CPUs
// and memory of a future start are not forecast); jobs started now fit the
// nodes' free CPUs and memory.
#include <algorithm>

#include "policy/policy.hpp"
#include "policy/registry.hpp"

namespace omru {
namespace {

class Backfill final : public Policy {
    public:
	explicit Backfill(double factor) : factor_(factor) {}

	void schedule(SchedulingContext &ctx) override
	{
		std::vector<int> queue;
		for (int job : ctx.pending())
			if (ctx.site().admits(job, gpus(ctx, job)))
				queue.push_back(job);
		size_t head = 0;
		while (head < queue.size() &&
		       start_packed(ctx, queue[head], gpus(ctx, queue[head])))
			head++;
		if (head >= queue.size())
			return;

		// Reservation for the head job.
		std::vector<std::pair<double, int>> ends;
		for (int r : ctx.running())
			ends.emplace_back(std::max(ctx.now_s(), estimated_end(ctx, r)), r);
		std::sort(ends.begin(), ends.end());
		std::vector<int> at_shadow = ctx.free_gpus_per_node();
		const Job &hj = ctx.workload().jobs[queue[head]];
		double shadow = ctx.now_s();
		std::optional<NodeCounts> reserved;
		for (size_t i = 0; i < ends.size() && !reserved;) {
			shadow = ends[i].first;
			for (; i < ends.size() && ends[i].first == shadow; i++)
				for (int g : ctx.progress(ends[i].second).gpu_ids)
					at_shadow[ctx.cluster().node_of(g)]++;
			reserved = hj.node_list.empty()
					   ? pack_gpus(at_shadow, hj.gpus)
					   : pack_gpus(at_shadow, hj.gpus, hj.node_list);
			if (reserved && !ctx.profiles().epoch_s(hj.model, hj.gpus,
							       static_cast<int>(reserved->size())))
				reserved.reset();
		}
		if (!reserved)
			return; // cannot happen for a runnable job; start nothing
		for (auto [node, count] : *reserved)
			at_shadow[node] -= count;

		for (size_t k = head + 1; k < queue.size(); k++) {
			int job = queue[k];
			if (!ctx.site().admits(job, gpus(ctx, job)))
				continue; // a job started just now took the room
			if (ctx.now_s() + estimate_s(ctx, job) <= shadow) {
				start_packed(ctx, job, gpus(ctx, job));
				continue;
			}
			// Runs past the reservation: only GPUs it leaves free.
			const std::vector<int> free = usable_free(ctx, job);
			std::vector<int> caps(free.size());
			for (size_t n = 0; n < free.size(); n++)
				caps[n] = std::max(0, std::min(free[n], at_shadow[n]));
			const Job &j = ctx.workload().jobs[job];
			auto where = pack_gpus(caps, j.gpus);
			if (!where || !ctx.profiles().epoch_s(j.model, j.gpus,
							      static_cast<int>(where->size())))
				continue;
			if (ctx.start(job, *where))
				for (auto [node, count] : *where)
					at_shadow[node] -= count;
		}
	}

	bool models_site_limits() const override { return true; }

    private:
	static int gpus(const SchedulingContext &ctx, int job)
	{
		return ctx.workload().jobs[job].gpus;
	}
	// The walltime limit a user would have given: F x true runtime at the
	// requested size, packed.
	double estimate_s(const SchedulingContext &ctx, int job) const
	{
		const Job &j = ctx.workload().jobs[job];
		return factor_ * j.epochs *
		       *ctx.profiles().packed_epoch_s(j.model, j.gpus, ctx.cluster());
	}
	double estimated_end(const SchedulingContext &ctx, int job) const
	{
		return ctx.progress(job).segment_start_s + estimate_s(ctx, job);
	}

	double factor_;
};

} // namespace

std::unique_ptr<Policy> make_backfill(const PolicyOptions &o)
{
	return std::make_unique<Backfill>(o.walltime_factor);
}

} // namespace omru
