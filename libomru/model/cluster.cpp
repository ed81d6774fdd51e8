// cluster.cpp - see cluster.hpp.
#include "model/cluster.hpp"

#include <charconv>

namespace omru {

static bool parse_int(std::string_view s, int max, int &out)
{
	auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
	return !s.empty() && ec == std::errc() && end == s.data() + s.size() &&
	       out >= 1 && out <= max;
}

Parsed<Cluster> parse_cluster(std::string_view spec)
{
	const std::string allowed =
		" (expected NxG: N nodes of G GPUs, 1 <= N <= " +
		std::to_string(kMaxClusterNodes) + ", 1 <= G <= " +
		std::to_string(kMaxGpusPerNode) + ", e.g. 16x4)";
	size_t x = spec.find('x');
	Cluster c;
	if (x == std::string_view::npos ||
	    !parse_int(spec.substr(0, x), kMaxClusterNodes, c.nodes) ||
	    !parse_int(spec.substr(x + 1), kMaxGpusPerNode, c.gpus_per_node))
		return Parsed<Cluster>::fail("--cluster '" + std::string(spec) +
					     "'" + allowed);
	return c;
}

std::string format_cluster(const Cluster &c)
{
	return std::to_string(c.nodes) + "x" + std::to_string(c.gpus_per_node);
}

} // namespace omru
