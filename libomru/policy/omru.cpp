// omru.cpp - the slurm-omru planner (planner/planner.hpp) as a policy: at
// every event the running and pending jobs are re-planned, and what the plan
// does now (start jobs, grow running ones) is done.  In simulation a job may
// only run at a count and spread the profiles measured, so the speed curves
// are the profiles' truth: the plan then predicts the run exactly, and
// keeping the previous plan's choice unless a better one appears makes the
// executed schedule at least as good as the first plan.
//
// Site limits (SiteUsage) are given to the plan as select/omru gives
// slurmctld's: each node's CPUs and memory and each job's need of them, a
// job's node_list as its node set, and each user's GPU limit and each
// license as a pool (PlanInput::pool_capacity) its jobs count against, so
// the plan orders a limited user's jobs and a license's around each other
// (select_plugin/plan_pools.c).
#include "planner/planner.hpp"
#include "planner/replanner.hpp"
#include "policy/policy.hpp"
#include "policy/registry.hpp"
#include "policy/sim_plan_input.hpp"

namespace omru {
namespace {

class Omru final : public Policy {
    public:
	explicit Omru(const PolicyOptions &o) : opts_(o) {}

	std::string refuse(const Workload &w, const ProfileTable &p,
			   const Cluster &c) const override
	{
		return refuse_unrunnable_moldable(w, p, c);
	}

	bool models_site_limits() const override { return true; }

	void schedule(SchedulingContext &ctx) override
	{
		planner::PlanInput in = input_.build(ctx, opts_, opts_.omru_interference.get());
		planner::Plan plan = replanner_.plan(in);
		input_.keep_curves(in); // with any new ones, for next time
		for (const planner::Action &a : plan.now) {
			int job = input_.job_of(a.job);
			if (a.kind == planner::Action::Kind::Resize && !ctx.stop(job))
				continue;
			ctx.start(job, a.where);
		}
		// The plan grows jobs when their restart overhead ends: be there.
		if (ctx.free_gpus() > 0)
			for (int job : ctx.running())
				if (ctx.in_restart_overhead(job))
					ctx.wake_at(ctx.progress(job).progress_start_s);
	}

    private:
	PolicyOptions opts_;
	SimPlanInput input_;
	planner::Replanner replanner_; // the previous plan's choice, as slurmctld keeps it
};

} // namespace

std::unique_ptr<Policy> make_omru(const PolicyOptions &o)
{
	return std::make_unique<Omru>(o);
}

std::unique_ptr<Policy> make_omru_oblivious(const PolicyOptions &o)
{
	PolicyOptions blind = o;
	blind.omru_interference = nullptr;
	return std::make_unique<Omru>(blind);
}

} // namespace omru
