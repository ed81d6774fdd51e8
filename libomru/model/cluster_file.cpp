// cluster_file.cpp - see cluster_file.hpp.
//
// Only what the simulated cluster needs is read: node names (for order and
// duplicates) and GPU counts.  Everything else a slurm.conf holds is skipped
// without a look, so a real slurm.conf can be given as it is.
#include "model/cluster_file.hpp"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

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

Cluster parse_cluster_file(const std::string &name, std::string_view text)
{
	std::vector<int> gpus;
	std::unordered_map<std::string, size_t> seen; // node -> line
	int default_gpus = 0;
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
		if (tokens.empty() || !iequals(tokens.front().key, "NodeName"))
			continue; // not a node line (PartitionName=, SlurmctldHost=, ...)
		const Token *gres = nullptr;
		bool gres_conf = false;
		for (const Token &t : tokens) {
			if (iequals(t.key, "Gres"))
				gres = &t;
			else if (iequals(t.key, "Name") || iequals(t.key, "File"))
				gres_conf = true;
		}
		if (gres_conf)
			continue; // a gres.conf line: read when links per node come
		int count = default_gpus;
		if (gres) {
			try {
				count = gres_gpus(gres->value);
			} catch (const std::invalid_argument &e) {
				throw InputError(name, line_no, gres->column,
						 std::string("Gres: ") + e.what());
			}
		}
		const Token &node = tokens.front();
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
			if (count > 0) // a node without GPUs is not simulated
				gpus.push_back(count);
		}
	}
	if (gpus.empty())
		throw InputError(name, "no node with GPUs (expected lines such as "
				       "'NodeName=n[1-4] Gres=gpu:4')");
	return make_cluster(gpus);
}

Cluster read_cluster_file(const std::string &path)
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
