// loader_model.cpp - see loader_model.hpp.
#include "profile/loader_model.hpp"

#include "model/report_bounds.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace omru {

namespace {
// A worker count no node has: keeps saturation_workers() an int.
constexpr double kMaxWorkers = 1 << 20;
} // namespace

LoaderModel::LoaderModel(double compute_s_per_sample, double worker_rate)
	: compute_s_(compute_s_per_sample), worker_rate_(worker_rate)
{
}

std::optional<LoaderModel> LoaderModel::fit(const LoaderSample &s,
					    std::string *why)
{
	auto refuse = [&](const char *reason) {
		if (why)
			*why = reason;
		return std::nullopt;
	};
	// Ranges: doc/report-bounds.md.  A rate near 0 would make the peak
	// rate 0 and every share's score NaN.
	if (s.workers < 1 || s.workers > bounds::kWorkersMax)
		return refuse("loader workers outside 1..4096");
	if (!bounds::samples_s_ok(s.samples_s))
		return refuse("samples/s outside 1e-3..1e9");
	if (!bounds::samples_s_ok(s.worker_rate))
		return refuse("the per-worker rate is outside 1e-3..1e9 samples/s");
	if (!(s.wait_fraction >= 0 && s.wait_fraction < 1))
		return refuse("the data-wait fraction is not in [0, 1)");
	// The workers cannot have delivered more than they can make: a task
	// that waited was loader-bound, so X <= w r must hold (up to noise);
	// far beyond it the numbers do not belong together.
	if (s.wait_fraction > 0.05 && s.samples_s > 2 * s.workers * s.worker_rate)
		return refuse("samples/s is far above what its workers can load");
	return LoaderModel((1 - s.wait_fraction) / s.samples_s, s.worker_rate);
}

double LoaderModel::samples_s(int workers) const
{
	return std::min(peak_samples_s(), std::max(0, workers) * worker_rate_);
}

double LoaderModel::normalised(int workers) const
{
	return samples_s(workers) / peak_samples_s();
}

int LoaderModel::saturation_workers() const
{
	double w = std::ceil(peak_samples_s() / worker_rate_ * (1 - 1e-9));
	return static_cast<int>(std::clamp(w, 1.0, kMaxWorkers));
}

LoaderModel loader_prior(int workers)
{
	// Peak 1 sample/s reached at exactly `workers` workers.
	int w = std::max(1, workers);
	return LoaderModel(1.0, 1.0 / w);
}

} // namespace omru
