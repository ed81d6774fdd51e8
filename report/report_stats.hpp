// report_stats.hpp - the numbers of omru-report: per job (wait, real
// runtime, prediction error) and for the window (makespan, GPU utilization,
// mean JCT, median and p90 of the prediction error).
#ifndef OMRU_REPORT_REPORT_STATS_HPP
#define OMRU_REPORT_REPORT_STATS_HPP

#include <cmath>
#include <string>
#include <vector>

#include "omru_record.hpp"
#include "sacct_jobs.hpp"

namespace omru {
namespace report {

// Where a job is, by the times sacct knows.
enum class JobPhase {
	Finished,   // Start and End: counts in the runtime numbers
	Running,    // Start, no End yet
	Pending,    // neither
	NotStarted, // End without Start: cancelled while pending
};
const char *phase_name(JobPhase p); // "finished", "running", ...

struct JobReport {
	SacctJob job;
	OmruRecord record;
	JobPhase phase = JobPhase::Pending;
	double wait_s = NAN;    // Start - Submit, once started
	double real_s = NAN;    // End - Start, finished jobs
	double jct_s = NAN;     // End - Submit, finished jobs
	// (real - predicted) / predicted x 100, for a COMPLETED job with a
	// prediction > 0 only: a killed, failed or timed-out job ran for a
	// time that says nothing about how long the whole job would take.
	// Nor for profile=default: a model nobody measured is priced at the
	// job's time limit, a bound rather than a prediction.
	double error_pct = NAN;
};

// Reads the job's record and works out its numbers; what is wrong with
// the record is added to `warnings`.
JobReport report_job(SacctJob job, std::vector<std::string> &warnings);

struct WindowStats {
	size_t jobs = 0, finished = 0, running = 0, pending = 0, not_started = 0;
	// Among finished jobs: the first Submit and the last End.
	double first_submit_s = NAN, last_end_s = NAN;
	double makespan_s = NAN;
	double gpu_seconds = 0; // GPUs x real runtime, finished jobs
	int cluster_gpus = 0;   // 0: not known
	// gpu_seconds / (cluster_gpus x makespan_s); NaN when either is unknown
	// or the makespan is 0.
	double gpu_utilization = NAN;
	double mean_jct_s = NAN;
	size_t predicted = 0; // jobs with an error_pct
	double error_median_pct = NAN, error_p90_pct = NAN; // of |error_pct|
};

WindowStats window_stats(const std::vector<JobReport> &jobs, int cluster_gpus);

// A window of jobs with its numbers, named for a comparison
// (omru-report --baseline): e.g. "cons_tres+backfill" and "select/omru".
struct NamedWindow {
	std::string name;
	std::vector<JobReport> jobs;
	WindowStats stats;
};

// The median (the mean of the two middle values of an even count) and the
// nearest-rank percentile (the ceil(pct/100 x n)-th smallest, as omru-sim's
// p50/p99); NaN for no values.
double median(std::vector<double> v);
double nearest_rank(std::vector<double> v, double pct);

} // namespace report
} // namespace omru

#endif
