// gpu_links.hpp - which GPUs of a node a job gets: the best-linked ones.
// Placement (placement.hpp) decides how many GPUs go on which node; this
// decides which slots, so a job that fits an NVLink island is not split
// across a PCIe hop.  It is the topology half of select/omru.
//
// Links are given the way Slurm's gres.conf gives them: one `Links=` value
// per GPU of the node, a comma-separated entry per GPU: -1 for the GPU
// itself, 0 for no direct link (PCIe or worse), N > 0 for N NVLinks (any
// number where higher is better works, e.g. hwloc's NVLinkBandwidth).
#ifndef OMRU_POLICY_GPU_LINKS_HPP
#define OMRU_POLICY_GPU_LINKS_HPP

#include <string>
#include <vector>

#include "job_options.hpp" // omru::Parsed

namespace omru {

// The symmetric link matrix of one node's GPUs.  Every node of an NxG
// cluster has the same one, so one matrix serves the whole cluster.
class GpuLinks {
    public:
	// IN links_lines: one Links value per GPU, in slot order, e.g.
	// { "-1,2,0,0", "2,-1,0,0", ... }; an optional "Links=" prefix and
	// spaces around entries are accepted.  The error names the GPU (the
	// line, 0-based like the slots) and the entry (the GPU it links to).
	static Parsed<GpuLinks> parse_gres_links(const std::vector<std::string> &links_lines);
	// A file of one Links value per line; '#' comment lines and blank
	// lines are skipped.  Errors read "FILE:LINE: message" ("FILE: ..."
	// when the file cannot be read or holds no GPU).
	static Parsed<GpuLinks> read_file(const std::string &path);

	int size() const { return n_; }
	// -1 when a == b; otherwise >= 0, and strength(a, b) == strength(b, a).
	int strength(int a, int b) const { return m_[static_cast<size_t>(a) * n_ + b]; }

    private:
	int n_ = 0;
	std::vector<int> m_; // n_ x n_, row-major
};

// Above this many candidate sets select_gpus stops trying them all.
constexpr long kSelectGpusExhaustiveLimit = 20000;

// IN links: the node's link matrix, or nullptr for none.
// IN free: one flag per slot of the node, true where the GPU is free.
// RET `count` free slots, ascending, or an empty vector when fewer than
// `count` are free (or count < 1).
//
// Without links: the lowest free slots.  With links, the set that is best
// in this order (each rule only breaks the ties of the ones before):
//  1. the strongest weakest link between two chosen GPUs, so a job that fits
//     an NVLink island does not get a PCIe hop;
//  2. the largest sum of links between chosen GPUs;
//  3. the smallest sum of links from chosen GPUs to the free GPUs left
//     over, so what stays free stays well linked (for one GPU, rules 1 and
//     2 never decide and this one picks the free GPU least linked to the
//     others: a GPU off an island rather than one that breaks it);
//  4. the lexicographically smallest slot list, for determinism.
// Every candidate set is tried when there are at most
// kSelectGpusExhaustiveLimit of them (C(8, 4) = 70, C(16, 8) = 12870);
// otherwise (e.g. 4 of 32 free GPUs) a greedy search that is not always
// optimal: from each free GPU, add one GPU at a time, the one that keeps
// (weakest link, sum) largest, lowest slot on ties; the best of these sets
// by rules 1-4 wins.  Throws std::invalid_argument when links do not have
// free.size() GPUs.
std::vector<int> select_gpus(const GpuLinks *links, const std::vector<bool> &free,
			     int count);

} // namespace omru

#endif
