// gantt_slots.cpp - see gantt_slots.hpp.
#include "gantt_slots.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/validator.hpp" // time_tolerance_s

namespace omru {

std::vector<Placed> place_segments(const Cluster &c, const Schedule &s)
{
	// Lanes: gpus_per_node (the largest node's) per node, so a smaller
	// node leaves its last lanes empty.
	const int g = c.gpus_per_node;
	const int total = std::max(0, c.nodes * g);
	std::vector<size_t> order;
	for (size_t i = 0; i < s.size(); i++)
		if (std::isfinite(s[i].start_s) && std::isfinite(s[i].end_s))
			order.push_back(i);
	std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
		return s[a].start_s < s[b].start_s;
	});

	std::vector<double> busy_until(total,
				       -std::numeric_limits<double>::infinity());
	std::vector<Placed> out;
	out.reserve(order.size());
	for (size_t i : order) {
		const Segment &seg = s[i];
		const double free_at = seg.start_s + time_tolerance_s(seg.start_s);
		const double until = std::max(seg.end_s, free_at + 1e-9);
		Placed p;
		p.seg = i;
		auto take = [&](int row) {
			if (row >= 0 && row < total && busy_until[row] <= free_at) {
				busy_until[row] = until;
				p.rows.push_back(row);
				return true;
			}
			return false;
		};
		if (!seg.gpu_ids.empty()) {
			for (int id : seg.gpu_ids) {
				bool ok = id >= 0 && id < c.total_gpus();
				int n = ok ? c.node_of(id) : 0;
				if (!ok || !take(n * g + id - c.first_gpu(n)))
					p.overflow++;
			}
		} else {
			std::vector<int> nodes = seg.nodes;
			std::sort(nodes.begin(), nodes.end());
			for (size_t k = 0; k < nodes.size();) {
				const int n = nodes[k];
				size_t want = 0;
				while (k < nodes.size() && nodes[k] == n)
					want++, k++;
				if (n < 0 || n >= c.nodes) {
					p.overflow += want;
					continue;
				}
				for (int slot = 0; slot < c.gpus_of(n) && want > 0; slot++)
					if (take(n * g + slot))
						want--;
				p.overflow += want;
			}
		}
		std::sort(p.rows.begin(), p.rows.end());
		out.push_back(std::move(p));
	}
	return out;
}

} // namespace omru
