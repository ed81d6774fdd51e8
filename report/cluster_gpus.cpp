// cluster_gpus.cpp - see cluster_gpus.hpp.
#include "cluster_gpus.hpp"

#include <algorithm>
#include <charconv>
#include <stdexcept>

#include "model/cluster.hpp"      // kMaxClusterNodes
#include "model/cluster_file.hpp" // expand_hostlist

namespace omru {
namespace report {

std::vector<std::string> sinfo_argv()
{
	return { "sinfo", "-h", "-o", "%N %G" };
}

int gres_gpus(std::string_view gres)
{
	int total = 0, depth = 0;
	size_t start = 0;
	for (size_t i = 0; i <= gres.size(); i++) {
		const char c = i < gres.size() ? gres[i] : ',';
		if (c == '(')
			depth++;
		else if (c == ')')
			depth = std::max(0, depth - 1);
		if (c != ',' || depth > 0)
			continue;
		// One item, without its "(S:...)" socket part.
		std::string_view item = gres.substr(start, i - start);
		start = i + 1;
		item = item.substr(0, item.find('('));
		size_t colon = item.find(':');
		if (item.substr(0, colon) != "gpu")
			continue;
		if (colon == std::string_view::npos) {
			total += 1; // "gpu" alone: one
			continue;
		}
		// gpu:COUNT, gpu:TYPE:COUNT, or gpu:TYPE (one).
		const size_t last = item.rfind(':');
		std::string_view count = item.substr(last + 1);
		const bool digits = !count.empty() &&
			count.find_first_not_of("0123456789") == std::string_view::npos;
		// "1K": a count with Slurm's K/M/G suffix, far beyond a node.
		const bool suffixed = count.size() > 1 &&
			count.find_first_not_of("0123456789") == count.size() - 1 &&
			std::string_view("KMG").find(count.back()) != std::string_view::npos;
		int n = 0;
		if (!digits && !suffixed && last == colon && !count.empty()) {
			total += 1;
			continue;
		}
		auto r = std::from_chars(count.data(), count.data() + count.size(), n);
		if (!digits || r.ec != std::errc() || n > 65536)
			return -1;
		total += n;
	}
	return total;
}

std::map<std::string, int> sinfo_node_gpus(std::string_view text,
					   std::vector<std::string> &warnings)
{
	std::map<std::string, int> out;
	size_t line_no = 0;
	for (size_t pos = 0; pos < text.size();) {
		size_t nl = text.find('\n', pos);
		std::string_view line = text.substr(
			pos, nl == std::string_view::npos ? std::string_view::npos
							  : nl - pos);
		pos = nl == std::string_view::npos ? text.size() : nl + 1;
		line_no++;
		const size_t b = line.find_first_not_of(" \t\r");
		if (b == std::string_view::npos)
			continue;
		line = line.substr(b, line.find_last_not_of(" \t\r") - b + 1);
		const std::string where = "sinfo:" + std::to_string(line_no) + ": ";
		size_t sp = line.find_first_of(" \t");
		if (sp == std::string_view::npos) {
			warnings.push_back(where + "'" + std::string(line) +
					   "' is not 'NODE GRES'; skipped");
			continue;
		}
		std::string_view gres = line.substr(line.find_first_not_of(" \t", sp));
		const int gpus = gres_gpus(gres);
		if (gpus < 0) {
			warnings.push_back(where + "Gres '" + std::string(gres) +
					   "': a gpu count is not a whole number; skipped");
			continue;
		}
		std::vector<std::string> nodes;
		try {
			nodes = expand_hostlist(line.substr(0, sp), kMaxClusterNodes);
		} catch (const std::invalid_argument &e) {
			warnings.push_back(where + e.what() + "; skipped");
			continue;
		}
		for (std::string &n : nodes) {
			int &g = out[n];
			g = std::max(g, gpus);
		}
	}
	return out;
}

} // namespace report
} // namespace omru
