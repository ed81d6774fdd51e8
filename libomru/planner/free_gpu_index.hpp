// free_gpu_index.hpp - the free GPUs of a simulated cluster, indexed so that
// placing a job costs O(GPUs per node + nodes it takes) instead of a scan of
// every node.  A plan simulation places every job of the queue, most of them
// several times over (each candidate plan, each growth it weighs), so on
// thousands of nodes the scan in pack_gpus was the planner's largest cost.
//
// For every node count it serves (all nodes, and each node set large enough
// to be worth it) the index keeps, per free count f, the set of nodes with
// exactly f free GPUs as a LevelBitset.  pack() answers exactly what
// pack_gpus answers on the same free counts (tests/unit/test_free_gpu_index
// checks them against each other), so a plan does not depend on which of
// the two placed it.
#ifndef OMRU_PLANNER_FREE_GPU_INDEX_HPP
#define OMRU_PLANNER_FREE_GPU_INDEX_HPP

#include <optional>
#include <vector>

#include "planner/level_bitset.hpp"
#include "policy/placement.hpp"

namespace omru {
namespace planner {

class FreeGpuIndex {
    public:
	// IN free: free GPUs per node, each 0..max_per_node.
	// IN sets: node sets (ascending, distinct node indices) that pack()
	// may be asked about by index; they must outlive the index.  Sets
	// smaller than kIndexedSetMin nodes are scanned instead (cheap, and
	// indexing every small --nodelist would make each change cost as
	// many updates as sets hold the node).
	FreeGpuIndex(const std::vector<int> &free, int max_per_node,
		     const std::vector<std::vector<int>> &sets);

	static constexpr size_t kIndexedSetMin = 64;

	const std::vector<int> &free() const { return free_; }
	int total() const { return domains_[0].total; }

	void take(const NodeCounts &where);
	void give_back(const NodeCounts &where);

	// RET pack_gpus(free(), gpus) for set -1, pack_gpus(free(), gpus,
	// sets[set]) otherwise.
	std::optional<NodeCounts> pack(int gpus, int set) const;
	// The same into `out` (its buffer reused); RET whether it fits.
	bool pack_into(int gpus, int set, NodeCounts &out) const;

	// OUT by_free: by_free[f] is how many nodes of node set `set` (-1:
	// every node) have f free GPUs, f = 0..max_per_node (its buffer
	// reused).  O(max_per_node), or O(nodes of the set) for a set too
	// small to be indexed.
	void nodes_by_free(int set, std::vector<int> &by_free) const;

    private:
	// The nodes of one node set (or all of them) by free count.
	struct Domain {
		const std::vector<int> *nodes = nullptr; // null: node = position
		std::vector<LevelBitset> by_free;        // [f], f = 1..max
		std::vector<int> count;                  // nodes per free count
		int total = 0;                           // free GPUs in the set
		int node(int pos) const { return nodes ? (*nodes)[pos] : pos; }
	};
	void add(int node, int delta);
	bool pack_in(const Domain &d, int gpus, NodeCounts &out) const;

	std::vector<int> free_;
	int max_per_node_;
	const std::vector<std::vector<int>> &sets_;
	std::vector<Domain> domains_;   // [0]: every node
	std::vector<int> domain_of_set_; // -1: scanned
	// Per node, (domain, position) in every indexed set it belongs to.
	std::vector<std::vector<std::pair<int, int>>> member_;
};

} // namespace planner
} // namespace omru

#endif
