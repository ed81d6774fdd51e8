// node_resources.cpp - what a job's CPUs and memory allow it on a node
// (plan.hpp, NodeNeed): cons_tres refuses a node whose free CPUs or memory
// cannot hold what the job asks there, so the plan places a job only where
// they can (doc/slurm-facts.md, section 9).
#include "planner/plan.hpp"

namespace omru {
namespace planner {
namespace {

// Resources are counted in whole CPUs and MB; sums of doubles may be off
// by rounding.
constexpr double kSlack = 1e-6;

} // namespace

int PlanInput::fit_on(const NodeNeed &need, int node, int gpus, double cpus,
		      double mem) const
{
	if (!has_resources() || need.none() || gpus <= 0)
		return std::max(0, gpus);
	if (need.whole_node) // an idle node, all of it
		return gpus == capacity(node) && cpus + kSlack >= node_cpus[node] &&
				       mem + kSlack >= node_mem[node]
			       ? gpus
			       : 0;
	if (need.all_mem && mem + kSlack < node_mem[node])
		return 0;
	// CPUs and memory grow with the GPUs: the most that fits.
	for (int g = gpus; g >= 1; g--)
		if (need.cpus(g) <= cpus + kSlack &&
		    (need.all_mem || need.mem(g) <= mem + kSlack))
			return g;
	return 0;
}

NodeUse PlanInput::use_of(const NodeNeed &need, int node, int gpus) const
{
	if (!has_resources() || need.none())
		return {};
	if (need.whole_node)
		return { node_cpus[node], node_mem[node] };
	return { need.cpus(gpus), need.all_mem ? node_mem[node] : need.mem(gpus) };
}

} // namespace planner
} // namespace omru
