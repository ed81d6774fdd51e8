// start_overhead.cpp - a user's start overhead from their completed jobs
// (start_overhead.hpp).
#include "controller/start_overhead.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace omru {
namespace controller {

double StartOverheadBook::add(uint32_t uid, double work_s, double predicted_s, double margin)
{
	if (!std::isfinite(work_s) || !std::isfinite(predicted_s) || !(predicted_s > 0) ||
	    !std::isfinite(margin) || !(margin >= 0))
		return -1;
	const double sample = work_s - predicted_s;
	if (!(sample >= 0) || sample > std::min(margin, kStartOverheadMaxShare) * predicted_s ||
	    sample > kMaxStartOverheadS)
		return -1;
	std::deque<double> &q = samples_[uid];
	q.push_back(sample);
	while (q.size() > kStartOverheadSamples)
		q.pop_front();
	return sample;
}

double StartOverheadBook::of(uint32_t uid) const
{
	auto it = samples_.find(uid);
	if (it == samples_.end() || it->second.size() < kStartOverheadMinSamples)
		return 0;
	std::vector<double> v(it->second.begin(), it->second.end());
	const std::size_t mid = v.size() / 2;
	std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
	double m = v[mid];
	if (v.size() % 2 == 0) {
		double below = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
		m = (m + below) / 2;
	}
	return m;
}

} // namespace controller
} // namespace omru
