// run_policy.cpp - see run_policy.hpp.
#include "run_policy.hpp"

#include <chrono>
#include <cstdio>

namespace omru {

static std::string policy_names()
{
	std::string names;
	for (const PolicyInfo &p : policy_registry())
		names += (names.empty() ? "" : ", ") + std::string(p.name);
	return names;
}

// "\romru-sim: fifo: 45/160 jobs done" at most ten times a second.
static std::function<void(size_t, size_t)> progress_printer(const std::string &policy)
{
	auto last = std::make_shared<std::chrono::steady_clock::time_point>();
	return [policy, last](size_t done, size_t total) {
		auto now = std::chrono::steady_clock::now();
		if (done < total && now - *last < std::chrono::milliseconds(100))
			return;
		*last = now;
		std::fprintf(stderr, "\romru-sim: %s: %zu/%zu jobs done%s",
			     policy.c_str(), done, total, done == total ? "\n" : "");
	};
}

const PolicyInfo &policy_by_name(const std::string &name)
{
	const PolicyInfo *info = find_policy(name);
	if (!info)
		throw UsageError("--policy '" + name + "' is not a policy (" +
				 policy_names() + ")");
	return *info;
}

PolicyRun run_policy(const std::string &name, const SimInputs &in,
		     const PolicyOptions &opts, bool show_progress)
{
	const PolicyInfo &info = policy_by_name(name);
	PolicyRun run;
	run.policy = name;
	auto t0 = std::chrono::steady_clock::now();
	PolicyOptions o = opts;
	o.omru_interference = in.interference;
	std::unique_ptr<Policy> policy = info.make(o);
	run.error = policy->refuse(in.workload, in.profiles, in.cluster);
	if (run.error.empty() && in.workload.has_site_limits() && !policy->models_site_limits())
		run.error = "does not model site limits (the workload's user, node_list, "
			    "CPU, memory, exclusive or license columns, --user-gpus); "
			    "fifo, backfill and omru do";
	if (!run.error.empty())
		return run;
	SimOptions so;
	so.restart_overhead_s = in.restart_overhead_s;
	so.gpu_links = in.gpu_links.get();
	so.node_links = in.node_links;
	so.interference = in.interference.get();
	if (show_progress)
		so.on_progress = progress_printer(name);
	try {
		run.result = simulate(in.cluster, in.profiles, in.workload, *policy, so);
	} catch (const SimStuck &e) {
		run.error = e.what();
		run.stuck = true;
		return run;
	}
	run.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
	run.summary = summarize(name, in.cluster, in.profiles, in.workload,
				run.result.schedule, run.result.plan_ms);
	return run;
}

std::string chart_title(const Summary &s)
{
	char buf[160];
	std::snprintf(buf, sizeof(buf), "%s: makespan %.0f s (%.3f x lower bound), avg JCT %.0f s, utilization %.1f%%",
		      s.policy.c_str(), s.makespan_s,
		      s.lower_bound_s > 0 ? s.makespan_s / s.lower_bound_s : 0.0,
		      s.avg_jct_s, 100 * s.gpu_utilization);
	return buf;
}

void print_summary(std::ostream &out, const Summary &s, const SimInputs &in)
{
	char buf[512];
	std::snprintf(buf, sizeof(buf),
		      "policy %s on %s: %zu jobs\n"
		      "makespan       %.1f s (lower bound %.1f s, ratio %.3f)\n"
		      "JCT            avg %.1f s, p50 %.1f s, p99 %.1f s\n"
		      "queueing       avg %.1f s\n"
		      "utilization    %.1f%% of GPU time\n"
		      "planning       %.1f ms\n",
		      s.policy.c_str(), format_cluster(in.cluster).c_str(), s.jobs,
		      s.makespan_s, s.lower_bound_s,
		      s.lower_bound_s > 0 ? s.makespan_s / s.lower_bound_s : 0.0,
		      s.avg_jct_s, s.p50_jct_s, s.p99_jct_s, s.avg_queue_s,
		      100 * s.gpu_utilization, s.plan_ms);
	out << buf;
}

} // namespace omru
