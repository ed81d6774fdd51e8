// registry.cpp - every policy by name; the product's own planner first.
#include "policy/registry.hpp"

namespace omru {

const std::vector<PolicyInfo> &policy_registry()
{
	static const std::vector<PolicyInfo> all = {
		{ "omru", "moldable, the slurm-omru planner: budgeted allotment, list scheduling, GPU reuse (doc/omru-planner.md)", make_omru },
		{ "fifo", "rigid, strict submission order, no backfill", make_fifo },
		{ "backfill", "rigid, Slurm's sched/backfill in priority order on walltime estimates (the reference)", make_backfill },
		{ "sjf", "rigid, shortest job first, non-preemptive", make_sjf },
		{ "tiresias", "rigid, discretised 2D least-attained-service with preemption (Tiresias, NSDI'19)", make_tiresias },
		{ "optimus", "moldable, GPUs to the largest marginal gain in completion time (Optimus, EuroSys'18)", make_optimus },
		{ "seq", "one job at a time on the whole cluster (or its largest profiled count)", make_seq },
		{ "omru-ga", "offline batches: OMRU paper's genetic algorithm with greedy allotment and GPU reuse", make_omru_ga },
		{ "omru-oblivious", "omru blind to co-location: places as if jobs never slowed each other down (the baseline of --colocation)", make_omru_oblivious },
	};
	return all;
}

const PolicyInfo *find_policy(const std::string &name)
{
	for (const PolicyInfo &p : policy_registry())
		if (name == p.name)
			return &p;
	return nullptr;
}

} // namespace omru
