// policy.hpp - a scheduling policy: one class per policy, registered by name
// (policy/registry.cpp) and driven the same way by omru-sim and select/omru.
#ifndef OMRU_POLICY_POLICY_HPP
#define OMRU_POLICY_POLICY_HPP

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "planner/plan.hpp"
#include "policy/scheduling_context.hpp"
#include "profile/interference_model.hpp"

namespace omru {

struct PolicyOptions {
	double walltime_factor = 1.0;        // backfill: estimate = F x truth
	std::vector<double> tiresias_thresholds_gpu_s{ 3600.0 };
	uint64_t seed = 1;                   // omru-ga
	int ga_iterations = 1000;
	int ga_population = 50;
	// omru: what the plan minimises (mean JCT, as select/omru's default:
	// doc/omru.conf.5 says why), and the fairness guard (0: off).
	planner::Objective omru_objective = planner::Objective::MeanJct;
	double omru_fairness = 0;
	// omru: grow running jobs into idle GPUs (GPU reuse).  Off predicts
	// select/omru, which cannot resize jobs without checkpoint/restart.
	bool omru_resize = true;
	// omru: growths onto one node only, as select/omru resizes in Slurm.
	bool omru_grow_on_one_node = false;
	// omru: phase-aware reallocation (shrink late-phase elastic jobs so a
	// waiting job starts), as select/omru with PhaseAware=yes.
	bool omru_phase_aware = true;
	// omru: what co-located jobs cost each other, as the plan prices it
	// when it places jobs (profile/interference_model.hpp); null: blind
	// to it.  omru-sim sets it from --colocation (the run's truth too).
	std::shared_ptr<const InterferenceModel> omru_interference;
	// omru: the reference bound (planner/reference.hpp): no pending job
	// planned to end later than Slurm's own policy would end it, beyond
	// the slack.  On by default, as select/omru's ReferenceBound=yes.
	planner::ReferenceBound omru_bound = bound_on();
	// omru: while jobs keep arriving, jobs that cannot give GPUs back
	// start at the count they asked (planner/arrival_guard.hpp), as
	// select/omru's ArrivalGuard=yes.
	bool omru_arrival_guard = true;

	static planner::ReferenceBound bound_on()
	{
		planner::ReferenceBound b;
		b.on = true;
		return b;
	}
};

class Policy {
    public:
	virtual ~Policy() = default;
	// Why this policy cannot run the workload ("" when it can): checked
	// before a simulation starts so the user gets a clear message instead
	// of a schedule that never ends.
	virtual std::string refuse(const Workload &w, const ProfileTable &p,
				   const Cluster &c) const;
	// Whether it places jobs within the site's limits (node lists, CPUs
	// and memory, per-user GPUs, licenses: SiteUsage).  A policy that does
	// not would have its starts refused and stall, so omru-sim refuses to
	// run it on a workload that has them.
	virtual bool models_site_limits() const { return false; }
	// Called at every arrival, completion and requested wake-up, after the
	// context reflects them.  Starts and stops jobs through the context.
	virtual void schedule(SchedulingContext &ctx) = 0;
};

struct PolicyInfo {
	const char *name;
	const char *summary; // one line for --help and --list-policies
	std::unique_ptr<Policy> (*make)(const PolicyOptions &);
};

// Every policy omru-sim offers, in the order --help lists them.
const std::vector<PolicyInfo> &policy_registry();
const PolicyInfo *find_policy(const std::string &name);

// ---- helpers shared by policies (policy/policy_helpers.cpp) ----

// Why `job` cannot run at exactly `gpus` GPUs on an empty cluster ("" when it
// can): more GPUs than the cluster has, or no profile row for the packed
// spread.
std::string why_not_runnable(const Workload &w, const ProfileTable &p,
			     const Cluster &c, int job, int gpus);
// The first job that cannot run at its requested size, as a message.
std::string refuse_unrunnable_rigid(const Workload &w, const ProfileTable &p,
				    const Cluster &c);
// The first job with no runnable count in [gpus_min, gpus_max].
std::string refuse_unrunnable_moldable(const Workload &w, const ProfileTable &p,
				       const Cluster &c);

// Packs `gpus` GPUs for `job` on the free GPUs (placement.hpp), within the
// site's limits (SiteUsage: nothing when they refuse it now), and checks the
// profiles have a row for the resulting spread.
std::optional<NodeCounts> place_job(const SchedulingContext &ctx, int job,
				    int gpus);
// place_job + start.  RET whether the job started.
bool start_packed(SchedulingContext &ctx, int job, int gpus);
// The free GPUs per node `job` may take as far as the site's limits go
// (SiteUsage::fit_on of each node's free GPUs): the free GPUs when the
// workload has no limits.
std::vector<int> usable_free(const SchedulingContext &ctx, int job);
// Seconds the job still needs at `gpus` GPUs packed, by the profiles' truth;
// nothing when there is no row.
std::optional<double> remaining_s(const SchedulingContext &ctx, int job,
				  int gpus);

} // namespace omru

#endif
