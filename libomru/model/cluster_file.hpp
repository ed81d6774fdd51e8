// cluster_file.hpp - the cluster of `omru-sim --cluster-file FILE`: the
// NodeName lines of a slurm.conf, each node's GPUs from its Gres, and the
// GPU links of gres.conf lines (NodeName=... Name=gpu File=... Links=...)
// in the same file (doc/sim-formats.md, "Cluster file").  Nodes may differ
// in GPU count and links.
//
// Only the text is read here: the Links values become link matrices in
// sim/cluster_spec.hpp (the model does not depend on policy/).
#ifndef OMRU_MODEL_CLUSTER_FILE_HPP
#define OMRU_MODEL_CLUSTER_FILE_HPP

#include <string>
#include <string_view>
#include <vector>

#include "model/cluster.hpp"

namespace omru {

// One gres.conf `Links=` value of the file (one GPU's), and where it is.
struct LinksLine {
	std::string value;
	size_t line = 0, column = 0; // 1-based, of the Links= parameter
};

struct ClusterFile {
	Cluster cluster;
	// Each node's name, in node order (cluster.nodes of them).
	std::vector<std::string> node_names;
	// Every Links line of a GPU node, in file order.  A line of a
	// hostlist serves each node it names.
	std::vector<LinksLine> links_lines;
	// Empty when the file has no Links lines; else one entry per node:
	// the indices into links_lines of its GPUs' lines, slot 0 first
	// (cluster.gpus_of(node) of them), or none (no links on that node).
	std::vector<std::vector<int>> node_links;
};

// `name` is the file's name for messages.  Throws InputError (csv_table.hpp)
// naming the file, line and column of anything it cannot read, a node whose
// Links lines are not one per GPU among them.  The Links values themselves
// are read by cluster_spec (sim/cluster_spec.hpp).
ClusterFile parse_cluster_file(const std::string &name, std::string_view text);
ClusterFile read_cluster_file(const std::string &path);

// A Slurm hostlist ("n[1-4,7],login", "r[1-2]n[01-08]") as names, in
// order.  Throws std::invalid_argument saying what is wrong, or when it
// names more than `limit` hosts.
std::vector<std::string> expand_hostlist(std::string_view list, size_t limit);

} // namespace omru

#endif
