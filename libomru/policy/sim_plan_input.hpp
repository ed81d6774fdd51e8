// sim_plan_input.hpp - a simulation's state as the planner's input
// (planner/plan.hpp), the way select/omru translates slurmctld's: every
// running and pending job, its speed curve from the profiles' truth, its
// site limits (node list, CPUs and memory, its user's GPU limit and its
// license as pools: select_plugin/plan_pools.c), its asked count and
// priority for the reference.  The `omru` policy plans on it; `backfill`
// runs Slurm's own policy on it (planner/reference.hpp).
#ifndef OMRU_POLICY_SIM_PLAN_INPUT_HPP
#define OMRU_POLICY_SIM_PLAN_INPUT_HPP

#include <map>
#include <tuple>
#include <vector>

#include "planner/plan.hpp"
#include "policy/policy.hpp"

namespace omru {

class SimPlanInput {
    public:
	// time_factor: every time the input holds (curves, running jobs'
	// epochs) is the truth times it (backfill's walltime estimates).
	explicit SimPlanInput(double time_factor = 1) : time_factor_(time_factor) {}

	// The input for now; curves are kept between calls (take them back
	// with keep_curves).  `interference`: kinds and the slowdown matrix
	// from it (null or empty: none).
	planner::PlanInput build(const SchedulingContext &ctx, const PolicyOptions &opts,
				 const InterferenceModel *interference);
	// The curves of the input last built, with any new ones, for next time.
	void keep_curves(planner::PlanInput &in) { curves_ = std::move(in.curves); }
	// Plan job index -> workload job.
	int job_of(int plan_job) const { return job_of_[plan_job]; }

    private:
	int curve_of(const SchedulingContext &ctx, const Job &j,
		     std::vector<planner::SpeedCurve> &curves);
	void add_pools(const Workload &w, const Job &j, planner::PlanInput &in,
		       planner::PlanJob &pj);
	void add_limits(planner::PlanInput &in, double factor) const;

	double time_factor_;
	std::map<std::tuple<int, int, int>, int> curve_index_;
	std::vector<planner::SpeedCurve> curves_;
	std::vector<int> job_of_;
	// This input's pool of each user and license, -1 for none yet.
	std::vector<int> user_pool_, license_pool_;
};

} // namespace omru

#endif
