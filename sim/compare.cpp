// compare.cpp - see compare.hpp.
#include "compare.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>

#include <unistd.h>

#include "gantt_svg.hpp"
#include "model/csv_table.hpp"
#include "run_policy.hpp"
#include "sim/job_ratios.hpp"

namespace omru {

// The per-job table against the baseline, then, when jobs carry accounts,
// one row per policy and account.  Rows lead with the policy like the
// first table's, but no second column is a bare number, so scripts that
// take a row's numbers from the first table (tests/bench) do not
// mistake these for it.
static void print_vs_baseline(const std::vector<PolicyRun> &runs,
			      const std::vector<BaselineComparison> &cmp,
			      const std::string &baseline, const Workload &w)
{
	std::printf("\nvs %s (per job: JCT / JCT under %s; later: ratio > %.2f)\n",
		    baseline.c_str(), baseline.c_str(), kLaterRatio);
	std::printf("%-10s %9s %10s %12s  %s\n", "policy", "later>5%",
		    "p99_ratio", "worst_ratio", "worst_job");
	for (size_t i = 0; i < runs.size(); i++) {
		if (!runs[i].error.empty())
			continue;
		const RatioSummary &r = cmp[i].all;
		std::printf("%-10s %8.1f%% %10.3f %12.3f  %s\n",
			    runs[i].policy.c_str(), 100 * r.later_share, r.p99_ratio,
			    r.worst_ratio,
			    r.worst_job < 0 ? "-" : w.jobs[r.worst_job].id.c_str());
	}
	if (w.accounts.empty())
		return;
	std::printf("\nper account (shares of the run's GPU-seconds and of the "
		    "jobs; vs %s)\n", baseline.c_str());
	std::printf("%-10s %-12s %11s %5s %9s %9s %12s\n", "policy", "account",
		    "gpu_s_share", "jobs", "job_share", "later>5%", "worst_ratio");
	for (size_t i = 0; i < runs.size(); i++) {
		if (!runs[i].error.empty())
			continue;
		for (const AccountShare &a : cmp[i].accounts)
			std::printf("%-10s %-12s %10.1f%% %5zu %8.1f%% %8.1f%% %12.3f\n",
				    runs[i].policy.c_str(),
				    a.account < 0 ? "(none)" : w.accounts[a.account].c_str(),
				    100 * a.gpu_s_share, a.jobs, 100 * a.job_share,
				    100 * a.vs_baseline.later_share,
				    a.vs_baseline.worst_ratio);
	}
}

int compare_main(const std::vector<std::string> &argv)
{
	CliArgs args(argv, join(join(kInputOptions, kPolicyOptions),
				{ { "policies", true }, { "gantt", true },
				  { "json", false }, { "baseline", true } }));
	SimInputs in = read_sim_inputs(args);
	print_pipeline_notes(in, std::cerr);
	PolicyOptions opts = read_policy_options(args);
	std::vector<std::string> names = args.list("policies", "policy name");
	if (!names.empty()) {
		for (const std::string &n : names)
			policy_by_name(n); // unknown names fail before any run
	} else {
		for (const PolicyInfo &p : policy_registry())
			names.push_back(p.name);
	}
	// Every policy is measured job by job against this one, so it runs
	// even when not asked for (and is printed once either way).
	const std::string baseline = args.get("baseline").value_or("backfill");
	policy_by_name(baseline);
	if (std::find(names.begin(), names.end(), baseline) == names.end())
		names.push_back(baseline);

	std::vector<PolicyRun> runs;
	for (const std::string &n : names)
		runs.push_back(run_policy(n, in, opts, isatty(2)));
	const PolicyRun &base = *std::find_if(
		runs.begin(), runs.end(),
		[&](const PolicyRun &r) { return r.policy == baseline; });
	std::vector<BaselineComparison> cmp(runs.size());
	if (base.error.empty())
		for (size_t i = 0; i < runs.size(); i++)
			if (runs[i].error.empty())
				cmp[i] = compare_with_baseline(in.workload,
							       runs[i].result.schedule,
							       base.result.schedule);

	const bool json = args.has("json");
	if (!json) {
		std::printf("%s on %s, restart overhead %g s; lower bound %.1f s\n",
			    in.workload.name.c_str(), format_cluster(in.cluster).c_str(),
			    in.restart_overhead_s,
			    makespan_lower_bound(in.cluster, in.profiles, in.workload));
		std::printf("%-10s %12s %8s %11s %11s %6s %10s %8s\n", "policy",
			    "makespan_s", "vs_LB", "avg_jct_s", "p99_jct_s",
			    "util", "plan_ms", "wall_s");
	}
	int status = 0;
	for (size_t i = 0; i < runs.size(); i++) {
		const PolicyRun &r = runs[i];
		if (!r.error.empty()) {
			// A refusal is a result of the comparison, not a failure
			// of it; a policy that gets stuck is a failure.
			if (json)
				std::cout << "{\"policy\": " << json_string(r.policy)
					  << ", \"error\": " << json_string(r.error) << "}\n";
			else
				std::printf("%-10s %s\n", r.policy.c_str(), r.error.c_str());
			if (r.stuck) {
				std::cerr << "omru-sim: " << r.policy << ": " << r.error << "\n";
				status = 1;
			}
			continue;
		}
		const Summary &s = r.summary;
		if (json) {
			std::string obj = summary_json(s);
			if (base.error.empty()) { // its keys, then the comparison's
				obj.pop_back();
				obj += ", " + baseline_comparison_json(cmp[i], baseline,
								       in.workload) + "}";
			}
			std::cout << obj << "\n";
			continue;
		}
		std::printf("%-10s %12.1f %8.3f %11.1f %11.1f %5.1f%% %10.1f %8.3f\n",
			    s.policy.c_str(), s.makespan_s,
			    s.lower_bound_s > 0 ? s.makespan_s / s.lower_bound_s : 0.0,
			    s.avg_jct_s, s.p99_jct_s, 100 * s.gpu_utilization,
			    s.plan_ms, r.wall_s);
	}
	if (!json && base.error.empty())
		print_vs_baseline(runs, cmp, baseline, in.workload);
	else if (!json) // its row above says why
		std::printf("\nvs %s: no per-job comparison, %s has no schedule\n",
			    baseline.c_str(), baseline.c_str());
	if (auto path = args.get("gantt")) {
		std::vector<GanttChart> charts;
		for (const PolicyRun &r : runs)
			if (r.error.empty())
				charts.push_back({ chart_title(r.summary), &r.result.schedule });
		std::ofstream f(*path);
		write_gantt_svg(f, in.cluster, in.workload, charts);
		if (!f.flush())
			throw InputError(*path, "cannot write the chart");
	}
	return status;
}

} // namespace omru
