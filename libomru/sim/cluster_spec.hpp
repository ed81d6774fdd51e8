// cluster_spec.hpp - a simulated cluster with the GPU links of each node:
// what `omru-sim --cluster-file` gives the simulator (SimOptions::node_links).
// The file's text is read by model/cluster_file.hpp; here its gres.conf
// Links values become link matrices (policy/gpu_links.hpp).
#ifndef OMRU_SIM_CLUSTER_SPEC_HPP
#define OMRU_SIM_CLUSTER_SPEC_HPP

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "model/cluster_file.hpp"
#include "policy/gpu_links.hpp"

namespace omru {

struct ClusterSpec {
	Cluster cluster;
	// Empty when no node has links; else one per node: its link matrix
	// (cluster.gpus_of(node) GPUs), nullptr for none.  Nodes given the
	// same Links lines (one hostlist) share one matrix.
	std::vector<std::shared_ptr<const GpuLinks>> node_links;

	bool has_links() const { return !node_links.empty(); }
};

// The matrices of f's Links lines (GpuLinks::parse_gres_links).  `name` is
// the file's name for messages: a bad value throws InputError
// "FILE:LINE:COL: node NAME, GPU i, ..." at the line of GPU i.
ClusterSpec cluster_spec(const std::string &name, const ClusterFile &f);
// parse_cluster_file / read_cluster_file, then cluster_spec.
ClusterSpec parse_cluster_spec(const std::string &name, std::string_view text);
ClusterSpec read_cluster_spec(const std::string &path);

} // namespace omru

#endif
