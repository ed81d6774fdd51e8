// stage_costs.cpp - see stage_costs.hpp.
#include "pipeline/stage_costs.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace omru {
namespace pipeline {

StageCosts::StageCosts(const LayerProfile &profile, const JobTopology &topo,
		       const PartitionSettings &settings, int micro_batches)
	: prof_(profile), topo_(topo), set_(settings), M_(micro_batches)
{
	if (M_ < 1 || settings.global_batch < M_)
		throw std::invalid_argument("micro-batches must be in 1..global batch");
	m_ = static_cast<double>(settings.global_batch) / M_;
	size_t L = prof_.layers.size();
	F_.assign(L + 1, 0);
	B_.assign(L + 1, 0);
	P_.assign(L + 1, 0);
	S_.assign(L + 1, 0);
	for (size_t l = 0; l < L; l++) {
		const LayerCost &c = prof_.layers[l];
		F_[l + 1] = F_[l] + c.fwd.at(m_);
		B_[l + 1] = B_[l] + c.bwd.at(m_);
		P_[l + 1] = P_[l] + c.param_bytes;
		S_[l + 1] = S_[l] + c.stash_bytes_per_sample;
	}
}

const StageFit &StageCosts::fit(int i, int j, int w)
{
	auto key = std::make_tuple(i, j, w);
	auto hit = cache_.find(key);
	if (hit != cache_.end())
		return hit->second;
	StageFit f;
	f.fwd_s = F_[j] - F_[i];
	f.bwd_s = B_[j] - B_[i];
	double fixed = set_.param_copies * (P_[j] - P_[i]);
	double stash = w * m_ * (S_[j] - S_[i]);
	double limit = set_.mem_limit_bytes;
	f.mem_bytes = fixed + stash;
	if (limit <= 0 || f.mem_bytes <= limit) {
		f.fits = true;
		return cache_[key] = f;
	}
	// Candidates: layers that keep more than their output (which the
	// next layer needs either way).
	struct Cand {
		int layer;
		double saved; // bytes per sample
		double cost;  // seconds per micro-batch
	};
	std::vector<Cand> cand;
	for (int l = i; l < j; l++) {
		const LayerCost &c = prof_.layers[static_cast<size_t>(l)];
		if (c.stash_bytes_per_sample > c.out_bytes_per_sample)
			cand.push_back(Cand{l, c.stash_bytes_per_sample - c.out_bytes_per_sample,
					    c.fwd.at(m_)});
	}
	std::stable_sort(cand.begin(), cand.end(), [](const Cand &a, const Cand &b) {
		return a.cost * b.saved < b.cost * a.saved;
	});
	double saved = 0, extra = 0, rebuilt = 0;
	std::vector<int> chosen;
	for (const Cand &c : cand) {
		saved += c.saved;
		extra += c.cost;
		rebuilt = std::max(rebuilt,
				   prof_.layers[static_cast<size_t>(c.layer)].stash_bytes_per_sample);
		chosen.push_back(c.layer);
		double mem = fixed + w * m_ * (S_[j] - S_[i] - saved) + m_ * rebuilt;
		if (mem <= limit) {
			f.fits = true;
			f.mem_bytes = mem;
			f.bwd_s += extra;
			std::sort(chosen.begin(), chosen.end());
			f.recompute = chosen;
			return cache_[key] = f;
		}
	}
	f.need_bytes = fixed + w * m_ * (S_[j] - S_[i] - saved) + m_ * rebuilt;
	return cache_[key] = f;
}

double StageCosts::allreduce_s(int i, int j, int p, int r) const
{
	if (r <= 1)
		return 0;
	double slowest = topo_.bandwidth(p + r - 1, p);
	for (int q = p; q + 1 < p + r; q++)
		slowest = std::min(slowest, topo_.bandwidth(q, q + 1));
	return 2.0 * (r - 1) * topo_.latency_s() +
	       2.0 * (r - 1) / r * (P_[j] - P_[i]) / slowest;
}

double StageCosts::send_s(int j, int p, int r, int r2) const
{
	int q = p + r, pairs = std::lcm(r, r2);
	double slowest = topo_.bandwidth(p, q);
	for (int u = 1; u < pairs; u++)
		slowest = std::min(slowest, topo_.bandwidth(p + u % r, q + u % r2));
	double bytes = m_ * prof_.layers[static_cast<size_t>(j - 1)].out_bytes_per_sample;
	return 2 * (topo_.latency_s() + bytes / slowest);
}

} // namespace pipeline
} // namespace omru
