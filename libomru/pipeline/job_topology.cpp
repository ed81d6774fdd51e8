// job_topology.cpp - see job_topology.hpp.
#include "pipeline/job_topology.hpp"

#include <cmath>

namespace omru {
namespace pipeline {

namespace {

bool positive(double v)
{
	return std::isfinite(v) && v > 0;
}

// One node's slots in chain order: from the lowest, always to the
// unvisited slot with the strongest link (lowest on ties).
std::vector<int> chain(const GpuLinks *links, std::vector<int> slots)
{
	std::vector<int> out;
	if (slots.empty())
		return out;
	std::vector<bool> used(slots.size(), false);
	size_t cur = 0;
	for (size_t i = 1; i < slots.size(); i++)
		if (slots[i] < slots[cur])
			cur = i;
	for (;;) {
		used[cur] = true;
		out.push_back(slots[cur]);
		long best = -1;
		int best_strength = -2;
		for (size_t i = 0; i < slots.size(); i++) {
			if (used[i])
				continue;
			int s = links ? links->strength(slots[cur], slots[i]) : 0;
			if (s > best_strength ||
			    (s == best_strength && slots[i] < slots[static_cast<size_t>(best)])) {
				best = static_cast<long>(i);
				best_strength = s;
			}
		}
		if (best < 0)
			return out;
		cur = static_cast<size_t>(best);
	}
}

} // namespace

std::string check_link_speeds(const LinkSpeeds &s)
{
	if (!positive(s.nvlink_gbps))
		return "the NVLink speed must be a number > 0 (GB/s)";
	if (!positive(s.pcie_gbps))
		return "the PCIe speed must be a number > 0 (GB/s)";
	if (!positive(s.network_gbps))
		return "the network speed must be a number > 0 (GB/s)";
	if (!std::isfinite(s.latency_s) || s.latency_s < 0)
		return "the latency must be a number >= 0 (seconds)";
	return "";
}

Parsed<JobTopology> JobTopology::build(const GpuLinks *links,
				       const std::vector<std::vector<int>> &slots_per_node,
				       const LinkSpeeds &speeds)
{
	using P = Parsed<JobTopology>;
	std::string bad = check_link_speeds(speeds);
	if (!bad.empty())
		return P::fail(bad);
	JobTopology t;
	for (size_t n = 0; n < slots_per_node.size(); n++) {
		const std::vector<int> &slots = slots_per_node[n];
		for (size_t i = 0; i < slots.size(); i++) {
			int s = slots[i];
			if (s < 0 || (links && s >= links->size()))
				return P::fail("node " + std::to_string(n) + ": GPU slot " +
					       std::to_string(s) + " is not in the links matrix (" +
					       std::to_string(links ? links->size() : 0) +
					       " GPUs)");
			for (size_t j = 0; j < i; j++)
				if (slots[j] == s)
					return P::fail("node " + std::to_string(n) +
						       ": GPU slot " + std::to_string(s) +
						       " twice");
		}
		for (int s : chain(links, slots))
			t.gpus_.push_back(JobGpu{static_cast<int>(n), s});
	}
	if (t.gpus_.empty())
		return P::fail("the job has no GPU");
	size_t g = t.gpus_.size();
	t.bw_.assign(g * g, 0);
	for (size_t a = 0; a < g; a++)
		for (size_t b = 0; b < g; b++) {
			const JobGpu &x = t.gpus_[a], &y = t.gpus_[b];
			double gbps = speeds.network_gbps;
			if (x.node == y.node) {
				int s = links && a != b ? links->strength(x.slot, y.slot) : 0;
				gbps = s > 0 ? s * speeds.nvlink_gbps : speeds.pcie_gbps;
			}
			t.bw_[a * g + b] = gbps * 1e9;
		}
	t.latency_s_ = speeds.latency_s;
	return t;
}

Parsed<JobTopology> JobTopology::on_idle_nodes(const GpuLinks *links,
					       const std::vector<int> &per_node,
					       const LinkSpeeds &speeds)
{
	std::vector<std::vector<int>> slots;
	for (int n : per_node) {
		if (n < 1 || n > kMaxJobGpus)
			return Parsed<JobTopology>::fail("a node with " + std::to_string(n) +
							 " processes");
		if (links && n > links->size())
			return Parsed<JobTopology>::fail(
				std::to_string(n) + " processes on a node, " +
				std::to_string(links->size()) + " GPUs in its links matrix");
		slots.push_back(select_gpus(
			links, std::vector<bool>(static_cast<size_t>(links ? links->size() : n), true),
			n));
	}
	return build(links, slots, speeds);
}

Parsed<JobTopology> JobTopology::uniform(const GpuLinks *links, int nodes,
					 int gpus_per_node, const LinkSpeeds &speeds)
{
	if (nodes < 1 || gpus_per_node < 1)
		return Parsed<JobTopology>::fail("the job needs at least one node and one GPU");
	if (static_cast<long>(nodes) * gpus_per_node > kMaxJobGpus)
		return Parsed<JobTopology>::fail("the job has more than " +
						 std::to_string(kMaxJobGpus) + " GPUs");
	std::vector<int> slots;
	for (int i = 0; i < gpus_per_node; i++)
		slots.push_back(i);
	return build(links, std::vector<std::vector<int>>(static_cast<size_t>(nodes), slots),
		     speeds);
}

} // namespace pipeline
} // namespace omru
