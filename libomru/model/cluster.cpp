// cluster.cpp - see cluster.hpp.
#include "model/cluster.hpp"

#include <charconv>
#include <functional>
#include <stdexcept>

namespace omru {

static bool parse_int(std::string_view s, int max, int &out)
{
	auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
	return !s.empty() && ec == std::errc() && end == s.data() + s.size() &&
	       out >= 1 && out <= max;
}

Cluster make_cluster(const std::vector<int> &node_gpus)
{
	if (node_gpus.empty() || node_gpus.size() > static_cast<size_t>(kMaxClusterNodes))
		throw std::invalid_argument("a cluster needs 1.." +
					    std::to_string(kMaxClusterNodes) + " nodes");
	for (int g : node_gpus)
		if (g < 1 || g > kMaxGpusPerNode)
			throw std::invalid_argument(
				"a node has " + std::to_string(g) + " GPUs (1.." +
				std::to_string(kMaxGpusPerNode) + " allowed)");
	Cluster c;
	c.nodes = static_cast<int>(node_gpus.size());
	c.gpus_per_node = *std::max_element(node_gpus.begin(), node_gpus.end());
	if (std::all_of(node_gpus.begin(), node_gpus.end(),
			[&](int g) { return g == c.gpus_per_node; }))
		return c;
	c.node_gpus = node_gpus;
	c.first_gpus.assign(1, 0);
	for (int g : node_gpus)
		c.first_gpus.push_back(c.first_gpus.back() + g);
	std::vector<int> largest = node_gpus;
	std::sort(largest.begin(), largest.end(), std::greater<int>());
	c.largest_gpus.assign(1, 0);
	for (int g : largest)
		c.largest_gpus.push_back(c.largest_gpus.back() + g);
	return c;
}

Parsed<Cluster> parse_cluster(std::string_view spec)
{
	const std::string allowed =
		" (expected NxG: N nodes of G GPUs, 1 <= N <= " +
		std::to_string(kMaxClusterNodes) + ", 1 <= G <= " +
		std::to_string(kMaxGpusPerNode) +
		", e.g. 16x4; nodes that differ as runs joined by '+', e.g. 2x8+4x4)";
	auto fail = [&] {
		return Parsed<Cluster>::fail("--cluster '" + std::string(spec) + "'" +
					     allowed);
	};
	std::vector<int> gpus;
	for (size_t pos = 0;;) {
		size_t plus = spec.find('+', pos);
		std::string_view run = spec.substr(pos, plus == std::string_view::npos
								? std::string_view::npos
								: plus - pos);
		size_t x = run.find('x');
		int n = 0, g = 0;
		if (x == std::string_view::npos ||
		    !parse_int(run.substr(0, x), kMaxClusterNodes, n) ||
		    !parse_int(run.substr(x + 1), kMaxGpusPerNode, g) ||
		    gpus.size() + n > static_cast<size_t>(kMaxClusterNodes))
			return fail();
		gpus.insert(gpus.end(), n, g);
		if (plus == std::string_view::npos)
			break;
		pos = plus + 1;
	}
	return make_cluster(gpus);
}

std::string format_cluster(const Cluster &c)
{
	if (c.uniform())
		return std::to_string(c.nodes) + "x" + std::to_string(c.gpus_per_node);
	std::string out;
	for (int n = 0; n < c.nodes;) {
		int k = n;
		while (k < c.nodes && c.node_gpus[k] == c.node_gpus[n])
			k++;
		out += (out.empty() ? "" : "+") + std::to_string(k - n) + "x" +
		       std::to_string(c.node_gpus[n]);
		n = k;
	}
	return out;
}

} // namespace omru
