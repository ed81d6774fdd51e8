// fifo.cpp - rigid first-in first-out without backfill: jobs start at their
// requested GPU count strictly in submission order; the first job that does
// not fit blocks every job behind it.  A job held by its user's GPU limit
// or a license does not wait for nodes: as in slurmctld, it is passed over
// and blocks nothing.
#include "policy/policy.hpp"
#include "policy/registry.hpp"

namespace omru {
namespace {

class Fifo final : public Policy {
    public:
	void schedule(SchedulingContext &ctx) override
	{
		std::vector<int> queue = ctx.pending(); // start() edits pending()
		for (int job : queue) {
			int gpus = ctx.workload().jobs[job].gpus;
			if (!ctx.site().admits(job, gpus))
				continue;
			if (!start_packed(ctx, job, gpus))
				return;
		}
	}
	bool models_site_limits() const override { return true; }
};

} // namespace

std::unique_ptr<Policy> make_fifo(const PolicyOptions &)
{
	return std::make_unique<Fifo>();
}

} // namespace omru
