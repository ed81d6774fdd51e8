// fifo.cpp - rigid first-in first-out without backfill: jobs start at their
// requested GPU count strictly in submission order; the first job that does
// not fit blocks every job behind it.
#include "policy/policy.hpp"
#include "policy/registry.hpp"

namespace omru {
namespace {

class Fifo final : public Policy {
    public:
	void schedule(SchedulingContext &ctx) override
	{
		std::vector<int> queue = ctx.pending(); // start() edits pending()
		for (int job : queue)
			if (!start_packed(ctx, job, ctx.workload().jobs[job].gpus))
				return;
	}
};

} // namespace

std::unique_ptr<Policy> make_fifo(const PolicyOptions &)
{
	return std::make_unique<Fifo>();
}

} // namespace omru
