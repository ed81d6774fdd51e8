// job_ratios.cpp - see job_ratios.hpp.
#include "sim/job_ratios.hpp"

#include <algorithm>
#include <limits>

#include "sim/summary.hpp"

namespace omru {

std::vector<double> job_ratios(const Workload &w, const Schedule &s,
			       const Schedule &baseline)
{
	std::vector<double> jct = job_jct_s(w, s), base = job_jct_s(w, baseline);
	std::vector<double> ratio(w.jobs.size());
	for (size_t i = 0; i < ratio.size(); i++) {
		if (base[i] > 0)
			ratio[i] = jct[i] / base[i];
		else // no job takes no time; guard the division all the same
			ratio[i] = jct[i] > 0 ? std::numeric_limits<double>::infinity() : 1;
	}
	return ratio;
}

RatioSummary summarize_ratios(const std::vector<double> &ratio,
			      const std::vector<int> &jobs)
{
	RatioSummary r;
	r.jobs = jobs.size();
	if (jobs.empty())
		return r;
	std::vector<double> sorted;
	size_t later = 0;
	for (int j : jobs) {
		sorted.push_back(ratio[j]);
		if (ratio[j] > kLaterRatio)
			later++;
		// Strictly greater: on a tie the job submitted first stays.
		if (r.worst_job < 0 || ratio[j] > r.worst_ratio) {
			r.worst_ratio = ratio[j];
			r.worst_job = j;
		}
	}
	std::sort(sorted.begin(), sorted.end());
	r.later_share = static_cast<double>(later) / jobs.size();
	r.p99_ratio = nearest_rank(sorted, 99);
	return r;
}

BaselineComparison compare_with_baseline(const Workload &w, const Schedule &s,
					 const Schedule &baseline)
{
	BaselineComparison c;
	c.ratio = job_ratios(w, s, baseline);
	std::vector<int> all(w.jobs.size());
	for (size_t i = 0; i < all.size(); i++)
		all[i] = static_cast<int>(i);
	c.all = summarize_ratios(c.ratio, all);
	if (w.accounts.empty())
		return c;

	// Slot a for account a, the last slot for jobs without one.
	const size_t none = w.accounts.size();
	std::vector<std::vector<int>> jobs(none + 1);
	for (size_t i = 0; i < w.jobs.size(); i++)
		jobs[w.jobs[i].account < 0 ? none : w.jobs[i].account].push_back(
			static_cast<int>(i));
	std::vector<double> gpu_s(none + 1, 0);
	double total = 0;
	for (const Segment &g : s) {
		int a = w.jobs[g.job].account;
		gpu_s[a < 0 ? none : a] += g.gpus() * g.duration_s();
		total += g.gpus() * g.duration_s();
	}
	for (size_t a = 0; a <= none; a++) {
		if (jobs[a].empty())
			continue; // every account has a job; "none" may not
		AccountShare sh;
		sh.account = a == none ? -1 : static_cast<int>(a);
		sh.jobs = jobs[a].size();
		sh.job_share = static_cast<double>(sh.jobs) / w.jobs.size();
		sh.gpu_s_share = total > 0 ? gpu_s[a] / total : 0;
		sh.vs_baseline = summarize_ratios(c.ratio, jobs[a]);
		c.accounts.push_back(sh);
	}
	return c;
}

static std::string worst_job_json(const RatioSummary &r, const Workload &w)
{
	return r.worst_job < 0 ? "null" : json_string(w.jobs[r.worst_job].id);
}

std::string baseline_comparison_json(const BaselineComparison &c,
				     const std::string &baseline,
				     const Workload &w)
{
	std::string out = "\"vs_baseline\": {\"baseline\": " + json_string(baseline) +
			  ", \"later_5pct\": " + json_number(c.all.later_share) +
			  ", \"p99_ratio\": " + json_number(c.all.p99_ratio) +
			  ", \"worst_ratio\": " + json_number(c.all.worst_ratio) +
			  ", \"worst_job\": " + worst_job_json(c.all, w) + "}";
	if (c.accounts.empty())
		return out;
	out += ", \"accounts\": [";
	for (size_t i = 0; i < c.accounts.size(); i++) {
		const AccountShare &a = c.accounts[i];
		out += std::string(i ? ", " : "") + "{\"account\": " +
		       (a.account < 0 ? "null" : json_string(w.accounts[a.account])) +
		       ", \"gpu_s_share\": " + json_number(a.gpu_s_share) +
		       ", \"jobs\": " + std::to_string(a.jobs) +
		       ", \"job_share\": " + json_number(a.job_share) +
		       ", \"later_5pct\": " + json_number(a.vs_baseline.later_share) +
		       ", \"worst_ratio\": " + json_number(a.vs_baseline.worst_ratio) +
		       ", \"worst_job\": " + worst_job_json(a.vs_baseline, w) + "}";
	}
	return out + "]";
}

} // namespace omru
