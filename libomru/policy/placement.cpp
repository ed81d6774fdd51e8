// placement.cpp - see placement.hpp.
//
// One node: the node with the fewest free GPUs that still holds the job.
// Several: the k nodes with the most free GPUs decide the fewest nodes k;
// the k-1 largest are taken whole and the remainder goes to the fullest node
// (fewest free GPUs) that holds it, so a remainder does not break up a node
// that a later job could have had whole.
#include "policy/placement.hpp"

#include <algorithm>

namespace omru {
namespace {

// The nodes a packing may use: all of them, or a list (ascending).  One
// template for both keeps the two results identical by construction and
// costs the unrestricted case nothing.
struct AllNodes {
	int n;
	int size() const { return n; }
	int operator[](int i) const { return i; }
};

struct NodeList {
	const std::vector<int> &nodes;
	int size() const { return static_cast<int>(nodes.size()); }
	int operator[](int i) const { return nodes[i]; }
};

template <class Nodes>
std::optional<NodeCounts> pack(const std::vector<int> &free, int gpus,
			       const Nodes &nodes)
{
	const int n = nodes.size();
	if (gpus < 1)
		return std::nullopt;
	int best = -1;
	for (int k = 0; k < n; k++) {
		int i = nodes[k];
		if (free[i] >= gpus && (best < 0 || free[i] < free[best]))
			best = i;
	}
	if (best >= 0)
		return NodeCounts{ { best, gpus } };

	// Nodes by free GPUs, most first, ties by index: a counting sort, as
	// planners call this in their inner loops.
	int most = 0;
	for (int k = 0; k < n; k++)
		most = std::max(most, free[nodes[k]]);
	std::vector<int> start(most + 2, 0);
	for (int k = 0; k < n; k++)
		if (int f = free[nodes[k]]; f > 0)
			start[most - f + 1]++;
	for (int v = 1; v <= most; v++)
		start[v] += start[v - 1];
	std::vector<int> order(start[most]);
	for (int k = 0; k < n; k++)
		if (int i = nodes[k]; free[i] > 0)
			order[start[most - free[i]]++] = i;
	NodeCounts taken;
	int left = gpus;
	size_t i = 0;
	for (; i < order.size() && left > 0 && free[order[i]] > 0; i++) {
		if (free[order[i]] >= left) {
			// Last piece: the fullest remaining node that holds it.
			int last = order[i];
			for (size_t j = i + 1; j < order.size(); j++) {
				int c = order[j];
				if (free[c] >= left &&
				    (free[c] < free[last] ||
				     (free[c] == free[last] && c < last)))
					last = c;
			}
			taken.emplace_back(last, left);
			left = 0;
			break;
		}
		taken.emplace_back(order[i], free[order[i]]);
		left -= free[order[i]];
	}
	if (left > 0)
		return std::nullopt;
	std::sort(taken.begin(), taken.end());
	return taken;
}

} // namespace

std::optional<NodeCounts> pack_gpus(const std::vector<int> &free, int gpus)
{
	return pack(free, gpus, AllNodes{ static_cast<int>(free.size()) });
}

std::optional<NodeCounts> pack_gpus(const std::vector<int> &free, int gpus,
				    const std::vector<int> &nodes)
{
	return pack(free, gpus, NodeList{ nodes });
}

} // namespace omru
