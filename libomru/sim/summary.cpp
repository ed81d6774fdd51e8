// summary.cpp - see summary.hpp.
#include "sim/summary.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace omru {

double nearest_rank(const std::vector<double> &sorted, double pct)
{
	if (sorted.empty())
		return 0;
	size_t rank = static_cast<size_t>(std::ceil(pct / 100.0 * sorted.size()));
	return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}

std::vector<double> job_jct_s(const Workload &w, const Schedule &s)
{
	std::vector<double> end(w.jobs.size(), 0);
	for (const Segment &g : s)
		end[g.job] = std::max(end[g.job], g.end_s);
	for (size_t i = 0; i < end.size(); i++)
		end[i] -= w.jobs[i].submit_s;
	return end;
}

Summary summarize(const std::string &policy, const Cluster &c,
		  const ProfileTable &p, const Workload &w, const Schedule &s,
		  double plan_ms)
{
	Summary r;
	r.policy = policy;
	r.jobs = w.jobs.size();
	r.plan_ms = plan_ms;
	r.lower_bound_s = makespan_lower_bound(c, p, w);
	if (w.jobs.empty())
		return r;
	std::vector<double> held(w.jobs.size(), 0);
	double busy = 0, last = 0;
	for (const Segment &g : s) {
		held[g.job] += g.duration_s();
		busy += g.gpus() * g.duration_s();
		last = std::max(last, g.end_s);
	}
	std::vector<double> jct = job_jct_s(w, s);
	double queue = 0;
	for (size_t i = 0; i < w.jobs.size(); i++)
		queue += jct[i] - held[i];
	r.makespan_s = last - w.jobs.front().submit_s;
	double sum = 0;
	for (double v : jct)
		sum += v;
	r.avg_jct_s = sum / jct.size();
	r.avg_queue_s = queue / jct.size();
	std::sort(jct.begin(), jct.end());
	r.p50_jct_s = nearest_rank(jct, 50);
	r.p99_jct_s = nearest_rank(jct, 99);
	r.gpu_utilization = r.makespan_s > 0 ? busy / (c.total_gpus() * r.makespan_s) : 0;
	return r;
}

std::string json_number(double v)
{
	if (!std::isfinite(v))
		return "null";
	char buf[64];
	snprintf(buf, sizeof(buf), "%.6f", v);
	// trim trailing zeros for readability; keep one digit after the point
	std::string s(buf);
	while (s.size() > 2 && s.back() == '0' && s[s.size() - 2] != '.')
		s.pop_back();
	return s;
}

std::string json_string(const std::string &v)
{
	std::string out = "\"";
	for (char ch : v) {
		unsigned char u = static_cast<unsigned char>(ch);
		if (ch == '"' || ch == '\\')
			out += std::string("\\") + ch;
		else if (u < 0x20) {
			char buf[8];
			snprintf(buf, sizeof(buf), "\\u%04x", u);
			out += buf;
		} else
			out += ch;
	}
	return out + "\"";
}

std::string summary_json(const Summary &s)
{
	return "{\"policy\": " + json_string(s.policy) +
	       ", \"jobs\": " + std::to_string(s.jobs) +
	       ", \"makespan_s\": " + json_number(s.makespan_s) +
	       ", \"avg_jct_s\": " + json_number(s.avg_jct_s) +
	       ", \"p50_jct_s\": " + json_number(s.p50_jct_s) +
	       ", \"p99_jct_s\": " + json_number(s.p99_jct_s) +
	       ", \"avg_queue_s\": " + json_number(s.avg_queue_s) +
	       ", \"gpu_utilization\": " + json_number(s.gpu_utilization) +
	       ", \"lower_bound_s\": " + json_number(s.lower_bound_s) +
	       ", \"plan_ms\": " + json_number(s.plan_ms) + "}";
}

} // namespace omru
