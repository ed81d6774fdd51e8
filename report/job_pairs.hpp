// job_pairs.hpp - the same jobs in two windows (omru-report --baseline):
// each job of this window against its twin in the baseline, JCT over JCT,
// the way omru-sim compare measures policies (libomru/sim/job_ratios.hpp):
// the share of jobs more than 5% later, p99 and the worst.  A mean that
// improves while one job waits longer than under backfill is what this
// shows.  Twins are found by job name and submission order (the k-th job
// named X in one window is the k-th named X in the other), as the demo
// and the benches submit one workload to both clusters.
#ifndef OMRU_REPORT_JOB_PAIRS_HPP
#define OMRU_REPORT_JOB_PAIRS_HPP

#include <string>
#include <vector>

#include "report_stats.hpp"
#include "sim/job_ratios.hpp"

namespace omru {
namespace report {

struct JobPairs {
	std::vector<std::string> name; // this window's job of each pair
	std::vector<double> ratio;     // its JCT / its twin's
	RatioSummary all;              // worst_job indexes name
	size_t unpaired = 0;           // finished jobs of this window without a finished twin
};

JobPairs pair_jobs(const std::vector<JobReport> &base, const std::vector<JobReport> &mine);

} // namespace report
} // namespace omru

#endif
