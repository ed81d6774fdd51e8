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

std::optional<NodeCounts> pack_gpus(const std::vector<int> &free, int gpus)
{
	const int n = static_cast<int>(free.size());
	if (gpus < 1)
		return std::nullopt;
	int best = -1;
	for (int i = 0; i < n; i++)
		if (free[i] >= gpus && (best < 0 || free[i] < free[best]))
			best = i;
	if (best >= 0)
		return NodeCounts{ { best, gpus } };

	// Nodes by free GPUs, most first, ties by index: a counting sort, as
	// planners call this in their inner loops.
	int most = 0;
	for (int f : free)
		most = std::max(most, f);
	std::vector<int> start(most + 2, 0);
	for (int f : free)
		if (f > 0)
			start[most - f + 1]++;
	for (int v = 1; v <= most; v++)
		start[v] += start[v - 1];
	std::vector<int> order(start[most]);
	for (int i = 0; i < n; i++)
		if (free[i] > 0)
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

} // namespace omru
