// free_gpu_index.cpp - see free_gpu_index.hpp.
//
// pack_gpus's rule, restated on buckets of nodes by free count:
//  - one node: the lowest free count >= the job that has a node, its
//    lowest-index node;
//  - several: nodes from the highest free count down, lowest index first
//    within a count, taken whole until the remainder fits in the next one;
//    the remainder goes to the node with the least free GPUs that holds it
//    (lowest index on ties) among the nodes not taken whole.  The nodes
//    taken whole all have at least as many free GPUs as the current one,
//    so that node is the first of a lower bucket that holds the remainder,
//    or else the current node itself (the first untaken one of its bucket).
#include "planner/free_gpu_index.hpp"

#include <algorithm>

namespace omru {
namespace planner {

FreeGpuIndex::FreeGpuIndex(const std::vector<int> &free, int max_per_node,
			   const std::vector<std::vector<int>> &sets)
	: free_(free.size(), 0), max_per_node_(max_per_node), sets_(sets),
	  domain_of_set_(sets.size(), -1), member_(free.size())
{
	auto make = [&](const std::vector<int> *nodes, int n) {
		Domain d;
		d.nodes = nodes;
		d.by_free.reserve(static_cast<size_t>(max_per_node) + 1);
		for (int f = 0; f <= max_per_node; f++)
			d.by_free.emplace_back(f == 0 ? 0 : n);
		d.count.assign(static_cast<size_t>(max_per_node) + 1, 0);
		d.count[0] = n;
		domains_.push_back(std::move(d));
	};
	make(nullptr, static_cast<int>(free.size()));
	for (size_t s = 0; s < sets.size(); s++) {
		if (sets[s].size() < kIndexedSetMin)
			continue;
		domain_of_set_[s] = static_cast<int>(domains_.size());
		make(&sets[s], static_cast<int>(sets[s].size()));
		for (size_t pos = 0; pos < sets[s].size(); pos++)
			member_[sets[s][pos]].emplace_back(domain_of_set_[s],
							   static_cast<int>(pos));
	}
	for (size_t n = 0; n < free.size(); n++)
		add(static_cast<int>(n), free[n]);
}

void FreeGpuIndex::add(int node, int delta)
{
	if (delta == 0)
		return;
	const int before = free_[node], after = before + delta;
	free_[node] = after;
	auto move = [&](Domain &d, int pos) {
		d.count[before]--;
		d.count[after]++;
		d.total += delta;
		if (before > 0)
			d.by_free[before].erase(pos);
		if (after > 0)
			d.by_free[after].insert(pos);
	};
	move(domains_[0], node);
	for (auto [dom, pos] : member_[node])
		move(domains_[dom], pos);
}

void FreeGpuIndex::take(const NodeCounts &where)
{
	for (auto [node, n] : where)
		add(node, -n);
}

void FreeGpuIndex::give_back(const NodeCounts &where)
{
	for (auto [node, n] : where)
		add(node, n);
}

std::optional<NodeCounts> FreeGpuIndex::pack(int gpus, int set) const
{
	NodeCounts out;
	if (!pack_into(gpus, set, out))
		return std::nullopt;
	return out;
}

bool FreeGpuIndex::pack_into(int gpus, int set, NodeCounts &out) const
{
	if (set < 0)
		return pack_in(domains_[0], gpus, out);
	if (domain_of_set_[set] < 0) {
		std::optional<NodeCounts> p = pack_gpus(free_, gpus, sets_[set]);
		if (p)
			out = std::move(*p);
		return p.has_value();
	}
	return pack_in(domains_[domain_of_set_[set]], gpus, out);
}

void FreeGpuIndex::nodes_by_free(int set, std::vector<int> &by_free) const
{
	const int dom = set < 0 ? 0 : domain_of_set_[set];
	if (dom >= 0) {
		by_free.assign(domains_[dom].count.begin(), domains_[dom].count.end());
		return;
	}
	by_free.assign(static_cast<size_t>(max_per_node_) + 1, 0);
	for (int node : sets_[set])
		by_free[free_[node]]++;
}

bool FreeGpuIndex::pack_in(const Domain &d, int gpus, NodeCounts &taken) const
{
	taken.clear();
	if (gpus < 1)
		return false;
	for (int f = gpus; f <= max_per_node_; f++)
		if (d.count[f] > 0) {
			taken.emplace_back(d.node(d.by_free[f].first()), gpus);
			return true;
		}
	if (d.total < gpus)
		return false;
	int left = gpus;
	for (int f = max_per_node_; f >= 1; f--) {
		for (int pos = d.by_free[f].first(); pos >= 0;
		     pos = d.by_free[f].next(pos + 1)) {
			if (f < left) {
				taken.emplace_back(d.node(pos), f);
				left -= f;
				continue;
			}
			int last = d.node(pos);
			for (int g = left; g < f; g++)
				if (d.count[g] > 0) {
					last = d.node(d.by_free[g].first());
					break;
				}
			taken.emplace_back(last, left);
			std::sort(taken.begin(), taken.end());
			return true;
		}
	}
	return false; // not reached: total >= gpus
}

} // namespace planner
} // namespace omru
