// cluster_spec.cpp - see cluster_spec.hpp.
#include "sim/cluster_spec.hpp"

#include <charconv>
#include <map>

#include "model/csv_table.hpp" // InputError

namespace omru {

namespace {

// The GPU (slot) a parse_gres_links error names ("GPU 2, entry 1: ..."),
// or 0 when it names none.
size_t gpu_of_error(const std::string &error)
{
	const std::string_view prefix = "GPU ";
	if (error.compare(0, prefix.size(), prefix) != 0)
		return 0;
	size_t gpu = 0;
	const char *first = error.data() + prefix.size();
	auto [end, ec] = std::from_chars(first, error.data() + error.size(), gpu);
	return ec == std::errc() && end != first ? gpu : 0;
}

} // namespace

ClusterSpec cluster_spec(const std::string &name, const ClusterFile &f)
{
	ClusterSpec spec;
	spec.cluster = f.cluster;
	if (f.node_links.empty())
		return spec;
	spec.node_links.resize(f.node_links.size());
	// Nodes of one hostlist have the same lines: one matrix for them.
	std::map<std::vector<int>, std::shared_ptr<const GpuLinks>> made;
	for (size_t n = 0; n < f.node_links.size(); n++) {
		const std::vector<int> &lines = f.node_links[n];
		if (lines.empty())
			continue;
		auto it = made.find(lines);
		if (it == made.end()) {
			std::vector<std::string> values;
			for (int i : lines)
				values.push_back(f.links_lines[i].value);
			Parsed<GpuLinks> g = GpuLinks::parse_gres_links(values);
			if (!g.ok()) {
				size_t gpu = gpu_of_error(g.error());
				const LinksLine &at =
					f.links_lines[lines[gpu < lines.size() ? gpu : 0]];
				throw InputError(name, at.line, at.column,
						 "node " + f.node_names[n] + ", " + g.error());
			}
			it = made.emplace(lines, std::make_shared<const GpuLinks>(g.value()))
				     .first;
		}
		spec.node_links[n] = it->second;
	}
	return spec;
}

ClusterSpec parse_cluster_spec(const std::string &name, std::string_view text)
{
	return cluster_spec(name, parse_cluster_file(name, text));
}

ClusterSpec read_cluster_spec(const std::string &path)
{
	return cluster_spec(path, read_cluster_file(path));
}

} // namespace omru
