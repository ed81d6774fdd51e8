// job_ratios.hpp - every job measured against the same job under a baseline
// policy (Slurm's own: backfill): JCT under the policy / JCT under the
// baseline, and who is worse off (doc/sim-formats.md, "Per-job comparison").
// A mean that improves while one job waits 100 x longer is a regression;
// these numbers show it.
#ifndef OMRU_SIM_JOB_RATIOS_HPP
#define OMRU_SIM_JOB_RATIOS_HPP

#include <string>
#include <vector>

#include "model/schedule.hpp"

namespace omru {

// A job is "later" when its ratio exceeds this: Shockwave's unfair
// fraction counts finish-time fairness rho > 1.05 the same way.
constexpr double kLaterRatio = 1.05;

// How a set of jobs fared against the baseline.
struct RatioSummary {
	size_t jobs = 0;
	double later_share = 0; // share of the jobs with ratio > kLaterRatio
	double p99_ratio = 0;   // nearest rank, as the summary's p99_jct_s
	double worst_ratio = 0;
	int worst_job = -1; // index into Workload::jobs; ties: first submitted
};

// One account's part of a run (Job::account).
struct AccountShare {
	int account = -1;       // index into Workload::accounts; -1: jobs without one
	size_t jobs = 0;
	double job_share = 0;   // its jobs / all jobs
	double gpu_s_share = 0; // its GPU-seconds / all GPU-seconds of the run
	RatioSummary vs_baseline; // over its jobs only
};

struct BaselineComparison {
	std::vector<double> ratio; // per job, Workload::jobs order
	RatioSummary all;
	// Per account in Workload::accounts order, then jobs without one;
	// empty when no job has an account.
	std::vector<AccountShare> accounts;
};

// Per job: JCT under `s` / JCT under `baseline` (JCT as the summary's,
// job_jct_s).  IN both schedules of workload `w`, every job in each.
// RET one ratio per job; a job the baseline finishes at its submission
// (no time at all) gets 1 if `s` does too, else infinity.
std::vector<double> job_ratios(const Workload &w, const Schedule &s,
			       const Schedule &baseline);

// IN ratio per job; IN jobs: the indices to summarize.  RET zeros and
// worst_job -1 when `jobs` is empty.
RatioSummary summarize_ratios(const std::vector<double> &ratio,
			      const std::vector<int> &jobs);

// Everything `omru-sim compare` reports against its --baseline for a run
// of `w` that produced `s`.
BaselineComparison compare_with_baseline(const Workload &w, const Schedule &s,
					 const Schedule &baseline);

// The keys `compare --json` adds to a policy's object, without braces:
// "vs_baseline": {...} and, when the workload has accounts, "accounts": [...].
std::string baseline_comparison_json(const BaselineComparison &c,
				     const std::string &baseline,
				     const Workload &w);

} // namespace omru

#endif
