// node_resources.cpp - what a job's CPUs and memory allow it on a node
// (plan.hpp, NodeNeed): cons_tres refuses a node whose free CPUs or memory
// cannot hold what the job asks there, so the plan places a job only where
// they can (doc/slurm-facts.md, section 9).
#include "planner/plan.hpp"

#include <limits>

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

bool PlanInput::resources_bind() const
{
	if (!has_resources())
		return false;
	// Each node's CPUs and memory per GPU: jobs that never take more per
	// GPU than the smallest share, on nodes with at least that much free
	// per free GPU, keep every node so; then free GPUs alone decide.
	double cpu_share = std::numeric_limits<double>::infinity(), mem_share = cpu_share;
	for (int n = 0; n < nodes; n++)
		if (capacity(n) > 0) {
			cpu_share = std::min(cpu_share, node_cpus[n] / capacity(n));
			mem_share = std::min(mem_share, node_mem[n] / capacity(n));
		}
	for (int n = 0; n < nodes; n++)
		if (free_cpus[n] + kSlack < cpu_share * free_per_node[n] ||
		    free_mem[n] + kSlack < mem_share * free_per_node[n])
			return true;
	for (const PlanJob &j : jobs) {
		const NodeNeed &d = j.need;
		if (d.none())
			continue;
		// For g >= 1, cpus(g) <= g * max(cpus_min, cpus_per_gpu) and
		// mem(g) <= g * mem(1) with mem(1) taken at that CPU count.
		double cpus1 = std::max(d.cpus_min, d.cpus_per_gpu);
		if (d.whole_node || d.all_mem || cpus1 > cpu_share + kSlack ||
		    d.mem_min + d.mem_per_gpu + d.mem_per_cpu * cpus1 > mem_share + kSlack)
			return true;
		for (size_t i = 0; i < j.holding.size() && i < j.where.size(); i++) {
			int g = j.where[i].second;
			if (j.holding[i].cpus > cpu_share * g + kSlack ||
			    j.holding[i].mem > mem_share * g + kSlack)
				return true;
		}
	}
	return false;
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
