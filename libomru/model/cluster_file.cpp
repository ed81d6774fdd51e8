// cluster_file.cpp - see cluster_file.hpp.
//
// Only what the simulated cluster needs is read: node names (for order and
// duplicates), GPU counts, and the Links of gres.conf GPU lines.  Everything
// else a slurm.conf or gres.conf holds is skipped without a look, so real
// ones can be given as they are (one after the other in one file).
#include "model/cluster_file.hpp"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <unordered_map>
#include <utility>

#include "model/csv_table.hpp" // InputError

namespace omru {
namespace {

bool iequals(std::string_view a, std::string_view b)
{
	if (a.size() != b.size())
		return false;
	for (size_t i = 0; i < a.size(); i++)
		if (std::tolower(static_cast<unsigned char>(a[i])) !=
		    std::tolower(static_cast<unsigned char>(b[i])))
			return false;
	return true;
}

bool all_digits(std::string_view s)
{
	if (s.empty() || s.size() > 9)
		return false;
	for (char c : s)
		if (c < '0' || c > '9')
			return false;
	return true;
}

long to_long(std::string_view digits)
{
	long v = 0;
	for (char c : digits)
		v = v * 10 + (c - '0');
	return v;
}

// "1-4,7" inside one pair of brackets: the numbers, zero-padded to the
// width of each range's first bound as Slurm does (n[01-10]: n01..n10).
std::vector<std::string> expand_brackets(std::string_view inside, size_t limit)
{
	std::vector<std::string> out;
	size_t pos = 0;
	for (;;) {
		size_t comma = inside.find(',', pos);
		std::string_view item = inside.substr(
			pos, comma == std::string_view::npos ? std::string_view::npos
							     : comma - pos);
		size_t dash = item.find('-');
		std::string_view lo = item.substr(0, dash);
		std::string_view hi = dash == std::string_view::npos
					      ? lo
					      : item.substr(dash + 1);
		if (!all_digits(lo) || !all_digits(hi) || to_long(lo) > to_long(hi))
			throw std::invalid_argument(
				"'[" + std::string(inside) +
				"]': expected numbers and ranges LOW-HIGH (LOW <= HIGH), "
				"comma-separated");
		long a = to_long(lo), b = to_long(hi);
		if (static_cast<size_t>(b - a) >= limit - out.size())
			throw std::invalid_argument("names more than " +
						    std::to_string(limit) + " hosts");
		for (long v = a; v <= b; v++) {
			std::string s = std::to_string(v);
			if (s.size() < lo.size())
				s.insert(0, lo.size() - s.size(), '0');
			out.push_back(std::move(s));
		}
		if (comma == std::string_view::npos)
			return out;
		pos = comma + 1;
	}
}

// One host name with bracket groups, e.g. "r[1-2]n[01-08]": the first
// group varies slowest.
void expand_name(std::string_view name, size_t limit, std::vector<std::string> &out)
{
	std::vector<std::string> names{ "" };
	size_t pos = 0;
	while (pos < name.size()) {
		size_t open = name.find('[', pos);
		std::string_view text = name.substr(pos, open == std::string_view::npos
								 ? std::string_view::npos
								 : open - pos);
		if (text.find(']') != std::string_view::npos)
			throw std::invalid_argument("'" + std::string(name) +
						    "': ']' without '['");
		for (std::string &n : names)
			n += text;
		if (open == std::string_view::npos)
			break;
		size_t close = name.find(']', open);
		if (close == std::string_view::npos)
			throw std::invalid_argument("'" + std::string(name) +
						    "': '[' without ']'");
		std::vector<std::string> numbers = expand_brackets(
			name.substr(open + 1, close - open - 1), limit);
		if (numbers.size() > (limit - out.size()) / names.size())
			throw std::invalid_argument("names more than " +
						    std::to_string(limit) + " hosts");
		std::vector<std::string> next;
		next.reserve(names.size() * numbers.size());
		for (const std::string &n : names)
			for (const std::string &v : numbers)
				next.push_back(n + v);
		names = std::move(next);
		pos = close + 1;
	}
	if (out.size() + names.size() > limit)
		throw std::invalid_argument("names more than " + std::to_string(limit) +
					    " hosts");
	out.insert(out.end(), names.begin(), names.end());
}

// GPUs in a Gres value: "gpu:4", "gpu:a100:4", "gpu" (one),
// "gpu:a100:4,gpu:v100:2" (six), "gpu:4(S:0-1),mps:100" (four).
int gres_gpus(std::string_view value)
{
	long total = 0;
	size_t pos = 0;
	while (pos <= value.size()) {
		size_t comma = value.find(',', pos);
		std::string_view item = value.substr(
			pos, comma == std::string_view::npos ? std::string_view::npos
							     : comma - pos);
		if (size_t paren = item.find('('); paren != std::string_view::npos)
			item = item.substr(0, paren); // socket binding
		std::vector<std::string_view> f;
		for (size_t p = 0;;) {
			size_t colon = item.find(':', p);
			f.push_back(item.substr(p, colon == std::string_view::npos
							   ? std::string_view::npos
							   : colon - p));
			if (colon == std::string_view::npos)
				break;
			p = colon + 1;
		}
		if (f[0] == "gpu") {
			if (f.size() == 1 || (f.size() == 2 && !all_digits(f[1])))
				total += 1; // no count: one
			else if (f.size() <= 3 && all_digits(f.back()))
				total += to_long(f.back());
			else
				throw std::invalid_argument(
					"'" + std::string(item) +
					"': expected gpu[:TYPE]:COUNT");
			if (total > kMaxGpusPerNode)
				throw std::invalid_argument(
					"more than " + std::to_string(kMaxGpusPerNode) +
					" GPUs on a node");
		}
		if (comma == std::string_view::npos)
			break;
		pos = comma + 1;
	}
	return static_cast<int>(total);
}

struct Token {
	std::string_view key, value;
	size_t column; // 1-based
};

// Keys that make a NodeName line a gres.conf line rather than slurm.conf's.
bool gres_conf_key(std::string_view key)
{
	for (const char *k : { "Name", "File", "Links", "MultipleFiles", "AutoDetect" })
		if (iequals(key, k))
			return true;
	return false;
}

const Token *find_key(const std::vector<Token> &tokens, const char *key)
{
	for (const Token &t : tokens)
		if (iequals(t.key, key))
			return &t;
	return nullptr;
}

// A gres.conf line with Links=: checks that it is one GPU's (Name=gpu, File=
// naming one device, as Slurm requires for Links) and RET false for another
// GRES's line, which says nothing about GPUs.
bool gpu_links_line(const std::string &name, size_t line_no,
		    const std::vector<Token> &tokens, const Token &links)
{
	const Token *gres = find_key(tokens, "Name");
	if (!gres)
		throw InputError(name, line_no, links.column,
				 "Links= without Name=gpu: expected NodeName=... "
				 "Name=gpu File=/dev/nvidiaN Links=...");
	if (gres->value != "gpu")
		return false;
	const Token *file = find_key(tokens, "File");
	if (!file)
		throw InputError(name, line_no, links.column,
				 "Links= without File=: a Links line is one GPU's, "
				 "named by its device (File=/dev/nvidiaN), as Slurm "
				 "requires");
	size_t devices = 0;
	try {
		devices = expand_hostlist(file->value, 1024).size();
	} catch (const std::invalid_argument &e) {
		throw InputError(name, line_no, file->column,
				 std::string("File: ") + e.what());
	}
	if (devices != 1)
		throw InputError(name, line_no, file->column,
				 "File: '" + std::string(file->value) + "' names " +
					 std::to_string(devices) +
					 " devices; a line with Links= is for one GPU "
					 "(Slurm: one File per Links line)");
	return true;
}

} // namespace

std::vector<std::string> expand_hostlist(std::string_view list, size_t limit)
{
	std::vector<std::string> out;
	size_t start = 0;
	int depth = 0;
	for (size_t i = 0; i <= list.size(); i++) {
		char c = i < list.size() ? list[i] : ',';
		if (c == '[')
			depth++;
		else if (c == ']')
			depth--;
		if (c != ',' || depth > 0)
			continue;
		std::string_view name = list.substr(start, i - start);
		if (name.empty())
			throw std::invalid_argument("'" + std::string(list) +
						    "': an empty host name");
		expand_name(name, limit, out);
		start = i + 1;
	}
	if (depth != 0)
		throw std::invalid_argument("'" + std::string(list) +
					    "': unbalanced '[' and ']'");
	return out;
}

ClusterFile parse_cluster_file(const std::string &name, std::string_view text)
{
	std::vector<int> gpus;
	std::vector<std::string> names;               // of the GPU nodes
	std::unordered_map<std::string, size_t> seen; // node -> line
	int default_gpus = 0;
	// gres.conf Links lines: every one, and each node's in file order
	// (nodes in the order their first line names them).
	std::vector<LinksLine> links_lines;
	std::unordered_map<std::string, std::vector<int>> host_links;
	std::vector<std::string> links_hosts;
	size_t line_no = 0;
	for (size_t pos = 0; pos < text.size();) {
		size_t end = text.find('\n', pos);
		std::string_view line = text.substr(pos, end == std::string_view::npos
								 ? std::string_view::npos
								 : end - pos);
		pos = end == std::string_view::npos ? text.size() : end + 1;
		line_no++;
		line = line.substr(0, line.find('#'));
		std::vector<Token> tokens;
		for (size_t i = 0; i < line.size();) {
			if (std::isspace(static_cast<unsigned char>(line[i]))) {
				i++;
				continue;
			}
			size_t j = i;
			while (j < line.size() &&
			       !std::isspace(static_cast<unsigned char>(line[j])))
				j++;
			std::string_view word = line.substr(i, j - i);
			size_t eq = word.find('=');
			Token t{ word.substr(0, eq),
				 eq == std::string_view::npos ? std::string_view()
							      : word.substr(eq + 1),
				 i + 1 };
			if (eq == std::string_view::npos && !tokens.empty() &&
			    iequals(tokens.front().key, "NodeName"))
				throw InputError(name, line_no, t.column,
						 "'" + std::string(word) +
							 "': expected KEY=VALUE");
			tokens.push_back(t);
			i = j;
		}
		if (tokens.empty())
			continue;
		if (!iequals(tokens.front().key, "NodeName")) {
			// Not a node line (PartitionName=, SlurmctldHost=, ...),
			// but a gres.conf line with Links must say whose GPU.
			const Token *links = find_key(tokens, "Links");
			if (links && iequals(tokens.front().key, "Name"))
				throw InputError(name, line_no, links->column,
						 "Links= on a line without NodeName=: "
						 "expected NodeName=... Name=gpu "
						 "File=/dev/nvidiaN Links=...");
			continue;
		}
		const Token &node = tokens.front();
		bool gres_conf = false;
		for (const Token &t : tokens)
			gres_conf = gres_conf || gres_conf_key(t.key);
		if (gres_conf) {
			const Token *links = find_key(tokens, "Links");
			if (!links || !gpu_links_line(name, line_no, tokens, *links))
				continue; // no GPU links: nothing to simulate
			if (iequals(node.value, "DEFAULT"))
				throw InputError(name, line_no, node.column,
						 "NodeName=DEFAULT: a line with Links= "
						 "names its nodes");
			std::vector<std::string> hosts;
			try {
				hosts = expand_hostlist(node.value, kMaxClusterNodes);
			} catch (const std::invalid_argument &e) {
				throw InputError(name, line_no, node.column,
						 std::string("NodeName: ") + e.what());
			}
			const int index = static_cast<int>(links_lines.size());
			links_lines.push_back({ std::string(links->value), line_no,
						links->column });
			for (std::string &h : hosts) {
				auto it = host_links.find(h);
				if (it == host_links.end()) {
					if (host_links.size() >=
					    static_cast<size_t>(kMaxClusterNodes))
						throw InputError(name, line_no, node.column,
								 "Links lines for more than " +
									 std::to_string(kMaxClusterNodes) +
									 " nodes");
					links_hosts.push_back(h);
					it = host_links.emplace(std::move(h),
								std::vector<int>()).first;
				}
				if (it->second.size() >=
				    static_cast<size_t>(kMaxGpusPerNode))
					throw InputError(name, line_no, links->column,
							 "node " + it->first +
								 ": more than " +
								 std::to_string(kMaxGpusPerNode) +
								 " Links lines (one per GPU)");
				it->second.push_back(index);
			}
			continue;
		}
		const Token *gres = find_key(tokens, "Gres");
		int count = default_gpus;
		if (gres) {
			try {
				count = gres_gpus(gres->value);
			} catch (const std::invalid_argument &e) {
				throw InputError(name, line_no, gres->column,
						 std::string("Gres: ") + e.what());
			}
		}
		if (iequals(node.value, "DEFAULT")) {
			default_gpus = count;
			continue;
		}
		std::vector<std::string> hosts;
		try {
			hosts = expand_hostlist(node.value, kMaxClusterNodes);
		} catch (const std::invalid_argument &e) {
			throw InputError(name, line_no, node.column,
					 std::string("NodeName: ") + e.what());
		}
		if (seen.size() + hosts.size() > static_cast<size_t>(kMaxClusterNodes))
			throw InputError(name, line_no, node.column,
					 "more than " + std::to_string(kMaxClusterNodes) +
						 " nodes in the file");
		for (std::string &h : hosts) {
			auto [it, fresh] = seen.emplace(std::move(h), line_no);
			if (!fresh)
				throw InputError(name, line_no, node.column,
						 "node " + it->first +
							 " is named again (first on line " +
							 std::to_string(it->second) + ")");
			if (count > 0) { // a node without GPUs is not simulated
				gpus.push_back(count);
				names.push_back(it->first);
			}
		}
	}
	if (gpus.empty())
		throw InputError(name, "no node with GPUs (expected lines such as "
				       "'NodeName=n[1-4] Gres=gpu:4')");
	ClusterFile f;
	f.cluster = make_cluster(gpus);
	if (!links_lines.empty()) {
		f.node_links.resize(names.size());
		for (size_t n = 0; n < names.size(); n++) {
			auto it = host_links.find(names[n]);
			if (it == host_links.end())
				continue; // no links on this node
			std::vector<int> &lines = it->second;
			const size_t want = static_cast<size_t>(gpus[n]);
			if (lines.size() != want) {
				// The first line too many, or the last of too few.
				const LinksLine &at =
					links_lines[lines.size() > want ? lines[want]
									: lines.back()];
				throw InputError(
					name, at.line, at.column,
					"node " + names[n] + " (" + std::to_string(want) +
						" GPU" + (want == 1 ? "" : "s") + ", line " +
						std::to_string(seen[names[n]]) + ") has " +
						std::to_string(lines.size()) + " Links line" +
						(lines.size() == 1 ? "" : "s") +
						": expected one per GPU, slot 0 first");
			}
			f.node_links[n] = std::move(lines);
			host_links.erase(it);
		}
		for (const std::string &h : links_hosts) {
			auto it = host_links.find(h);
			if (it == host_links.end())
				continue;
			const LinksLine &at = links_lines[it->second.front()];
			throw InputError(name, at.line, at.column,
					 "node " + h +
						 " has Links lines but no GPUs in the file "
						 "(expected a line NodeName=" + h +
						 " Gres=gpu:COUNT)");
		}
	}
	f.node_names = std::move(names);
	f.links_lines = std::move(links_lines);
	return f;
}

ClusterFile read_cluster_file(const std::string &path)
{
	std::ifstream in(path, std::ios::binary);
	if (!in)
		throw InputError(path, std::string("cannot read: ") + std::strerror(errno));
	std::ostringstream text;
	text << in.rdbuf();
	if (in.bad())
		throw InputError(path, "read error");
	return parse_cluster_file(path, text.str());
}

} // namespace omru
