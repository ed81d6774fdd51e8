// job_topology.hpp - the GPUs of one job and the links between them, as the
// pipeline partitioner needs them: a bandwidth (bytes/s) for every pair and
// one per-message latency.
//
// Inside a node the links come from gres.conf's `Links=` (policy/gpu_links.hpp):
// N > 0 direct links give N x the NVLink speed, 0 (PCIe or worse) the PCIe
// speed; GPUs on different nodes talk at the network speed.  The GPUs are
// kept in *chain order*: node by node, and inside a node a walk that always
// steps to the unvisited GPU with the strongest link to the current one
// (lowest slot on ties), so NVLink partners sit next to each other.  The
// partitioner gives every stage a run of consecutive GPUs of this chain.
#ifndef OMRU_PIPELINE_JOB_TOPOLOGY_HPP
#define OMRU_PIPELINE_JOB_TOPOLOGY_HPP

#include <string>
#include <vector>

#include "job_options.hpp" // Parsed
#include "policy/gpu_links.hpp"

namespace omru {
namespace pipeline {

// Effective one-direction speeds; defaults are V100-class hardware (NVLink 2
// at 25 GB/s per link, PCIe 3 x16 at 12 GB/s, 100 Gb/s network) and a
// latency per message typical of NCCL.  Gloo on CPU processes is slower:
// omru-partition's man page says how to measure yours.
struct LinkSpeeds {
	double nvlink_gbps = 25;
	double pcie_gbps = 12;
	double network_gbps = 12.5;
	double latency_s = 20e-6;
};

// RET "" when every speed is a finite number > 0 (latency >= 0), else why not.
std::string check_link_speeds(const LinkSpeeds &s);

constexpr int kMaxJobGpus = 4096; // what uniform() accepts

struct JobGpu {
	int node = 0; // index among the job's nodes
	int slot = 0; // GPU index on its node (gres.conf order)
};

class JobTopology {
    public:
	// IN links: one node's Links matrix (every node alike), or nullptr
	//    when unknown (then every pair in a node is PCIe).
	// IN slots_per_node: for each node of the job, its GPUs' slots.
	// RET the topology in chain order, or why the input is unusable (a
	//    slot outside the matrix or twice, no GPU, bad speeds).
	static Parsed<JobTopology> build(const GpuLinks *links,
					 const std::vector<std::vector<int>> &slots_per_node,
					 const LinkSpeeds &speeds);
	// A job started on idle nodes, per_node[n] processes on node n: each
	//    node's are on the GPUs select/omru gives them there (select_gpus
	//    with every GPU free: the best-linked; the first ones without
	//    links), so the planner's predictions and omru-train --parallel
	//    auto agree with the placement.  RET as build(), or why not (a
	//    node with fewer GPUs in links than its processes).
	static Parsed<JobTopology> on_idle_nodes(const GpuLinks *links,
						 const std::vector<int> &per_node,
						 const LinkSpeeds &speeds);
	// N nodes with slots 0..G-1 each.
	static Parsed<JobTopology> uniform(const GpuLinks *links, int nodes,
					   int gpus_per_node, const LinkSpeeds &speeds);

	int size() const { return static_cast<int>(gpus_.size()); }
	// The GPU at chain position i.
	const JobGpu &gpu(int i) const { return gpus_[static_cast<size_t>(i)]; }
	// Bytes/s between chain positions a != b (symmetric).
	double bandwidth(int a, int b) const
	{
		return bw_[static_cast<size_t>(a) * gpus_.size() + static_cast<size_t>(b)];
	}
	double latency_s() const { return latency_s_; }

    private:
	std::vector<JobGpu> gpus_;
	std::vector<double> bw_;
	double latency_s_ = 0;
};

} // namespace pipeline
} // namespace omru

#endif
