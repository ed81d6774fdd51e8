// cluster_file.hpp - the cluster of `omru-sim --cluster-file FILE`: the
// NodeName lines of a slurm.conf, each node's GPUs from its Gres
// (doc/sim-formats.md, "Cluster file").  Nodes may differ in GPU count.
#ifndef OMRU_MODEL_CLUSTER_FILE_HPP
#define OMRU_MODEL_CLUSTER_FILE_HPP

#include <string>
#include <string_view>
#include <vector>

#include "model/cluster.hpp"

namespace omru {

// `name` is the file's name for messages.  Throws InputError (csv_table.hpp)
// naming the file, line and column of anything it cannot read.
Cluster parse_cluster_file(const std::string &name, std::string_view text);
Cluster read_cluster_file(const std::string &path);

// A Slurm hostlist ("n[1-4,7],login", "r[1-2]n[01-08]") as names, in
// order.  Throws std::invalid_argument saying what is wrong, or when it
// names more than `limit` hosts.
std::vector<std::string> expand_hostlist(std::string_view list, size_t limit);

} // namespace omru

#endif
