// job_pairs.cpp - see job_pairs.hpp.
#include "job_pairs.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

namespace omru {
namespace report {
namespace {

// Finished jobs by name, each name's in submission order (ties: job id
// order as sacct listed them).
std::map<std::string, std::vector<const JobReport *>> by_name(const std::vector<JobReport> &jobs)
{
	std::vector<const JobReport *> done;
	for (const JobReport &r : jobs)
		if (r.phase == JobPhase::Finished && std::isfinite(r.jct_s))
			done.push_back(&r);
	std::stable_sort(done.begin(), done.end(), [](const JobReport *a, const JobReport *b) {
		return a->job.submit_s < b->job.submit_s;
	});
	std::map<std::string, std::vector<const JobReport *>> out;
	for (const JobReport *r : done)
		out[r->job.name].push_back(r);
	return out;
}

} // namespace

JobPairs pair_jobs(const std::vector<JobReport> &base, const std::vector<JobReport> &mine)
{
	JobPairs p;
	const auto twins = by_name(base);
	for (const auto &[name, list] : by_name(mine)) {
		auto t = twins.find(name);
		for (size_t k = 0; k < list.size(); k++) {
			if (t == twins.end() || k >= t->second.size()) {
				p.unpaired++;
				continue;
			}
			const double b = t->second[k]->jct_s, m = list[k]->jct_s;
			p.name.push_back(name);
			// A twin done at its submission: even only if this one is too.
			p.ratio.push_back(b > 0 ? m / b : m > 0 ? INFINITY : 1);
		}
	}
	std::vector<int> all(p.ratio.size());
	std::iota(all.begin(), all.end(), 0);
	p.all = summarize_ratios(p.ratio, all);
	return p;
}

} // namespace report
} // namespace omru
