// summary.hpp - the numbers a schedule is judged by (doc/sim-formats.md,
// Summary), and a lower bound on the makespan any policy could reach.
#ifndef OMRU_SIM_SUMMARY_HPP
#define OMRU_SIM_SUMMARY_HPP

#include <string>
#include <vector>

#include "model/schedule.hpp"
#include "sim/lower_bound.hpp"

namespace omru {

struct Summary {
	std::string policy;
	size_t jobs = 0;
	double makespan_s = 0;   // last end - first submit
	double avg_jct_s = 0;    // jct = end of last segment - submit
	double p50_jct_s = 0;    // nearest-rank percentiles
	double p99_jct_s = 0;
	double avg_queue_s = 0;  // jct minus time in segments: waiting, ever
	double gpu_utilization = 0; // GPU-seconds held / (GPUs x makespan)
	double lower_bound_s = 0;
	double plan_ms = 0;
};

Summary summarize(const std::string &policy, const Cluster &c,
		  const ProfileTable &p, const Workload &w, const Schedule &s,
		  double plan_ms);

// Per job, in Workload::jobs order: its completion time, the end of its
// last segment minus its submit_s (what every JCT number here means).
std::vector<double> job_jct_s(const Workload &w, const Schedule &s);

// The nearest-rank percentile `pct` (0..100] of ascending `sorted`; 0 when
// it is empty.
double nearest_rank(const std::vector<double> &sorted, double pct);

// A JSON string literal for v (quotes, backslashes, control characters
// escaped).
std::string json_string(const std::string &v);

// A JSON number with at most 6 decimals (null when not finite).
std::string json_number(double v);

// One JSON object, the keys of the spec in the spec's order.
std::string summary_json(const Summary &s);

} // namespace omru

#endif
