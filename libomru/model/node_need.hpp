// node_need.hpp - what a job takes of a node besides GPUs, as cons_tres
// gives it (doc/slurm-facts.md, section 9).  Shared by the planner (the
// plan's model of Slurm's nodes) and the simulator (omru-sim's truth when a
// workload carries CPU and memory columns), so both answer "how many of
// this job's GPUs fit on that node" with one rule.
#ifndef OMRU_MODEL_NODE_NEED_HPP
#define OMRU_MODEL_NODE_NEED_HPP

#include <algorithm>
#include <tuple>

namespace omru {

// What a job takes of a node as a function of the GPUs it gets there:
// cons_tres gives it the larger of its tasks' CPUs and its GPUs'
// (--cpus-per-gpu), and memory per node (--mem), per GPU (--mem-per-gpu)
// or per CPU (--mem-per-cpu, DefMemPerCPU), one of them non-zero.
// all_mem: --mem=0, all of a node's memory (the node must have none in
// use); whole_node: --exclusive, the whole of an idle node.  All zero: the
// job takes GPUs only.
struct NodeNeed {
	double cpus_min = 0, cpus_per_gpu = 0;
	double mem_min = 0, mem_per_gpu = 0, mem_per_cpu = 0; // MB
	bool all_mem = false;
	bool whole_node = false;

	double cpus(int gpus) const { return std::max(cpus_min, cpus_per_gpu * gpus); }
	double mem(int gpus) const
	{
		return mem_min + mem_per_gpu * gpus + mem_per_cpu * cpus(gpus);
	}
	bool none() const
	{
		return cpus_min == 0 && cpus_per_gpu == 0 && mem_min == 0 &&
		       mem_per_gpu == 0 && mem_per_cpu == 0 && !all_mem && !whole_node;
	}
	auto key() const
	{
		return std::make_tuple(cpus_min, cpus_per_gpu, mem_min, mem_per_gpu,
				       mem_per_cpu, all_mem, whole_node);
	}

	// The most of `gpus` free GPUs this job can take on a node of
	// `node_gpus` GPUs, `node_cpus` CPUs and `node_mem` MB that has `cpus`
	// CPUs and `mem` MB free: 0 when none.
	int fit(int gpus, double cpus, double mem, int node_gpus, double node_cpus,
		double node_mem) const;
	// CPUs and memory it holds on such a node with `gpus` GPUs there.
	std::pair<double, double> use(int gpus, double node_cpus, double node_mem) const
	{
		if (whole_node)
			return { node_cpus, node_mem };
		return { cpus(gpus), all_mem ? node_mem : mem(gpus) };
	}
};

} // namespace omru

#endif
