// backfill.cpp - Slurm's own policy: sched/backfill over the jobs in
// priority order (the workload's priority column; submission order without
// it, as priority/basic), each at the GPU count its user asked.  At every
// event the reference of planner/reference.hpp is computed from the
// simulation's state and the jobs it starts now are started: the very
// function select/omru bounds its plans by, so the baseline omru-sim
// compares against is the reference itself.  Every pending job gets the
// earliest start at which it fits, for its whole estimated run, beside the
// running jobs and the reservations of the jobs before it (conservative
// backfill: a job never delays the expected start of a job of higher
// priority).  Estimates are walltime limits: F x the job's true runtime
// (--walltime-factor F >= 1), for running and pending jobs alike.
// Site limits (SiteUsage) are the reference's: node lists as node sets,
// CPUs and memory per node, each limited user's GPUs and each license as
// pools held until the holder's estimated end.
#include "planner/plan_simulation.hpp" // clearly_less
#include "planner/reference.hpp"
#include "policy/policy.hpp"
#include "policy/registry.hpp"
#include "policy/sim_plan_input.hpp"

namespace omru {
namespace {

class Backfill final : public Policy {
    public:
	explicit Backfill(double factor) : input_(factor) {}

	void schedule(SchedulingContext &ctx) override
	{
		planner::PlanInput in = input_.build(ctx, PolicyOptions{}, nullptr);
		const planner::Reference ref = planner::backfill_reference(in);
		input_.keep_curves(in);
		for (int j : ref.order)
			if (planner::starts_now(in, ref, j))
				ctx.start(input_.job_of(j), ref.where[j]);
	}

	bool models_site_limits() const override { return true; }

    private:
	SimPlanInput input_;
};

} // namespace

std::unique_ptr<Policy> make_backfill(const PolicyOptions &o)
{
	return std::make_unique<Backfill>(o.walltime_factor);
}

} // namespace omru
