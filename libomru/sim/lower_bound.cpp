// lower_bound.cpp - see lower_bound.hpp.
#include "sim/lower_bound.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace omru {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr size_t kMaxThresholds = 64;

// Lower convex envelope of (runtime, GPU-seconds) points, runtime ascending
// and GPU-seconds descending: the cheapest mix of counts for any time limit.
class AreaCurve {
    public:
	explicit AreaCurve(std::vector<std::pair<double, double>> pts)
	{
		std::sort(pts.begin(), pts.end());
		for (const auto &p : pts) {
			if (!hull_.empty() && p.second >= hull_.back().second)
				continue; // slower and no cheaper: never useful
			while (hull_.size() >= 2) {
				const auto &a = hull_[hull_.size() - 2];
				const auto &b = hull_.back();
				// b above the chord a-p: drop it.
				double cross = (b.first - a.first) * (p.second - a.second) -
					       (b.second - a.second) * (p.first - a.first);
				if (cross > 0)
					break;
				hull_.pop_back();
			}
			hull_.push_back(p);
		}
	}
	bool empty() const { return hull_.empty(); }
	double fastest() const { return hull_.front().first; }
	double cheapest_runtime() const { return hull_.back().first; }
	double least_area() const { return hull_.back().second; }
	double at(double seconds) const
	{
		if (hull_.empty() || seconds < hull_.front().first)
			return kInf;
		if (seconds >= hull_.back().first)
			return hull_.back().second;
		auto it = std::upper_bound(hull_.begin(), hull_.end(),
					   std::make_pair(seconds, kInf));
		const auto &b = *it, &a = *(it - 1);
		return a.second + (b.second - a.second) * (seconds - a.first) /
					  (b.first - a.first);
	}

    private:
	std::vector<std::pair<double, double>> hull_;
};

} // namespace

double least_area_within(std::vector<std::pair<double, double>> points,
			 double seconds)
{
	return AreaCurve(std::move(points)).at(seconds);
}

double makespan_lower_bound(const Cluster &c, const ProfileTable &p,
			    const Workload &w)
{
	if (w.jobs.empty())
		return 0;
	const double first = w.jobs.front().submit_s;
	const double gpus = c.total_gpus();
	std::vector<AreaCurve> curves;
	std::vector<double> submit; // relative to the first submit
	double bound = 0;
	for (const Job &j : w.jobs) {
		std::vector<std::pair<double, double>> pts;
		for (int g : p.counts(j.model))
			if (g >= j.gpus_min && g <= j.gpus_max)
				if (auto e = p.best_epoch_s(j.model, g, c))
					pts.emplace_back(j.epochs * *e, g * j.epochs * *e);
		AreaCurve curve(std::move(pts));
		if (curve.empty())
			continue; // cannot run at all: no bound from it
		submit.push_back(j.submit_s - first);
		bound = std::max(bound, submit.back() + curve.fastest());
		curves.push_back(std::move(curve));
	}
	// Thresholds: the first index of each distinct submit time, at most
	// kMaxThresholds of them (any subset gives a valid bound).
	std::vector<size_t> starts;
	for (size_t i = 0; i < submit.size(); i++)
		if (i == 0 || submit[i - 1] < submit[i])
			starts.push_back(i);
	if (starts.size() > kMaxThresholds) {
		std::vector<size_t> kept;
		for (size_t k = 0; k < kMaxThresholds; k++)
			kept.push_back(starts[k * starts.size() / kMaxThresholds]);
		starts = std::move(kept);
	}
	for (size_t from : starts) {
		const double t = submit[from];
		double least = 0, hi = 0;
		for (size_t j = from; j < curves.size(); j++) {
			least += curves[j].least_area();
			hi = std::max(hi, submit[j] + curves[j].cheapest_runtime());
		}
		double lo = std::max(bound, t + least / gpus);
		hi = std::max(hi, lo);
		auto fits = [&](double end) {
			double need = 0;
			for (size_t j = from; j < curves.size() && need <= gpus * (end - t); j++)
				need += curves[j].at(end - submit[j]);
			return need <= gpus * (end - t);
		};
		if (fits(lo)) {
			bound = std::max(bound, lo);
			continue;
		}
		// fits() is monotone in the end time; keep the infeasible side.
		for (int it = 0; it < 60 && hi - lo > 1e-9 * hi; it++) {
			double mid = 0.5 * (lo + hi);
			(fits(mid) ? hi : lo) = mid;
		}
		bound = std::max(bound, lo);
	}
	return bound;
}

} // namespace omru
