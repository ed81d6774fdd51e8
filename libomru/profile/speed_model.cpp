// speed_model.cpp - see speed_model.hpp.
#include "profile/speed_model.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

namespace omru {

const char *confidence_name(Confidence c)
{
	switch (c) {
	case Confidence::Measured:
		return "measured";
	case Confidence::Interpolated:
		return "interpolated";
	case Confidence::Extrapolated:
		return "extrapolated";
	}
	return "?";
}

std::vector<double> fit_non_increasing(const std::vector<double> &epoch_s)
{
	// Log space: noise in epoch times is multiplicative, and pooling a
	// 10 s and a 1000 s point should not be dominated by the slow one.
	struct Block {
		size_t first, len;
		double mean; // of log(epoch_s)
	};
	// Two unpooled points compare by their raw values, so input that is
	// already in order never depends on log() being monotone to the last bit.
	auto violates = [&](const Block &a, const Block &b) {
		if (a.len == 1 && b.len == 1)
			return epoch_s[b.first] > epoch_s[a.first];
		return b.mean > a.mean;
	};
	std::vector<Block> blocks;
	for (size_t i = 0; i < epoch_s.size(); i++) {
		double x = epoch_s[i];
		if (!(x > 0) || !std::isfinite(x))
			throw std::invalid_argument(
				"fit_non_increasing: epoch time " + std::to_string(x) +
				" is not a positive finite number");
		blocks.push_back({ i, 1, std::log(x) });
		// Strictly slower than the block before: pool the two (ties are
		// in order and stay apart, so they keep their measured values).
		while (blocks.size() > 1 &&
		       violates(blocks[blocks.size() - 2], blocks.back())) {
			Block b = blocks.back();
			blocks.pop_back();
			Block &a = blocks.back();
			a.mean = (a.mean * a.len + b.mean * b.len) / (a.len + b.len);
			a.len += b.len;
		}
	}
	std::vector<double> fit(epoch_s);
	for (const Block &b : blocks)
		if (b.len > 1)
			std::fill_n(fit.begin() + b.first, b.len, std::exp(b.mean));
	// exp(mean) next to a raw value could be out of order by a rounding
	// step; the result must be monotone exactly, since callers rely on it.
	for (size_t i = 1; i < fit.size(); i++)
		fit[i] = std::min(fit[i], fit[i - 1]);
	return fit;
}

SpeedEstimate SpeedModel::Curve::at(int g) const
{
	if (g < gpus.front())
		// Linear scaling: the same GPU-seconds per epoch as at the
		// smallest count.  A product rounded once, then divided by a
		// growing g: non-increasing, and above fit.front().
		return { fit.front() * gpus.front() / g, Confidence::Extrapolated };
	if (g > gpus.back())
		// No speedup beyond what was shown.
		return { fit.back(), Confidence::Extrapolated };
	return inside[g - gpus.front()];
}

// The curve through (gpus, raw), gpus ascending and distinct: fitted, and
// tabulated from the smallest count to the largest.
static std::vector<SpeedEstimate> tabulate(const std::vector<int> &gpus,
					   const std::vector<double> &raw,
					   const std::vector<double> &fit)
{
	std::vector<SpeedEstimate> out(gpus.back() - gpus.front() + 1);
	int base = gpus.front();
	size_t j = 0; // first point with gpus >= g
	for (int g = base; g <= gpus.back(); g++) {
		while (gpus[j] < g)
			j++;
		if (gpus[j] == g) {
			out[g - base] = { fit[j], fit[j] == raw[j]
							  ? Confidence::Measured
							  : Confidence::Interpolated };
			continue;
		}
		// Power law between the neighbours: linear in (log g, log t),
		// so it stays between them.
		double a = gpus[j - 1], b = gpus[j];
		double la = std::log(fit[j - 1]), lb = std::log(fit[j]);
		double f = std::log(g / a) / std::log(b / a);
		double t = std::exp(la + f * (lb - la));
		// Rounding must not break the order, nor pass the next point
		// (which is kept as fitted).  out[g - 1] is the point before or
		// an interpolation, so >= fit[j].
		t = std::clamp(t, fit[j], out[g - 1 - base].epoch_s);
		out[g - base] = { t, Confidence::Interpolated };
	}
	return out;
}

static double median(std::vector<double> v)
{
	std::sort(v.begin(), v.end());
	size_t n = v.size();
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

SpeedModel::SpeedModel(const ProfileTable &p, const Cluster &c, double spread_cost)
	: cluster_(c), spread_cost_(spread_cost)
{
	if (c.nodes < 1 || c.gpus_per_node < 1)
		throw std::invalid_argument("speed model: the cluster has no GPU");
	if (!(spread_cost >= 1) || !std::isfinite(spread_cost))
		throw std::invalid_argument("speed model: spread cost " +
					    std::to_string(spread_cost) +
					    " is not a number >= 1");
	// Spread / packed of every model, by (gpus, nodes): a model that
	// measured no spread borrows their median.
	std::map<std::pair<int, int>, std::vector<double>> site;
	for (int m = 0; m < p.model_count(); m++) {
		Model model;
		// Raw rows by node count (counts ascending, as p.counts()).
		std::map<int, std::pair<std::vector<int>, std::vector<double>>> rows;
		std::map<int, std::vector<double>> ratios;
		std::vector<double> all;
		for (int g : p.counts(m)) {
			// epoch_s(m, g, k) falls back to the row without a node
			// count, which means packed, so a row is (g, k) exactly
			// when it differs from that fallback (epoch_s(m, g, 0):
			// no row has 0 nodes), or when k is the packed span
			// anyway.  An exact wider row equal to the packed one to
			// the bit is indistinguishable and gets estimated instead.
			// Every span, also beyond this cluster's nodes: nothing
			// then depends on the node count, and a model profiled
			// only on more nodes still has a curve to borrow.
			std::optional<double> no_nodes = p.epoch_s(m, g, 0);
			int kmin = c.min_nodes(g);
			std::optional<double> packed = p.epoch_s(m, g, kmin);
			for (int k = kmin; k <= g; k++) {
				std::optional<double> e =
					k == kmin ? packed : p.epoch_s(m, g, k);
				if (!e || (k > kmin && no_nodes && *e == *no_nodes))
					continue;
				rows[k].first.push_back(g);
				rows[k].second.push_back(*e);
				if (k > kmin && packed) {
					ratios[k - kmin].push_back(*e / *packed);
					all.push_back(*e / *packed);
					site[{ g, k }].push_back(*e / *packed);
				}
			}
		}
		for (auto &[k, r] : rows) {
			Curve &curve = model.curves[k];
			curve.gpus = std::move(r.first);
			curve.fit = fit_non_increasing(r.second);
			curve.inside = tabulate(curve.gpus, r.second, curve.fit);
		}
		for (auto &[extra, r] : ratios)
			model.ratio_by_extra[extra] = median(r);
		if (!all.empty())
			model.ratio_all = median(all);
		models_.push_back(std::move(model));
	}
	// At least 1: a gain other models showed is no evidence for this
	// one, and a spread priced below packed would let a plan spread a
	// job into holes (and past its time limit) on that hope alone.
	for (auto &[gk, r] : site)
		site_ratio_[gk] = std::max(1.0, median(r));
}

double SpeedModel::unmeasured_ratio(int gpus, int nodes) const
{
	auto it = site_ratio_.find({ gpus, nodes });
	if (it != site_ratio_.end())
		return it->second;
	return std::pow(spread_cost_, nodes - cluster_.min_nodes(gpus));
}

void SpeedModel::check(int model, int gpus) const
{
	if (model < 0 || model >= model_count())
		throw std::invalid_argument(
			"speed model: no model " + std::to_string(model) + " (" +
			std::to_string(model_count()) + " models)");
	if (gpus < 1 || gpus > max_gpus())
		throw std::invalid_argument(
			"speed model: " + std::to_string(gpus) +
			" GPUs is outside 1.." + std::to_string(max_gpus()) +
			" on cluster " + format_cluster(cluster_));
}

SpeedEstimate SpeedModel::packed(int model, int gpus) const
{
	check(model, gpus);
	const std::map<int, Curve> &curves = models_[model].curves;
	// Unreachable from a ProfileTable (every model has a row, and each
	// row is on some curve); 1 s keeps the model usable rather than
	// throwing in the middle of a planner.
	if (curves.empty())
		return { 1.0, Confidence::Extrapolated };
	int k = cluster_.min_nodes(gpus);
	auto it = curves.lower_bound(k);
	if (it != curves.end() && it->first == k)
		return it->second.at(gpus);
	// No row on k nodes: the nearest curve, fewer nodes first (all its
	// counts are then below gpus, so this is its time at its largest
	// count), else the nearest one with more.
	if (it != curves.begin())
		--it;
	return { it->second.at(gpus).epoch_s, Confidence::Extrapolated };
}

SpeedEstimate SpeedModel::spread(int model, int gpus, int nodes) const
{
	check(model, gpus);
	int kmin = cluster_.min_nodes(gpus), kmax = std::min(gpus, cluster_.nodes);
	if (nodes < kmin || nodes > kmax)
		throw std::invalid_argument(
			"speed model: " + std::to_string(gpus) + " GPUs cannot span " +
			std::to_string(nodes) + " nodes on cluster " +
			format_cluster(cluster_) + " (" + std::to_string(kmin) +
			".." + std::to_string(kmax) + ")");
	if (nodes == kmin)
		return packed(model, gpus);
	const Model &m = models_[model];
	if (auto it = m.curves.find(nodes); it != m.curves.end()) {
		const Curve &curve = it->second;
		if (gpus >= curve.gpus.front() && gpus <= curve.gpus.back())
			return curve.at(gpus);
	}
	// The penalty (or gain) of the model's measured spreads as wide
	// beyond packed, else of any of its measured spreads, else what the
	// site knows of spreading.
	auto r = m.ratio_by_extra.find(nodes - kmin);
	double ratio = r != m.ratio_by_extra.end() ? r->second
		       : m.ratio_all                 ? *m.ratio_all
						     : unmeasured_ratio(gpus, nodes);
	return { packed(model, gpus).epoch_s * ratio, Confidence::Extrapolated };
}

SpeedEstimate SpeedModel::best(int model, int gpus) const
{
	check(model, gpus);
	int kmin = cluster_.min_nodes(gpus), kmax = std::min(gpus, cluster_.nodes);
	SpeedEstimate b = packed(model, gpus);
	for (int k = kmin + 1; k <= kmax; k++)
		if (SpeedEstimate e = spread(model, gpus, k); e.epoch_s < b.epoch_s)
			b = e;
	return b;
}

} // namespace omru
