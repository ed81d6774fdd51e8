// cluster.hpp - the simulated cluster: N nodes with their GPUs
// (doc/sim-formats.md: `--cluster NxG`, `--cluster N1xG1+N2xG2...`,
// `--cluster-file`).  GPUs are numbered node by node: node n has the ids
// first_gpu(n) .. first_gpu(n) + gpus_of(n) - 1, which is node * G + slot
// when every node has G GPUs.
#ifndef OMRU_MODEL_CLUSTER_HPP
#define OMRU_MODEL_CLUSTER_HPP

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "job_options.hpp" // omru::Parsed

namespace omru {

struct Cluster {
	Cluster() = default;
	// N identical nodes of G GPUs.
	Cluster(int n, int g) : nodes(n), gpus_per_node(g) {}

	int nodes = 0;
	// The largest node's GPUs; every node's when node_gpus is empty.
	int gpus_per_node = 0;
	// GPUs of each node when the nodes differ, empty when they do not
	// (identical nodes keep the plain N x G arithmetic).  Set it through
	// make_cluster, which also fills the two tables below.
	std::vector<int> node_gpus;
	// With node_gpus only: node n's first GPU id (nodes + 1 entries, the
	// last is the total), and the GPUs of the k largest nodes together
	// (k = 0..nodes).
	std::vector<int> first_gpus;
	std::vector<int> largest_gpus;
	// CPUs and memory (MB) of every node, for workloads whose jobs take
	// them (Job::need); 0: not given.
	double node_cpus = 0, node_mem_mb = 0;

	bool uniform() const { return node_gpus.empty(); }
	int gpus_of(int node) const
	{
		return uniform() ? gpus_per_node : node_gpus[node];
	}
	int first_gpu(int node) const
	{
		return uniform() ? node * gpus_per_node : first_gpus[node];
	}
	int total_gpus() const
	{
		return uniform() ? nodes * gpus_per_node : first_gpus.back();
	}
	int node_of(int gpu) const
	{
		if (uniform())
			return gpu / gpus_per_node;
		return static_cast<int>(std::upper_bound(first_gpus.begin(),
							 first_gpus.end(), gpu) -
					first_gpus.begin()) - 1;
	}
	// Fewest nodes that can hold `gpus` GPUs: the largest nodes first.
	// Beyond the whole cluster, as if it had more nodes of the largest
	// size (so the answer exceeds `nodes`, as N x G arithmetic gives).
	int min_nodes(int gpus) const
	{
		if (uniform() || gpus > total_gpus()) {
			int beyond = uniform() ? 0 : total_gpus();
			int base = uniform() ? 0 : nodes;
			return base + (gpus - beyond + gpus_per_node - 1) / gpus_per_node;
		}
		return static_cast<int>(std::lower_bound(largest_gpus.begin(),
							 largest_gpus.end(), gpus) -
					largest_gpus.begin());
	}
};

// Limits keep every product (nodes x GPUs, GPU ids) far from int overflow.
constexpr int kMaxClusterNodes = 65536;
constexpr int kMaxGpusPerNode = 64;

// The cluster of nodes with these GPU counts, in this order (node 0 first);
// identical counts give the plain N x G cluster (node_gpus empty).
// Throws std::invalid_argument unless 1 <= nodes <= kMaxClusterNodes and
// every count is in 1..kMaxGpusPerNode.
Cluster make_cluster(const std::vector<int> &node_gpus);

// "NxG", e.g. "16x4", or runs of nodes joined by '+', e.g. "2x8+4x4" (two
// 8-GPU nodes, then four 4-GPU nodes).
Parsed<Cluster> parse_cluster(std::string_view spec);
// The spec parse_cluster reads back: "NxG" for identical nodes, else the
// runs of equal nodes in node order.
std::string format_cluster(const Cluster &c);

} // namespace omru

#endif
