// report_stats.cpp - see report_stats.hpp.
#include "report_stats.hpp"

#include <algorithm>

namespace omru {
namespace report {

const char *phase_name(JobPhase p)
{
	switch (p) {
	case JobPhase::Finished:
		return "finished";
	case JobPhase::Running:
		return "running";
	case JobPhase::Pending:
		return "pending";
	case JobPhase::NotStarted:
		return "not started";
	}
	return "?";
}

JobReport report_job(SacctJob job, std::vector<std::string> &warnings)
{
	JobReport r;
	std::vector<std::string> problems;
	r.record = read_omru_record(job.admin_comment, problems);
	if (!r.record.error.empty())
		warnings.push_back(r.record.error + "; record ignored");
	warnings.insert(warnings.end(), problems.begin(), problems.end());

	const bool started = !std::isnan(job.start_s);
	const bool ended = !std::isnan(job.end_s);
	r.phase = started ? (ended ? JobPhase::Finished : JobPhase::Running)
			  : (ended ? JobPhase::NotStarted : JobPhase::Pending);
	if (started)
		r.wait_s = job.start_s - job.submit_s; // NaN without a Submit
	if (r.phase == JobPhase::Finished) {
		r.real_s = job.end_s - job.start_s;
		r.jct_s = job.end_s - job.submit_s;
		const double p = r.record.predicted_s;
		// profile=default: priced at the time limit, no prediction.
		if (job.state == "COMPLETED" && p > 0 && r.record.profile != "default")
			r.error_pct = (r.real_s - p) / p * 100;
	}
	r.job = std::move(job);
	return r;
}

double median(std::vector<double> v)
{
	if (v.empty())
		return NAN;
	std::sort(v.begin(), v.end());
	const size_t n = v.size();
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double nearest_rank(std::vector<double> v, double pct)
{
	if (v.empty())
		return NAN;
	std::sort(v.begin(), v.end());
	size_t rank = static_cast<size_t>(std::ceil(pct / 100.0 * v.size()));
	return v[std::clamp<size_t>(rank, 1, v.size()) - 1];
}

WindowStats window_stats(const std::vector<JobReport> &jobs, int cluster_gpus)
{
	WindowStats s;
	s.jobs = jobs.size();
	s.cluster_gpus = std::max(0, cluster_gpus);
	double jct_sum = 0;
	size_t jct_n = 0;
	std::vector<double> errors;
	for (const JobReport &r : jobs) {
		switch (r.phase) {
		case JobPhase::Finished:
			s.finished++;
			break;
		case JobPhase::Running:
			s.running++;
			continue;
		case JobPhase::Pending:
			s.pending++;
			continue;
		case JobPhase::NotStarted:
			s.not_started++;
			continue;
		}
		// fmin/fmax skip NaN: the first value sets the bound.
		s.first_submit_s = std::fmin(s.first_submit_s, r.job.submit_s);
		s.last_end_s = std::fmax(s.last_end_s, r.job.end_s);
		s.gpu_seconds += r.job.gpus * std::max(0.0, r.real_s);
		if (!std::isnan(r.jct_s)) {
			jct_sum += r.jct_s;
			jct_n++;
		}
		if (!std::isnan(r.error_pct))
			errors.push_back(std::fabs(r.error_pct));
	}
	s.makespan_s = s.last_end_s - s.first_submit_s;
	if (s.cluster_gpus > 0 && s.makespan_s > 0)
		s.gpu_utilization = s.gpu_seconds / (s.cluster_gpus * s.makespan_s);
	if (jct_n)
		s.mean_jct_s = jct_sum / jct_n;
	s.predicted = errors.size();
	s.error_median_pct = median(errors);
	s.error_p90_pct = nearest_rank(errors, 90);
	return s;
}

} // namespace report
} // namespace omru
