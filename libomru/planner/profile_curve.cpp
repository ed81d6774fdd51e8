// profile_curve.cpp - see profile_curve.hpp.
#include "planner/profile_curve.hpp"

#include <algorithm>

#include "policy/usable_counts.hpp"

namespace omru {
namespace planner {

SpeedCurve profile_curve(const ProfileTable &p, const Cluster &c, int model,
			 int gpus_min, int gpus_max)
{
	Job j;
	j.model = model;
	j.gpus_min = gpus_min;
	j.gpus_max = gpus_max;
	SpeedCurve cv;
	for (int g : usable_counts(p, c, j).gpus) {
		std::vector<double> by_nodes(std::min(g, c.nodes) + 1, kNoRow);
		const int kmin = c.min_nodes(g);
		for (int k = kmin; k < static_cast<int>(by_nodes.size()); k++)
			if (auto e = p.epoch_s(model, g, k))
				by_nodes[k] = *e;
		// Nodes that differ: the planner prices a count packed on nodes
		// of the largest size (SpeedCurve::packed), fewer than kmin when
		// the cluster has few large nodes.  No placement can have such a
		// spread, so its slot carries the true packed time instead.
		for (int k = (g + c.gpus_per_node - 1) / c.gpus_per_node; k < kmin; k++)
			by_nodes[k] = by_nodes[kmin];
		cv.gpus.push_back(g);
		cv.epoch_s.push_back(std::move(by_nodes));
	}
	return cv;
}

} // namespace planner
} // namespace omru
