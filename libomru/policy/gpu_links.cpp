// gpu_links.cpp - see gpu_links.hpp.
//
// The exhaustive search walks the candidate sets in lexicographic order and
// keeps only strict improvements, so rule 4 (smallest slot list) costs
// nothing.  Link sums are long long: 64 GPUs x int-sized entries would
// overflow an int.
#include "policy/gpu_links.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cstring>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <string_view>

#include "model/cluster.hpp" // kMaxGpusPerNode

namespace omru {

namespace {

std::string_view trim(std::string_view s)
{
	while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
		s.remove_prefix(1);
	while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
		s.remove_suffix(1);
	return s;
}

std::vector<std::string_view> split_commas(std::string_view s)
{
	std::vector<std::string_view> out;
	for (;;) {
		size_t comma = s.find(',');
		out.push_back(trim(s.substr(0, comma)));
		if (comma == std::string_view::npos)
			return out;
		s.remove_prefix(comma + 1);
	}
}

// where(gpu): what to put in front of a message about that GPU's line
// ("" for bare strings, "FILE:LINE: " for a file); none: the same for a
// message about the whole input.  RET the n x n matrix, row-major.
Parsed<std::vector<int>> parse_matrix(const std::vector<std::string> &lines,
				      const std::function<std::string(int)> &where,
				      const std::string &none)
{
	using Result = Parsed<std::vector<int>>;
	const size_t count = lines.size();
	if (count == 0)
		return Result::fail(none + "no Links lines: expected one per GPU of the node");
	if (count > static_cast<size_t>(kMaxGpusPerNode))
		return Result::fail(none + std::to_string(count) +
				    " Links lines: at most " +
				    std::to_string(kMaxGpusPerNode) + " GPUs per node");
	const int n = static_cast<int>(count);
	std::vector<int> m(count * count, 0);
	for (int i = 0; i < n; i++) {
		std::string_view line = trim(lines[i]);
		if (line.substr(0, 6) == "Links=") // as copied from gres.conf
			line.remove_prefix(6);
		std::vector<std::string_view> entries = split_commas(line);
		const std::string gpu = where(i) + "GPU " + std::to_string(i);
		if (entries.size() != count)
			return Result::fail(gpu + ": Links '" + std::string(line) +
					    "' has " + std::to_string(entries.size()) +
					    " entries, expected " + std::to_string(n) +
					    " (one per GPU of the node)");
		for (int j = 0; j < n; j++) {
			std::string_view e = entries[j];
			const std::string at = gpu + ", entry " + std::to_string(j) +
					       ": '" + std::string(e) + "'";
			int v = 0;
			auto [end, ec] = std::from_chars(e.data(), e.data() + e.size(), v);
			if (e.empty() || ec != std::errc() || end != e.data() + e.size())
				return Result::fail(at + " is not an integer");
			if (i == j && v != -1)
				return Result::fail(at + " must be -1 (the GPU itself)");
			if (i != j && v < 0)
				return Result::fail(at + " must be >= 0 (0: no direct link, N: N NVLinks)");
			// The lower triangle is read after the upper one it must
			// mirror, so the later line is the one reported.
			int mirror = m[static_cast<size_t>(j) * n + i];
			if (j < i && v != mirror)
				return Result::fail(at + " differs from GPU " + std::to_string(j) +
						    ", entry " + std::to_string(i) + ": '" +
						    std::to_string(mirror) +
						    "' (links must be symmetric)");
			m[static_cast<size_t>(i) * n + j] = v;
		}
	}
	return m;
}

} // namespace

Parsed<GpuLinks> GpuLinks::parse_gres_links(const std::vector<std::string> &links_lines)
{
	auto m = parse_matrix(links_lines, [](int) { return std::string(); }, "");
	if (!m.ok())
		return Parsed<GpuLinks>::fail(m.error());
	GpuLinks g;
	g.n_ = static_cast<int>(links_lines.size());
	g.m_ = m.value();
	return g;
}

Parsed<GpuLinks> GpuLinks::read_file(const std::string &path)
{
	std::ifstream in(path, std::ios::binary);
	if (!in)
		return Parsed<GpuLinks>::fail(path + ": cannot read: " + std::strerror(errno));
	std::vector<std::string> lines;
	std::vector<size_t> line_numbers;
	std::string line;
	for (size_t lineno = 1; std::getline(in, line); lineno++) {
		std::string_view t = trim(line);
		if (t.empty() || t.front() == '#')
			continue;
		lines.push_back(line);
		line_numbers.push_back(lineno);
	}
	if (in.bad())
		return Parsed<GpuLinks>::fail(path + ": read error");
	auto m = parse_matrix(
		lines,
		[&](int gpu) {
			return path + ":" + std::to_string(line_numbers[gpu]) + ": ";
		},
		path + ": ");
	if (!m.ok())
		return Parsed<GpuLinks>::fail(m.error());
	GpuLinks g;
	g.n_ = static_cast<int>(lines.size());
	g.m_ = m.value();
	return g;
}

namespace {

// How a candidate set scores (gpu_links.hpp, rules 1-3).
struct Score {
	int weakest = INT_MAX;   // weakest link between chosen GPUs
	long long inside = 0;    // sum of links between chosen GPUs
	long long cut = 0;       // sum of links from chosen to other free GPUs

	bool better_than(const Score &o) const
	{
		if (weakest != o.weakest)
			return weakest > o.weakest;
		if (inside != o.inside)
			return inside > o.inside;
		return cut < o.cut;
	}
};

// C(n, k), or limit + 1 once it passes limit (no overflow).
long long choose_capped(long long n, long long k, long long limit)
{
	k = std::min(k, n - k);
	long long c = 1;
	for (long long i = 0; i < k; i++) {
		c = c * (n - i) / (i + 1); // exact: c * (n-i) is C(n,i+1) * (i+1)
		if (c > limit)
			return limit + 1;
	}
	return c;
}

// Depth-first over the k-subsets of cand in lexicographic order.
class Exhaustive {
    public:
	Exhaustive(const GpuLinks &links, const std::vector<int> &cand, int k)
		: links_(links), cand_(cand), k_(static_cast<size_t>(k)),
		  degree_(cand.size(), 0)
	{
		// degree_[i]: links from cand[i] to every other free GPU; the
		// cut of a set is the sum of its degrees less twice its inside.
		for (size_t i = 0; i < cand.size(); i++)
			for (size_t j = 0; j < cand.size(); j++)
				if (i != j)
					degree_[i] += links.strength(cand[i], cand[j]);
	}

	std::vector<int> run()
	{
		visit(0, Score{}, 0);
		return best_;
	}

    private:
	void visit(size_t from, const Score &s, long long degrees)
	{
		if (cur_.size() == k_) {
			Score full = s;
			full.cut = degrees - 2 * s.inside;
			if (best_.empty() || full.better_than(best_score_)) {
				best_ = cur_;
				best_score_ = full;
			}
			return;
		}
		for (size_t i = from; i + (k_ - cur_.size()) <= cand_.size(); i++) {
			Score next = s;
			for (int c : cur_) {
				int l = links_.strength(cand_[i], c);
				next.weakest = std::min(next.weakest, l);
				next.inside += l;
			}
			// The weakest link only falls as GPUs are added: a
			// branch already below the best cannot win.
			if (!best_.empty() && next.weakest < best_score_.weakest)
				continue;
			cur_.push_back(cand_[i]);
			visit(i + 1, next, degrees + degree_[i]);
			cur_.pop_back();
		}
	}

	const GpuLinks &links_;
	const std::vector<int> &cand_;
	size_t k_;
	std::vector<long long> degree_;
	std::vector<int> cur_, best_;
	Score best_score_;
};

// Grows a set from each free GPU in turn, adding the GPU that keeps
// (weakest link, inside) largest, lowest slot on ties, and keeps the best
// grown set by rules 1-4.  Seeding from every GPU rather than from the
// strongest pair keeps a lone strong pair from luring the set into a
// broken island: O(free^2 x count^2) link look-ups.
std::vector<int> greedy(const GpuLinks &links, const std::vector<int> &cand, int k)
{
	std::vector<int> best;
	Score best_score;
	std::vector<bool> taken(cand.size());
	for (size_t seed = 0; seed < cand.size(); seed++) {
		std::fill(taken.begin(), taken.end(), false);
		taken[seed] = true;
		std::vector<int> chosen{ cand[seed] };
		Score s;
		while (static_cast<int>(chosen.size()) < k) {
			size_t pick = cand.size();
			Score pick_score;
			for (size_t i = 0; i < cand.size(); i++) {
				if (taken[i])
					continue;
				Score next = s;
				for (int c : chosen) {
					int l = links.strength(cand[i], c);
					next.weakest = std::min(next.weakest, l);
					next.inside += l;
				}
				if (pick == cand.size() || next.better_than(pick_score))
					pick = i, pick_score = next;
			}
			taken[pick] = true;
			chosen.push_back(cand[pick]);
			s = pick_score;
		}
		std::sort(chosen.begin(), chosen.end());
		for (int c : chosen)
			for (int o : cand)
				if (o != c && !std::binary_search(chosen.begin(), chosen.end(), o))
					s.cut += links.strength(c, o);
		if (best.empty() || s.better_than(best_score) ||
		    (!best_score.better_than(s) && chosen < best)) {
			best = std::move(chosen);
			best_score = s;
		}
	}
	return best;
}

} // namespace

std::vector<int> select_gpus(const GpuLinks *links, const std::vector<bool> &free,
			     int count)
{
	if (links && static_cast<size_t>(links->size()) != free.size())
		throw std::invalid_argument(
			"select_gpus: link matrix for " + std::to_string(links->size()) +
			" GPUs, node has " + std::to_string(free.size()));
	std::vector<int> cand;
	for (size_t s = 0; s < free.size(); s++)
		if (free[s])
			cand.push_back(static_cast<int>(s));
	if (count < 1 || static_cast<int>(cand.size()) < count)
		return {};
	if (!links) {
		cand.resize(static_cast<size_t>(count));
		return cand;
	}
	if (count == static_cast<int>(cand.size()))
		return cand;
	if (choose_capped(static_cast<long long>(cand.size()), count,
			  kSelectGpusExhaustiveLimit) > kSelectGpusExhaustiveLimit)
		return greedy(*links, cand, count);
	return Exhaustive(*links, cand, count).run();
}

} // namespace omru
