// sjf.cpp - rigid shortest-job-first, non-preemptive: at every event the
// waiting jobs are visited from the shortest (runtime at the requested size,
// packed) to the longest, and each one that fits starts.  A long job that
// does not fit does not hold back shorter ones (list scheduling).
#include <algorithm>

#include "policy/policy.hpp"
#include "policy/registry.hpp"

namespace omru {
namespace {

class Sjf final : public Policy {
    public:
	void schedule(SchedulingContext &ctx) override
	{
		std::vector<std::pair<double, int>> queue;
		for (int job : ctx.pending())
			queue.emplace_back(*remaining_s(ctx, job, ctx.workload().jobs[job].gpus),
					   job);
		std::sort(queue.begin(), queue.end()); // ties: submission order
		for (auto [runtime, job] : queue)
			if (ctx.free_gpus() >= ctx.workload().jobs[job].gpus)
				start_packed(ctx, job, ctx.workload().jobs[job].gpus);
	}
};

} // namespace

std::unique_ptr<Policy> make_sjf(const PolicyOptions &)
{
	return std::make_unique<Sjf>();
}

} // namespace omru
