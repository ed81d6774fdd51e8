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
	User &u = users_[uid];
	u.samples.push_back(sample);
	while (u.samples.size() > kStartOverheadSamples)
		u.samples.pop_front();
	u.median = 0;
	if (u.samples.size() >= kStartOverheadMinSamples) {
		std::vector<double> v(u.samples.begin(), u.samples.end());
		const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
		std::nth_element(v.begin(), mid, v.end());
		u.median = v.size() % 2 ? *mid : (*mid + *std::max_element(v.begin(), mid)) / 2;
	}
	return sample;
}

double StartOverheadBook::of(uint32_t uid) const
{
	auto it = users_.find(uid);
	return it == users_.end() ? 0 : it->second.median;
}

} // namespace controller
} // namespace omru
