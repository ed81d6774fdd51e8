// report_text.hpp - omru-report's output on stdout: a table with one row
// per job and the window's summary, or the same as one JSON document.
#ifndef OMRU_REPORT_REPORT_TEXT_HPP
#define OMRU_REPORT_REPORT_TEXT_HPP

#include <ostream>
#include <string>
#include <vector>

#include "report_stats.hpp"

#include "text_table.hpp" // local_time_text

namespace omru {
namespace report {

// Why the GPU utilization is not known ("" when it is), for the summary.
struct ClusterNote {
	std::string why_unknown;
};

// Columns JOBID STATE MODEL GPUS WAIT_S PREDICTED_S REAL_S ERROR%
// SAMPLES/S DATA_WAIT% PROFILE P, aligned; "-" where there is no value.
void write_table(std::ostream &out, const std::vector<JobReport> &jobs);

// "jobs: ...", "makespan: ...", "GPU utilization: ...", "mean JCT: ...",
// "prediction error: ..." lines.
void write_summary(std::ostream &out, const WindowStats &s,
		   const ClusterNote &note);

// {"jobs": [...], "summary": {...}}; null where there is no value.  With
// a baseline (omru-report --baseline) also "comparison": {"baseline":
// its name, "this": `name`, "baseline_summary": {...}, "ratios":
// {"makespan", "mean_jct", "gpu_utilization"}} (this window's over the
// baseline's), "per_job": {"paired", "later_5pct", "p99_ratio",
// "worst_ratio", "worst_job"} (job_pairs.hpp).
void write_json(std::ostream &out, const std::vector<JobReport> &jobs,
		const WindowStats &s, const NamedWindow *base = nullptr,
		const std::string &name = "");

// The two windows side by side: jobs finished, makespan, mean JCT, GPU
// utilization and allocated GPU-seconds of each, and this window's over
// the baseline's; then each job against its twin in the baseline
// (job_pairs.hpp): jobs more than 5% later, p99 and worst JCT ratio.
void write_comparison(std::ostream &out, const NamedWindow &base,
		      const std::string &name, const WindowStats &s,
		      const std::vector<JobReport> &jobs);

} // namespace report
} // namespace omru

#endif
