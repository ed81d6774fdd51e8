// cluster.hpp - the simulated cluster: N identical nodes with G GPUs each
// (doc/sim-formats.md, `--cluster NxG`).  GPUs are numbered node * G + slot.
#ifndef OMRU_MODEL_CLUSTER_HPP
#define OMRU_MODEL_CLUSTER_HPP

#include <string>
#include <string_view>

#include "job_options.hpp" // omru::Parsed

namespace omru {

struct Cluster {
	int nodes = 0;
	int gpus_per_node = 0;

	int total_gpus() const { return nodes * gpus_per_node; }
	int node_of(int gpu) const { return gpu / gpus_per_node; }
	// Fewest nodes that can hold `gpus` GPUs.
	int min_nodes(int gpus) const
	{
		return (gpus + gpus_per_node - 1) / gpus_per_node;
	}
};

// Limits keep every product (nodes x GPUs, GPU ids) far from int overflow.
constexpr int kMaxClusterNodes = 65536;
constexpr int kMaxGpusPerNode = 64;

// "NxG", e.g. "16x4".
Parsed<Cluster> parse_cluster(std::string_view spec);
std::string format_cluster(const Cluster &c);

} // namespace omru

#endif
