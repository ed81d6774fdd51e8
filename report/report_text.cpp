// report_text.cpp - see report_text.hpp.
#include "report_text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <sstream>

#include "job_pairs.hpp"
#include "model/decimal_text.hpp"
#include "model/schedule.hpp" // format_number
#include "sim/summary.hpp"    // json_string
#include "text_table.hpp"

namespace omru {
namespace report {
namespace {

constexpr const char *kNone = "-";

// v with at most `decimals` decimals, without trailing zeros; "-" for NaN.
std::string fixed(double v, int decimals)
{
	return std::isnan(v) ? kNone : decimal_text(v, decimals);
}

// "+14.5", "-3.2": which way the prediction was off shows at a glance.
std::string signed_pct(double v)
{
	if (std::isnan(v))
		return kNone;
	char buf[64];
	std::snprintf(buf, sizeof(buf), "%+.1f", v);
	return std::string(buf) == "-0.0" ? "+0.0" : buf;
}

std::string or_none(const std::string &s)
{
	return s.empty() ? kNone : s;
}

std::string json_num(double v)
{
	return std::isfinite(v) ? format_number(v) : "null";
}

std::string json_text(const std::string &v)
{
	return v.empty() ? "null" : json_string(v);
}

// "1>4(11s),4>2(9s)": every resize with its restart cost; "-" for none.
std::string resizes_text(const std::vector<CommentResize> &resizes)
{
	std::string out;
	for (const CommentResize &r : resizes)
		out += (out.empty() ? "" : ",") + std::to_string(r.from) + ">" +
		       std::to_string(r.to) + "(" + format_number(r.cost_s) + "s)";
	return out.empty() ? kNone : out;
}

// The window's numbers as one JSON object.
std::string summary_json(const WindowStats &s)
{
	std::ostringstream out;
	out << "{\"jobs\": " << s.jobs
	    << ", \"finished\": " << s.finished << ", \"running\": " << s.running
	    << ", \"pending\": " << s.pending
	    << ", \"not_started\": " << s.not_started
	    << ", \"first_submit\": " << json_text(local_time_text(s.first_submit_s))
	    << ", \"last_end\": " << json_text(local_time_text(s.last_end_s))
	    << ", \"makespan_s\": " << json_num(s.makespan_s)
	    << ", \"gpu_seconds\": " << json_num(s.gpu_seconds)
	    << ", \"cluster_gpus\": "
	    << (s.cluster_gpus > 0 ? std::to_string(s.cluster_gpus) : "null")
	    << ", \"gpu_utilization\": " << json_num(s.gpu_utilization)
	    << ", \"mean_jct_s\": " << json_num(s.mean_jct_s)
	    << ", \"predicted_jobs\": " << s.predicted
	    << ", \"error_median_pct\": " << json_num(s.error_median_pct)
	    << ", \"error_p90_pct\": " << json_num(s.error_p90_pct) << "}";
	return out.str();
}

// mine / base; NaN when either is unknown or base is not > 0.
double ratio(double mine, double base)
{
	return std::isfinite(mine) && std::isfinite(base) && base > 0 ? mine / base : NAN;
}

// The per-job comparison's JSON object.
std::string per_job_json(const JobPairs &p)
{
	const RatioSummary &r = p.all;
	const bool any = r.jobs > 0;
	return "{\"paired\": " + std::to_string(r.jobs) +
	       ", \"later_5pct\": " + (any ? json_num(r.later_share) : "null") +
	       ", \"p99_ratio\": " + (any ? json_num(r.p99_ratio) : "null") +
	       ", \"worst_ratio\": " + (any ? json_num(r.worst_ratio) : "null") +
	       ", \"worst_job\": " + (any ? json_string(p.name[r.worst_job]) : "null") + "}";
}

} // namespace

void write_comparison(std::ostream &out, const NamedWindow &base,
		      const std::string &name, const WindowStats &s,
		      const std::vector<JobReport> &jobs)
{
	const WindowStats &b = base.stats;
	auto finished = [](const WindowStats &w) {
		return std::to_string(w.finished) + " of " + std::to_string(w.jobs);
	};
	auto pct = [](double v) { return std::isnan(v) ? std::string(kNone) : fixed(v * 100, 1); };
	std::vector<std::vector<std::string>> rows = {
		{ "", base.name, name, "RATIO" },
		{ "jobs finished", finished(b), finished(s), "" },
		{ "makespan_s", fixed(b.makespan_s, 1), fixed(s.makespan_s, 1),
		  fixed(ratio(s.makespan_s, b.makespan_s), 3) },
		{ "mean_JCT_s", fixed(b.mean_jct_s, 1), fixed(s.mean_jct_s, 1),
		  fixed(ratio(s.mean_jct_s, b.mean_jct_s), 3) },
		{ "GPU_utilization%", pct(b.gpu_utilization), pct(s.gpu_utilization),
		  fixed(ratio(s.gpu_utilization, b.gpu_utilization), 3) },
		{ "GPU-s_allocated", fixed(b.gpu_seconds, 1), fixed(s.gpu_seconds, 1),
		  fixed(ratio(s.gpu_seconds, b.gpu_seconds), 3) },
	};
	const JobPairs pairs = pair_jobs(base.jobs, jobs);
	const RatioSummary &r = pairs.all;
	const bool any = r.jobs > 0;
	rows.push_back({ "jobs_later_>5%", "", std::to_string(any ? static_cast<size_t>(std::lround(r.later_share * r.jobs)) : 0) + " of " + std::to_string(r.jobs),
			 any ? fixed(r.later_share * 100, 1) + "%" : std::string(kNone) });
	rows.push_back({ "p99_JCT_ratio", "", "", any ? fixed(r.p99_ratio, 3) : std::string(kNone) });
	rows.push_back({ "worst_JCT_ratio", "", any ? pairs.name[r.worst_job] : std::string(kNone),
			 any ? fixed(r.worst_ratio, 3) : std::string(kNone) });
	out << "side by side (RATIO: " << name << " / " << base.name
	    << "; each window from its first submission to its last end;\n"
	    << "per job: its JCT / the same job's in " << base.name
	    << ", jobs paired by name and submission order):\n";
	write_aligned(out, rows);
}

void write_table(std::ostream &out, const std::vector<JobReport> &jobs)
{
	std::vector<std::vector<std::string>> rows = {
		{ "JOBID", "STATE", "MODEL", "GPUS", "WAIT_S", "PREDICTED_S",
		  "REAL_S", "ERROR%", "SAMPLES/S", "DATA_WAIT%", "LOADER", "PROFILE", "P",
		  "RESIZES" }
	};
	for (const JobReport &r : jobs) {
		const OmruRecord &rec = r.record;
		rows.push_back({ r.job.id, or_none(r.job.state), or_none(rec.model),
				 std::to_string(r.job.gpus), fixed(r.wait_s, 1),
				 fixed(rec.predicted_s, 1), fixed(r.real_s, 1),
				 signed_pct(r.error_pct), fixed(rec.samples_s, 1),
				 fixed(rec.data_wait * 100, 1),
				 rec.workers > 0 ? std::to_string(rec.workers) : kNone,
				 or_none(rec.profile),
				 rec.profiled() ? "P" : "", resizes_text(rec.resizes) });
	}
	write_aligned(out, rows);
}

void write_summary(std::ostream &out, const WindowStats &s,
		   const ClusterNote &note)
{
	out << "jobs: " << s.jobs << " (" << s.finished << " finished, "
	    << s.running << " running, " << s.pending << " pending, "
	    << s.not_started << " ended without starting)\n";
	if (s.finished == 0) {
		out << "makespan: - (no finished job)\n";
	} else {
		out << "makespan: " << fixed(s.makespan_s, 1) << " s ("
		    << or_none(local_time_text(s.first_submit_s)) << " to "
		    << or_none(local_time_text(s.last_end_s)) << ")\n";
	}
	out << "GPU utilization: ";
	if (!std::isnan(s.gpu_utilization))
		out << fixed(s.gpu_utilization * 100, 1) << "% ("
		    << fixed(s.gpu_seconds, 1) << " GPU-s on " << s.cluster_gpus
		    << " GPUs)\n";
	else
		out << "n/a (" << fixed(s.gpu_seconds, 1) << " GPU-s; "
		    << (note.why_unknown.empty() ? "no makespan" : note.why_unknown)
		    << ")\n";
	out << "mean JCT: "
	    << (std::isnan(s.mean_jct_s) ? "-" : fixed(s.mean_jct_s, 1) + " s")
	    << "\n";
	out << "prediction error: ";
	if (s.predicted == 0)
		out << "- (no completed job with a prediction)\n";
	else
		out << "median " << fixed(s.error_median_pct, 1) << "%, p90 "
		    << fixed(s.error_p90_pct, 1) << "% (|error| of " << s.predicted
		    << " completed job" << (s.predicted == 1 ? "" : "s")
		    << " with a prediction)\n";
}

void write_json(std::ostream &out, const std::vector<JobReport> &jobs,
		const WindowStats &s, const NamedWindow *base, const std::string &name)
{
	out << "{\"jobs\": [";
	for (size_t i = 0; i < jobs.size(); i++) {
		const JobReport &r = jobs[i];
		const SacctJob &j = r.job;
		const OmruRecord &rec = r.record;
		out << (i ? ",\n  " : "\n  ") << "{\"job_id\": " << json_string(j.id)
		    << ", \"name\": " << json_string(j.name)
		    << ", \"user\": " << json_string(j.user)
		    << ", \"state\": " << json_string(j.state)
		    << ", \"phase\": " << json_string(phase_name(r.phase))
		    << ", \"gpus\": " << j.gpus << ", \"nodes\": [";
		for (size_t k = 0; k < j.nodes.size(); k++)
			out << (k ? ", " : "") << json_string(j.nodes[k]);
		// sacct's own text for the times it gave, null for the others.
		auto time = [](double v, const std::string &text) {
			return std::isnan(v) ? std::string("null") : json_string(text);
		};
		out << "], \"submit\": " << time(j.submit_s, j.submit_text)
		    << ", \"start\": " << time(j.start_s, j.start_text)
		    << ", \"end\": " << time(j.end_s, j.end_text)
		    << ", \"wait_s\": " << json_num(r.wait_s)
		    << ", \"real_s\": " << json_num(r.real_s)
		    << ", \"jct_s\": " << json_num(r.jct_s)
		    << ", \"omru\": " << (rec.present ? "true" : "false")
		    << ", \"record_error\": " << json_text(rec.error)
		    << ", \"model\": " << json_text(rec.model)
		    << ", \"predicted_s\": " << json_num(rec.predicted_s)
		    << ", \"error_pct\": " << json_num(r.error_pct)
		    << ", \"profile\": " << json_text(rec.profile)
		    << ", \"profiled\": " << (rec.profiled() ? "true" : "false")
		    << ", \"epochs\": " << json_num(rec.epochs)
		    << ", \"epochs_done\": " << json_num(rec.epochs_done)
		    << ", \"epoch_s\": " << json_num(rec.epoch_s)
		    << ", \"samples_s\": " << json_num(rec.samples_s)
		    << ", \"data_wait\": " << json_num(rec.data_wait)
		    << ", \"loader_workers\": "
		    << (rec.workers > 0 ? std::to_string(rec.workers) : "null")
		    << ", \"resizes\": [";
		for (size_t k = 0; k < rec.resizes.size(); k++) {
			const CommentResize &z = rec.resizes[k];
			out << (k ? ", " : "") << "{\"at\": "
			    << json_text(local_time_text(z.at_s)) << ", \"from\": " << z.from
			    << ", \"to\": " << z.to << ", \"cost_s\": " << json_num(z.cost_s)
			    << "}";
		}
		out << "], \"training_phase\": ";
		if (rec.phase)
			out << "{\"steps\": " << json_num(rec.phase->steps)
			    << ", \"first_drop\": " << json_num(rec.phase->first_drop)
			    << ", \"recent_drop\": " << json_num(rec.phase->recent_drop) << "}";
		else
			out << "null";
		out << "}";
	}
	out << (jobs.empty() ? "" : "\n") << "],\n \"summary\": " << summary_json(s);
	if (base)
		out << ",\n \"comparison\": {\"baseline\": " << json_string(base->name)
		    << ", \"this\": " << json_string(name)
		    << ", \"baseline_summary\": " << summary_json(base->stats)
		    << ", \"ratios\": {\"makespan\": "
		    << json_num(ratio(s.makespan_s, base->stats.makespan_s))
		    << ", \"mean_jct\": " << json_num(ratio(s.mean_jct_s, base->stats.mean_jct_s))
		    << ", \"gpu_utilization\": "
		    << json_num(ratio(s.gpu_utilization, base->stats.gpu_utilization)) << "}"
		    << ", \"per_job\": " << per_job_json(pair_jobs(base->jobs, jobs)) << "}";
	out << "}\n";
}

} // namespace report
} // namespace omru
