// loader_allocator.cpp - see loader_allocator.hpp.
#include "policy/loader_allocator.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace omru {

namespace {

// Objective values closer than this are equal (ties go to fewer CPUs).
constexpr double kTie = 1e-9;

int usable_workers(const LoaderJob &j)
{
	return std::max(1, std::min(j.max_workers, j.model.saturation_workers()));
}

LoaderShares finish(const std::vector<LoaderJob> &jobs, std::vector<int> w)
{
	LoaderShares s;
	for (size_t i = 0; i < jobs.size(); i++) {
		s.objective += jobs[i].model.normalised(w[i]);
		s.cpus_used += w[i] * jobs[i].tasks;
	}
	s.workers = std::move(w);
	return s;
}

// CPUs the optimum left: one worker at a time to the job whose workers
// have the least margin over its step (loading rate / peak), within caps.
void spread_headroom(const std::vector<LoaderJob> &jobs, std::vector<int> &w,
		     int left)
{
	for (;;) {
		int pick = -1;
		double least = std::numeric_limits<double>::infinity();
		for (size_t i = 0; i < jobs.size(); i++) {
			const LoaderJob &j = jobs[i];
			if (w[i] >= j.max_workers || j.tasks > left)
				continue;
			double margin = w[i] * j.model.worker_rate() /
					j.model.peak_samples_s();
			if (margin < least - kTie) {
				least = margin;
				pick = static_cast<int>(i);
			}
		}
		if (pick < 0)
			return;
		w[pick]++;
		left -= jobs[pick].tasks;
	}
}

} // namespace

LoaderShares allocate_loader_workers(const std::vector<LoaderJob> &jobs, int cpus)
{
	const size_t n = jobs.size();
	if (n == 0)
		return {};
	cpus = std::max(cpus, 0);
	int floors = 0;
	for (const LoaderJob &j : jobs)
		floors += std::max(1, j.tasks);
	if (floors >= cpus) {
		LoaderShares s = finish(jobs, std::vector<int>(n, 1));
		s.oversubscribed = floors > cpus;
		return s;
	}
	// best[b]: the best objective of jobs 0..i using exactly b CPUs
	// (-inf: impossible); pick[i][b]: job i's workers in it.
	const double none = -std::numeric_limits<double>::infinity();
	std::vector<double> best(cpus + 1, none), next(cpus + 1);
	std::vector<std::vector<int>> pick(n, std::vector<int>(cpus + 1, 0));
	best[0] = 0;
	for (size_t i = 0; i < n; i++) {
		const LoaderJob &j = jobs[i];
		std::fill(next.begin(), next.end(), none);
		for (int w = 1; w <= usable_workers(j); w++) {
			int cost = w * j.tasks;
			double v = j.model.normalised(w);
			if (!std::isfinite(v))
				v = 0; // a model without a number gains nothing
			for (int b = cost; b <= cpus; b++) {
				if (best[b - cost] == none)
					continue;
				double cand = best[b - cost] + v;
				if (cand > next[b] + kTie) {
					next[b] = cand;
					pick[i][b] = w;
				}
			}
		}
		best.swap(next);
	}
	// The fewest CPUs reaching the best objective.
	int at = -1;
	for (int b = 0; b <= cpus; b++)
		if (best[b] != none && (at < 0 || best[b] > best[at] + kTie))
			at = b;
	if (at < 0) // cannot happen with finite values; never index with it
		return finish(jobs, std::vector<int>(n, 1));
	std::vector<int> w(n);
	for (size_t i = n; i-- > 0;) {
		w[i] = pick[i][at];
		at -= w[i] * jobs[i].tasks;
	}
	int used = 0;
	for (size_t i = 0; i < n; i++)
		used += w[i] * jobs[i].tasks;
	spread_headroom(jobs, w, cpus - used);
	return finish(jobs, std::move(w));
}

LoaderShares even_loader_workers(const std::vector<LoaderJob> &jobs, int cpus)
{
	std::vector<int> w;
	int per_job = jobs.empty() ? 0 : std::max(cpus, 0) / static_cast<int>(jobs.size());
	for (const LoaderJob &j : jobs)
		w.push_back(std::clamp(per_job / std::max(1, j.tasks), 1,
				       std::max(1, j.max_workers)));
	return finish(jobs, std::move(w));
}

} // namespace omru
