// compare.cpp - see compare.hpp.
#include "compare.hpp"

#include <cstdio>
#include <fstream>
#include <iostream>

#include <unistd.h>

#include "gantt_svg.hpp"
#include "model/csv_table.hpp"
#include "run_policy.hpp"

namespace omru {

int compare_main(const std::vector<std::string> &argv)
{
	CliArgs args(argv, join(join(kInputOptions, kPolicyOptions),
				{ { "policies", true }, { "gantt", true },
				  { "json", false } }));
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

	std::vector<PolicyRun> runs;
	for (const std::string &n : names)
		runs.push_back(run_policy(n, in, opts, isatty(2)));

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
	for (const PolicyRun &r : runs) {
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
			std::cout << summary_json(s) << "\n";
			continue;
		}
		std::printf("%-10s %12.1f %8.3f %11.1f %11.1f %5.1f%% %10.1f %8.3f\n",
			    s.policy.c_str(), s.makespan_s,
			    s.lower_bound_s > 0 ? s.makespan_s / s.lower_bound_s : 0.0,
			    s.avg_jct_s, s.p99_jct_s, 100 * s.gpu_utilization,
			    s.plan_ms, r.wall_s);
	}
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
