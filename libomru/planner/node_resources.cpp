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
	if (!has_resources())
		return std::max(0, gpus);
	return need.fit(gpus, cpus, mem, capacity(node), node_cpus[node], node_mem[node]);
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
	auto [cpus, mem] = need.use(gpus, node_cpus[node], node_mem[node]);
	return { cpus, mem };
}

} // namespace planner
} // namespace omru
