// placement.hpp - where a job's GPUs go: on as few nodes as possible,
// preferring the fullest node that still fits (best fit), so large jobs keep
// finding whole nodes.  Every policy places through here unless it does
// better.
#ifndef OMRU_POLICY_PLACEMENT_HPP
#define OMRU_POLICY_PLACEMENT_HPP

#include <optional>
#include <utility>
#include <vector>

namespace omru {

// (node, GPUs taken on it), ascending by node.
using NodeCounts = std::vector<std::pair<int, int>>;

// IN free: free GPUs per node.  RET the packing of `gpus` GPUs, or nothing
// when fewer than `gpus` are free in total.  Ties go to the lower node index
// so the result is deterministic.
std::optional<NodeCounts> pack_gpus(const std::vector<int> &free, int gpus);

// The same on the nodes `nodes` only (ascending, distinct indices into
// free; a job confined to a Slurm partition or node list): exactly
// pack_gpus of `free` with every other node's count set to 0, without
// building that vector.
std::optional<NodeCounts> pack_gpus(const std::vector<int> &free, int gpus,
				    const std::vector<int> &nodes);

} // namespace omru

#endif
