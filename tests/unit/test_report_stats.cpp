// test_report_stats.cpp - omru-report's reading of sacct and sinfo output
// and its numbers: a job's phase, wait, runtime and prediction error; the
// window's makespan, GPU utilization, mean JCT, and median and p90 of the
// error.  Expected values are worked out by hand in the comments.
#include "check_cxx.hpp"

#include <cstdlib>
#include <sstream>
#include <ctime>
#include <string>
#include <vector>

#include "report/cluster_gpus.hpp"
#include "report/colocation_observed.hpp"
#include "report/report_stats.hpp"
#include "report/sacct_jobs.hpp"

using namespace omru::report;

namespace {

// One sacct line; times are minutes after 12:00 on 2026-11-22 (UTC, see
// main), or "Unknown".
std::string line(const std::string &id, const std::string &state,
		 const std::string &submit, const std::string &start,
		 const std::string &end, const std::string &tres,
		 const std::string &nodes, const std::string &comment)
{
	return id + "|train|alice|" + state + "|" + submit + "|" + start + "|" +
	       end + "|" + tres + "|" + nodes + "|" + comment + "\n";
}

std::string at(int minutes)
{
	char buf[32];
	std::snprintf(buf, sizeof(buf), "2026-11-22T%02d:%02d:00",
		      12 + minutes / 60, minutes % 60);
	return buf;
}

std::vector<SacctJob> parsed(const std::string &text,
			     std::vector<std::string> *warnings = nullptr)
{
	std::vector<std::string> w;
	auto jobs = parse_sacct("dump", text, warnings ? *warnings : w);
	return jobs;
}

JobReport one_job(const std::string &text)
{
	std::vector<SacctJob> jobs = parsed(text);
	ck_assert_int_eq(jobs.size(), 1);
	std::vector<std::string> w;
	return report_job(jobs[0], w);
}

std::vector<JobReport> reports(const std::string &text)
{
	std::vector<JobReport> out;
	std::vector<std::string> w;
	for (SacctJob &j : parsed(text))
		out.push_back(report_job(j, w));
	return out;
}

bool has_warning(const std::vector<std::string> &w, const std::string &part)
{
	for (const std::string &s : w)
		if (s.find(part) != std::string::npos)
			return true;
	return false;
}

const char kTres4[] = "billing=16,cpu=16,gres/gpu=4,mem=64G,node=1";

} // namespace

// ---- median and percentiles ----------------------------------------------

START_TEST(test_median_of_an_odd_count_is_the_middle_value)
{
	ck_assert_double_eq(median({ 30, 10, 20 }), 20);
}
END_TEST

START_TEST(test_median_of_an_even_count_is_the_mean_of_the_middle_two)
{
	ck_assert_double_eq(median({ 40, 10, 30, 20 }), 25);
}
END_TEST

START_TEST(test_p90_is_the_nearest_rank)
{
	// Ten values: rank ceil(9) = 9, the 9th smallest.
	ck_assert_double_eq(nearest_rank({ 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 }, 90), 9);
	// Four values: rank ceil(3.6) = 4, the largest.
	ck_assert_double_eq(nearest_rank({ 5, 1, 3, 2 }, 90), 5);
	ck_assert_double_eq(nearest_rank({ 7 }, 90), 7);
}
END_TEST

START_TEST(test_median_and_p90_of_nothing_are_nan)
{
	ck_assert(std::isnan(median({})));
	ck_assert(std::isnan(nearest_rank({}, 90)));
}
END_TEST

// ---- sacct lines ---------------------------------------------------------

START_TEST(test_sacct_line_is_read_field_by_field)
{
	auto jobs = parsed(line("1001", "CANCELLED by 1000", at(0), at(2), at(12),
				"billing=8,cpu=8,gres/gpu=6,node=2", "n[1-2]",
				"omru: gpus=6"));
	ck_assert_int_eq(jobs.size(), 1);
	const SacctJob &j = jobs[0];
	ck_assert_string_eq(j.id, "1001");
	ck_assert_string_eq(j.name, "train");
	ck_assert_string_eq(j.user, "alice");
	ck_assert_string_eq(j.state, "CANCELLED");
	ck_assert_double_eq(j.start_s - j.submit_s, 120);
	ck_assert_double_eq(j.end_s - j.start_s, 600);
	ck_assert_int_eq(j.gpus, 6);
	ck_assert_int_eq(j.nodes.size(), 2);
	ck_assert_string_eq(j.nodes[0], "n1");
	ck_assert_string_eq(j.nodes[1], "n2");
	ck_assert_string_eq(j.admin_comment, "omru: gpus=6");
	ck_assert_int_eq(j.line, 1);
}
END_TEST

START_TEST(test_admin_comment_keeps_bars_and_continues_over_newlines)
{
	std::vector<std::string> w;
	auto jobs = parsed(line("7", "COMPLETED", at(0), at(0), at(1), kTres4, "n1",
				"a|b|c|d|e|f|g|h|i|j omru: gpus=4") +
			   "second line of the comment\n" +
			   line("8", "COMPLETED", at(0), at(0), at(1), kTres4, "n1", ""),
			   &w);
	ck_assert_int_eq(jobs.size(), 2);
	ck_assert_string_eq(jobs[0].admin_comment,
			    "a|b|c|d|e|f|g|h|i|j omru: gpus=4\nsecond line of the comment");
	ck_assert_int_eq(jobs[1].line, 3);
	ck_assert_int_eq(w.size(), 0);
}
END_TEST

START_TEST(test_line_before_the_first_job_is_skipped_with_a_warning)
{
	std::vector<std::string> w;
	auto jobs = parsed("JobID|JobName\n" +
			   line("9", "COMPLETED", at(0), at(0), at(1), kTres4, "n1", ""),
			   &w);
	ck_assert_int_eq(jobs.size(), 1);
	ck_assert(has_warning(w, "dump:1: not a sacct line"));
}
END_TEST

START_TEST(test_unknown_and_none_times_are_nan_without_warning)
{
	std::vector<std::string> w;
	auto jobs = parsed(line("10", "PENDING", at(0), "Unknown", "Unknown", "",
				"None assigned", "") +
			   line("11", "CANCELLED", at(0), "None", at(5), "", "None assigned", ""),
			   &w);
	ck_assert(std::isnan(jobs[0].start_s));
	ck_assert(std::isnan(jobs[0].end_s));
	ck_assert(jobs[0].nodes.empty());
	ck_assert(std::isnan(jobs[1].start_s));
	ck_assert(!std::isnan(jobs[1].end_s));
	ck_assert_int_eq(w.size(), 0);
}
END_TEST

START_TEST(test_unreadable_time_and_nodelist_warn_naming_line_and_job)
{
	std::vector<std::string> w;
	parsed(line("12", "COMPLETED", "yesterday", at(0), at(1), kTres4, "n[1-", ""), &w);
	ck_assert(has_warning(w, "dump:1: job 12: Submit 'yesterday' is not a time"));
	ck_assert(has_warning(w, "dump:1: job 12: NodeList"));
}
END_TEST

START_TEST(test_sacct_time_is_exactly_the_standard_format)
{
	ck_assert_double_eq(parse_sacct_time("2026-11-22T13:00:00") -
				    parse_sacct_time("2026-11-22T12:00:00"),
			    3600);
	ck_assert_double_eq(parse_sacct_time("2026-11-23T00:00:00") -
				    parse_sacct_time("2026-11-22T23:59:59"),
			    1);
	for (const char *bad : { "", "Unknown", "None", "2026-11-22 12:00:00",
				 "2026-11-22T12:00", "2026-13-22T12:00:00",
				 "2026-11-22T24:00:00", "2026-11-22T12:00:0x",
				 "+026-11-22T12:00:00" })
		ck_assert_msg(std::isnan(parse_sacct_time(bad)), "'%s' read", bad);
}
END_TEST

START_TEST(test_alloc_tres_gpus_plain_typed_and_none)
{
	ck_assert_int_eq(alloc_tres_gpus("billing=4,cpu=4,gres/gpu=4,mem=16G,node=1"), 4);
	// Slurm lists the typed entry too; the plain one is the total.
	ck_assert_int_eq(alloc_tres_gpus("cpu=8,gres/gpu:a100=2,gres/gpu=2,node=1"), 2);
	ck_assert_int_eq(alloc_tres_gpus("cpu=8,gres/gpu:a100=2,gres/gpu:t4=3"), 5);
	ck_assert_int_eq(alloc_tres_gpus("cpu=8,mem=1G,node=1"), 0);
	ck_assert_int_eq(alloc_tres_gpus(""), 0);
	ck_assert_int_eq(alloc_tres_gpus("gres/gpumem=40G,gres/gpu=1"), 1);
	ck_assert_int_eq(alloc_tres_gpus("gres/gpu=four"), -1);
}
END_TEST

// ---- a job's numbers -----------------------------------------------------

START_TEST(test_finished_job_has_wait_runtime_jct_and_error)
{
	// Submitted 12:00, started 12:02, ended 12:17: wait 120 s, real 900 s,
	// JCT 1020 s; predicted 800 s: (900 - 800) / 800 = +12.5%.
	JobReport r = one_job(line("1", "COMPLETED", at(0), at(2), at(17), kTres4, "n1",
				   "omru: gpus=4 predicted_s=800 profile=measured "
				   "model=resnet50 samples_s=4890 data_wait=0.031"));
	ck_assert(r.phase == JobPhase::Finished);
	ck_assert_double_eq(r.wait_s, 120);
	ck_assert_double_eq(r.real_s, 900);
	ck_assert_double_eq(r.jct_s, 1020);
	ck_assert_double_eq(r.error_pct, 12.5);
	ck_assert(r.record.present);
	ck_assert_string_eq(r.record.model, "resnet50");
	ck_assert_string_eq(r.record.profile, "measured");
	ck_assert_double_eq(r.record.samples_s, 4890);
	ck_assert_double_eq(r.record.data_wait, 0.031);
	ck_assert(!r.record.profiled());
}
END_TEST

START_TEST(test_job_that_ran_shorter_has_a_negative_error)
{
	// real 600 s, predicted 800 s: -25%.
	JobReport r = one_job(line("2", "COMPLETED", at(0), at(0), at(10), kTres4, "n1",
				   "omru: predicted_s=800"));
	ck_assert_double_eq(r.error_pct, -25);
}
END_TEST

START_TEST(test_killed_job_has_a_runtime_but_no_error)
{
	JobReport r = one_job(line("3", "CANCELLED by 0", at(0), at(1), at(3), kTres4,
				   "n1", "omru: predicted_s=800"));
	ck_assert(r.phase == JobPhase::Finished);
	ck_assert_double_eq(r.real_s, 120);
	ck_assert(std::isnan(r.error_pct));
}
END_TEST

START_TEST(test_job_without_prediction_has_no_error)
{
	JobReport plain = one_job(line("4", "COMPLETED", at(0), at(1), at(3), kTres4, "n1", ""));
	ck_assert(!plain.record.present);
	ck_assert(std::isnan(plain.error_pct));
	JobReport zero = one_job(line("5", "COMPLETED", at(0), at(1), at(3), kTres4, "n1",
				      "omru: predicted_s=0"));
	ck_assert(std::isnan(zero.error_pct));
}
END_TEST

START_TEST(test_job_priced_at_its_time_limit_has_no_error)
{
	JobReport limit = one_job(line("6", "COMPLETED", at(0), at(1), at(3), kTres4, "n1",
				       "omru: predicted_s=3600 profile=default"));
	ck_assert(std::isnan(limit.error_pct));
	JobReport site = one_job(line("7", "COMPLETED", at(0), at(1), at(3), kTres4, "n1",
				      "omru: predicted_s=100 profile=site"));
	ck_assert_double_eq(site.error_pct, 20);
}
END_TEST

START_TEST(test_phases_follow_the_times)
{
	auto r = reports(line("6", "RUNNING", at(0), at(1), "Unknown", kTres4, "n1", "") +
			 line("7", "PENDING", at(0), "Unknown", "Unknown", "", "None assigned", "") +
			 line("8", "CANCELLED", at(0), "None", at(4), "", "None assigned", ""));
	ck_assert(r[0].phase == JobPhase::Running);
	ck_assert_double_eq(r[0].wait_s, 60);
	ck_assert(std::isnan(r[0].real_s));
	ck_assert(r[1].phase == JobPhase::Pending);
	ck_assert(std::isnan(r[1].wait_s));
	ck_assert(r[2].phase == JobPhase::NotStarted);
	ck_assert(std::isnan(r[2].real_s));
}
END_TEST

START_TEST(test_malformed_record_is_ignored_with_a_warning)
{
	std::vector<SacctJob> jobs = parsed(line("9", "COMPLETED", at(0), at(1), at(3),
					     kTres4, "n1", "omru: model=m predicted_s"));
	std::vector<std::string> w;
	JobReport r = report_job(jobs[0], w);
	ck_assert(!r.record.present);
	ck_assert_string_eq(r.record.model, "");
	ck_assert(has_warning(w, "'predicted_s' is not KEY=VALUE"));
	ck_assert(has_warning(w, "record ignored"));
	ck_assert(std::isnan(r.error_pct));
}
END_TEST

START_TEST(test_bad_values_are_dropped_one_by_one)
{
	std::vector<SacctJob> jobs = parsed(line("10", "COMPLETED", at(0), at(1), at(3),
					     kTres4, "n1",
					     "omru: model=m predicted_s=soon "
					     "samples_s=-1 profiling=4,2 epochs=90"));
	std::vector<std::string> w;
	JobReport r = report_job(jobs[0], w);
	ck_assert(r.record.present);
	ck_assert_string_eq(r.record.model, "m");
	ck_assert_double_eq(r.record.epochs, 90);
	ck_assert(std::isnan(r.record.predicted_s));
	ck_assert(std::isnan(r.record.samples_s));
	ck_assert(r.record.profiling.empty());
	ck_assert(has_warning(w, "predicted_s 'soon' is not a number >= 0"));
	ck_assert(has_warning(w, "samples_s '-1'"));
	ck_assert(has_warning(w, "profiling: count list '4,2'"));
}
END_TEST

START_TEST(test_profiled_by_profiling_counts_or_profile_time)
{
	JobReport told = one_job(line("11", "COMPLETED", at(0), at(1), at(3), kTres4,
				      "n1", "omru: profiling=1,2,4"));
	ck_assert(told.record.profiled());
	ck_assert_int_eq(told.record.profiling.size(), 3);
	JobReport spent = one_job(line("12", "COMPLETED", at(0), at(1), at(3), kTres4,
				       "n1", "omru: profile_s=12.5"));
	ck_assert(spent.record.profiled());
	JobReport none = one_job(line("13", "COMPLETED", at(0), at(1), at(3), kTres4,
				      "n1", "omru: profile_s=0"));
	ck_assert(!none.record.profiled());
}
END_TEST

// ---- the window ----------------------------------------------------------

// Four finished jobs on an 8-GPU cluster, one running, one pending:
//   101  4 GPUs  submit 0   start 0   end 10 min  predicted 500 s  real 600  +20%
//   102  2 GPUs  submit 0   start 5   end 25      predicted 1500   real 1200 -20%
//   103  2 GPUs  submit 10  start 10  end 20      predicted 480    real 600  +25%
//   104  4 GPUs  submit 20  start 20  end 40      CANCELLED        real 1200 (no error)
//   105  RUNNING from 30; 106 PENDING
// makespan 0 .. 40 min = 2400 s; GPU-s 4x600 + 2x1200 + 2x600 + 4x1200
// = 10800; utilization 10800 / (8 x 2400) = 0.5625; JCT 600, 1500, 600,
// 1200: mean 975; |error| 20, 20, 25: median 20, p90 (rank 3) 25.
std::string window_dump()
{
	return line("101", "COMPLETED", at(0), at(0), at(10), kTres4, "n1",
		    "omru: predicted_s=500") +
	       line("102", "COMPLETED", at(0), at(5), at(25), "gres/gpu=2", "n2",
		    "omru: predicted_s=1500") +
	       line("103", "COMPLETED", at(10), at(10), at(20), "gres/gpu=2", "n2",
		    "omru: predicted_s=480") +
	       line("104", "CANCELLED by 0", at(20), at(20), at(40), kTres4, "n1",
		    "omru: predicted_s=100") +
	       line("105", "RUNNING", at(30), at(30), "Unknown", kTres4, "n1", "") +
	       line("106", "PENDING", at(35), "Unknown", "Unknown", "", "None assigned", "");
}

START_TEST(test_window_counts_every_job_by_phase)
{
	auto jobs = reports(window_dump());
	ck_assert_int_eq(jobs.size(), 6);
	WindowStats s = window_stats(jobs, 8);
	ck_assert_int_eq(s.jobs, 6);
	ck_assert_int_eq(s.finished, 4);
	ck_assert_int_eq(s.running, 1);
	ck_assert_int_eq(s.pending, 1);
	ck_assert_int_eq(s.not_started, 0);
}
END_TEST

START_TEST(test_window_numbers_worked_by_hand)
{
	WindowStats s = window_stats(reports(window_dump()), 8);
	ck_assert_double_eq(s.makespan_s, 2400);
	ck_assert_double_eq(s.gpu_seconds, 10800);
	ck_assert_double_eq_tol(s.gpu_utilization, 0.5625, 1e-12);
	ck_assert_double_eq(s.mean_jct_s, 975);
	ck_assert_int_eq(s.predicted, 3);
	ck_assert_double_eq_tol(s.error_median_pct, 20, 1e-9);
	ck_assert_double_eq_tol(s.error_p90_pct, 25, 1e-9);
}
END_TEST

START_TEST(test_utilization_is_unknown_without_cluster_gpus)
{
	WindowStats s = window_stats(reports(window_dump()), 0);
	ck_assert_int_eq(s.cluster_gpus, 0);
	ck_assert(std::isnan(s.gpu_utilization));
	ck_assert_double_eq(s.gpu_seconds, 10800);
}
END_TEST

START_TEST(test_window_without_finished_jobs_has_no_numbers)
{
	WindowStats s = window_stats(
		reports(line("1", "RUNNING", at(0), at(1), "Unknown", kTres4, "n1", "")), 8);
	ck_assert_int_eq(s.finished, 0);
	ck_assert(std::isnan(s.makespan_s));
	ck_assert(std::isnan(s.gpu_utilization));
	ck_assert(std::isnan(s.mean_jct_s));
	ck_assert(std::isnan(s.error_median_pct));
	ck_assert_double_eq(s.gpu_seconds, 0);
}
END_TEST

// ---- sinfo ---------------------------------------------------------------

START_TEST(test_gres_gpu_forms)
{
	ck_assert_int_eq(gres_gpus("gpu:4"), 4);
	ck_assert_int_eq(gres_gpus("gpu:tesla:4"), 4);
	ck_assert_int_eq(gres_gpus("gpu:4(S:0-1)"), 4);
	ck_assert_int_eq(gres_gpus("gpu:a100:4(S:0,1),gpu:t4:2(S:1)"), 6);
	ck_assert_int_eq(gres_gpus("gpu:a100"), 1);
	ck_assert_int_eq(gres_gpus("gpu"), 1);
	ck_assert_int_eq(gres_gpus("(null)"), 0);
	ck_assert_int_eq(gres_gpus("mps:100,gpu:2"), 2);
	ck_assert_int_eq(gres_gpus("gpuxyz:3"), 0);
	ck_assert_int_eq(gres_gpus("gpu:a100:x"), -1);
	ck_assert_int_eq(gres_gpus("gpu:1K"), -1);
}
END_TEST

START_TEST(test_sinfo_nodes_count_once_across_partitions)
{
	std::vector<std::string> w;
	auto nodes = sinfo_node_gpus("n1 gpu:4\nn2 gpu:tesla:4(S:0-1)\n"
				     "n1 gpu:4\nlogin (null)\nn[3-4] gpu:2\n", w);
	ck_assert_int_eq(nodes.size(), 5);
	int total = 0;
	for (const auto &n : nodes)
		total += n.second;
	ck_assert_int_eq(total, 12);
	ck_assert_int_eq(nodes.at("n4"), 2);
	ck_assert_int_eq(w.size(), 0);
}
END_TEST

START_TEST(test_sinfo_bad_lines_are_skipped_with_a_warning)
{
	std::vector<std::string> w;
	auto nodes = sinfo_node_gpus("n1\nn2 gpu:x:y\nn3 gpu:2\n", w);
	ck_assert_int_eq(nodes.size(), 1);
	ck_assert_int_eq(nodes.at("n3"), 2);
	ck_assert(has_warning(w, "sinfo:1:"));
	ck_assert(has_warning(w, "sinfo:2: Gres 'gpu:x:y'"));
}
END_TEST


// ---- co-location (--colocation-out) ---------------------------------------

namespace {

const char kTres1[] = "billing=4,cpu=4,gres/gpu=1,mem=16G,node=1";

std::string omru_job(const std::string &id, const char *model, int start, int end,
		     const std::string &node, const char *state = "COMPLETED")
{
	return line(id, state, at(0), at(start), at(end), kTres1, node,
		    std::string("omru: gpus=1 predicted_s=600 profile=site model=") + model +
			    " epochs=10");
}

} // namespace

START_TEST(test_colocation_measures_jobs_beside_one_model)
{
	// a alone on n1: 10 epochs in 10 min, 60 s each (the reference).
	// a beside b on n2 for its whole run: 15 min, 90 s an epoch: 1.5.
	// b (and c) beside a: none ran alone, nothing to compare with.
	// a on n3 beside b, then c: two models, left out.
	// a on n4 beside b for a third of its run only: left out.
	// a on n5 beside another a all along (both 12 min): 1.2 each side.
	std::vector<JobReport> jobs = reports(
		omru_job("1", "a", 0, 10, "n1") + omru_job("2", "a", 0, 15, "n2") +
		omru_job("3", "b", 0, 15, "n2") + omru_job("4", "a", 0, 12, "n3") +
		omru_job("5", "b", 0, 6, "n3") + omru_job("6", "c", 6, 12, "n3") +
		omru_job("7", "a", 20, 32, "n4") + omru_job("8", "b", 20, 24, "n4") +
		omru_job("9", "a", 40, 52, "n5") + omru_job("10", "a", 40, 52, "n5") +
		omru_job("11", "a", 60, 70, "n1", "FAILED"));
	ColocationFindings f = observe_colocation(jobs);
	ck_assert_int_eq(f.alone, 1);
	ck_assert_int_eq(f.mixed, 2);        // 4 (two models), 7 (a third)
	ck_assert_int_eq(f.no_reference, 4); // b and c ran alone nowhere: 3, 5, 6, 8
	ck_assert_int_eq(f.observations.size(), 3);
	std::ostringstream out;
	write_colocation_pairs(out, f);
	ck_assert_string_eq(out.str(), "model_a,model_b,slowdown_a,slowdown_b,samples\n"
				       "a,a,1.200,1.200,2\n"
				       "a,b,1.500,,1\n");
}
END_TEST

int main(void)
{
	// The dumps' times are local times; fix the zone so days have 24 h.
	setenv("TZ", "UTC", 1);
	tzset();
	Suite *s = suite_create("report_stats");
	TCase *pct = tcase_create("percentiles");
	tcase_add_test(pct, test_median_of_an_odd_count_is_the_middle_value);
	tcase_add_test(pct, test_median_of_an_even_count_is_the_mean_of_the_middle_two);
	tcase_add_test(pct, test_p90_is_the_nearest_rank);
	tcase_add_test(pct, test_median_and_p90_of_nothing_are_nan);
	suite_add_tcase(s, pct);
	TCase *sacct = tcase_create("sacct");
	tcase_add_test(sacct, test_sacct_line_is_read_field_by_field);
	tcase_add_test(sacct, test_admin_comment_keeps_bars_and_continues_over_newlines);
	tcase_add_test(sacct, test_line_before_the_first_job_is_skipped_with_a_warning);
	tcase_add_test(sacct, test_unknown_and_none_times_are_nan_without_warning);
	tcase_add_test(sacct, test_unreadable_time_and_nodelist_warn_naming_line_and_job);
	tcase_add_test(sacct, test_sacct_time_is_exactly_the_standard_format);
	tcase_add_test(sacct, test_alloc_tres_gpus_plain_typed_and_none);
	suite_add_tcase(s, sacct);
	TCase *job = tcase_create("job");
	tcase_add_test(job, test_finished_job_has_wait_runtime_jct_and_error);
	tcase_add_test(job, test_job_that_ran_shorter_has_a_negative_error);
	tcase_add_test(job, test_killed_job_has_a_runtime_but_no_error);
	tcase_add_test(job, test_job_without_prediction_has_no_error);
	tcase_add_test(job, test_job_priced_at_its_time_limit_has_no_error);
	tcase_add_test(job, test_phases_follow_the_times);
	tcase_add_test(job, test_malformed_record_is_ignored_with_a_warning);
	tcase_add_test(job, test_bad_values_are_dropped_one_by_one);
	tcase_add_test(job, test_profiled_by_profiling_counts_or_profile_time);
	suite_add_tcase(s, job);
	TCase *window = tcase_create("window");
	tcase_add_test(window, test_window_counts_every_job_by_phase);
	tcase_add_test(window, test_window_numbers_worked_by_hand);
	tcase_add_test(window, test_utilization_is_unknown_without_cluster_gpus);
	tcase_add_test(window, test_window_without_finished_jobs_has_no_numbers);
	suite_add_tcase(s, window);
	TCase *sinfo = tcase_create("sinfo");
	tcase_add_test(sinfo, test_gres_gpu_forms);
	tcase_add_test(sinfo, test_sinfo_nodes_count_once_across_partitions);
	tcase_add_test(sinfo, test_sinfo_bad_lines_are_skipped_with_a_warning);
	tcase_add_test(sinfo, test_colocation_measures_jobs_beside_one_model);
	suite_add_tcase(s, sinfo);
	return run_suite(s);
}
