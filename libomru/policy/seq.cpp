// seq.cpp - sequential: one job at a time in submission order, each on the
// whole cluster or, when the profiles stop earlier or the job's range caps
// it, on its largest usable GPU count.  The baseline that parallelises each
// job as far as it goes and never shares the cluster.
#include "policy/policy.hpp"
#include "policy/registry.hpp"
#include "policy/usable_counts.hpp"

namespace omru {
namespace {

class Seq final : public Policy {
    public:
	std::string refuse(const Workload &w, const ProfileTable &p,
			   const Cluster &c) const override
	{
		return refuse_unrunnable_moldable(w, p, c);
	}

	void schedule(SchedulingContext &ctx) override
	{
		if (!ctx.running().empty() || ctx.pending().empty())
			return;
		int job = ctx.pending().front();
		const std::vector<int> counts =
			usable_counts(ctx.profiles(), ctx.cluster(),
				      ctx.workload().jobs[job]).gpus;
		for (auto g = counts.rbegin(); g != counts.rend(); ++g)
			if (start_packed(ctx, job, *g))
				return;
	}
};

} // namespace

std::unique_ptr<Policy> make_seq(const PolicyOptions &)
{
	return std::make_unique<Seq>();
}

} // namespace omru
