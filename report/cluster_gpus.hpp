// cluster_gpus.hpp - the cluster's GPUs as `sinfo -h -o '%N %G'` reports
// them: one "NODES GRES" line per node (or hostlist), a node repeated once
// per partition it is in.
#ifndef OMRU_REPORT_CLUSTER_GPUS_HPP
#define OMRU_REPORT_CLUSTER_GPUS_HPP

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace omru {
namespace report {

// argv of the sinfo run.
std::vector<std::string> sinfo_argv();

// GPUs in one Gres value: "gpu:4", "gpu:tesla:4", "gpu:4(S:0-1)",
// "gpu:a100:4(S:0,1),gpu:t4:2", "gpu" (one), "(null)" or other gres (0).
// -1 when a gpu count is not a whole number in 0..65536.
int gres_gpus(std::string_view gres);

// GPUs of each node named in sinfo's output; a node seen twice counts
// once, with its larger value.  Lines that cannot be read go to
// `warnings` and are skipped.
std::map<std::string, int> sinfo_node_gpus(std::string_view text,
					   std::vector<std::string> &warnings);

} // namespace report
} // namespace omru

#endif
