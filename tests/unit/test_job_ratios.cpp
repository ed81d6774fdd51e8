// test_job_ratios.cpp - every job against the same job under the baseline:
// the ratios, their summary and the per-account shares, checked against
// values worked out by hand on hand-made schedules (the reader does not
// check a schedule's rules, so these need not be valid ones).
#include "sim_fixture.hpp"

#include "sim/job_ratios.hpp"

using namespace omru;
using namespace omru_test;

static const char kProfiles[] = "model,gpus,epoch_s\nm,1,10\n";

static Schedule schedule(const Inputs &in, const std::string &rows)
{
	return schedule_from_csv(
		CsvTable::parse("s.csv", "job_id,start_s,end_s,gpus,nodes,epochs\n" + rows),
		in.workload);
}

// a, b, c submitted at 0, 2, 0; the baseline ends them at 10, 22, 30.
static Inputs three_jobs()
{
	return make_inputs("1x2", kProfiles,
			   "job_id,submit_s,model,epochs,gpus\n"
			   "a,0,m,1,1\nb,2,m,2,1\nc,0,m,2,1\n");
}

static const char kBaseline[] = "a,0,10,1,0,1\nb,2,22,1,0,2\nc,10,30,1,0,2\n";

START_TEST(test_ratio_is_jct_over_the_baselines_jct)
{
	Inputs in = three_jobs();
	// a ends at 11 (11 / 10), b at 12 (10 / 20), c at 30 as before.
	Schedule s = schedule(in, "a,0,11,1,0,1\nb,2,12,1,0,2\nc,11,30,1,0,2\n");
	std::vector<double> r = job_ratios(in.workload, s, schedule(in, kBaseline));
	ck_assert_int_eq(r.size(), 3);
	// Workload order is submission order: a, c, b.
	ck_assert_double_eq_tol(r[in.workload.index_of("a")], 1.1, 1e-12);
	ck_assert_double_eq_tol(r[in.workload.index_of("b")], 0.5, 1e-12);
	ck_assert_double_eq_tol(r[in.workload.index_of("c")], 1.0, 1e-12);
}
END_TEST

START_TEST(test_one_job_later_by_10pct_of_three_is_a_third_later)
{
	Inputs in = three_jobs();
	Schedule s = schedule(in, "a,0,11,1,0,1\nb,2,12,1,0,2\nc,11,30,1,0,2\n");
	BaselineComparison c = compare_with_baseline(in.workload, s, schedule(in, kBaseline));
	ck_assert_int_eq(c.all.jobs, 3);
	ck_assert_double_eq_tol(c.all.later_share, 1 / 3.0, 1e-12);
	ck_assert_double_eq_tol(c.all.p99_ratio, 1.1, 1e-12); // rank 3 of 3
	ck_assert_double_eq_tol(c.all.worst_ratio, 1.1, 1e-12);
	ck_assert_string_eq(in.workload.jobs[c.all.worst_job].id, "a");
	ck_assert(c.accounts.empty()); // no account column
}
END_TEST

START_TEST(test_later_by_exactly_5pct_is_not_later)
{
	Inputs in = three_jobs();
	Schedule s = schedule(in, "a,0,10.5,1,0,1\nb,2,22,1,0,2\nc,10,30,1,0,2\n");
	BaselineComparison c = compare_with_baseline(in.workload, s, schedule(in, kBaseline));
	ck_assert_double_eq(c.all.later_share, 0);
	ck_assert_double_eq_tol(c.all.worst_ratio, 1.05, 1e-12);
}
END_TEST

START_TEST(test_baseline_against_itself_is_never_later)
{
	Inputs in = three_jobs();
	Schedule b = schedule(in, kBaseline);
	BaselineComparison c = compare_with_baseline(in.workload, b, b);
	ck_assert_double_eq(c.all.later_share, 0);
	ck_assert_double_eq(c.all.p99_ratio, 1);
	ck_assert_double_eq(c.all.worst_ratio, 1);
	// All tie at 1: the worst is the first submitted.
	ck_assert_string_eq(in.workload.jobs[c.all.worst_job].id, "a");
}
END_TEST

START_TEST(test_p99_is_the_nearest_rank_not_the_worst)
{
	// 100 jobs, all equal but j0, which takes 3 x as long: p99 is the
	// 99th smallest ratio (1), the worst is 3.
	std::string w = "job_id,submit_s,model,epochs,gpus\n", base, s;
	for (int i = 0; i < 100; i++) {
		std::string id = "j" + std::to_string(i);
		w += id + ",0,m,1,1\n";
		base += id + ",0,10,1,0,1\n";
		s += id + (i == 0 ? ",0,30,1,0,1\n" : ",0,10,1,0,1\n");
	}
	Inputs in = make_inputs("100x1", kProfiles, w.c_str());
	BaselineComparison c = compare_with_baseline(in.workload, schedule(in, s),
						     schedule(in, base));
	ck_assert_double_eq(c.all.later_share, 0.01);
	ck_assert_double_eq(c.all.p99_ratio, 1);
	ck_assert_double_eq(c.all.worst_ratio, 3);
	ck_assert_string_eq(in.workload.jobs[c.all.worst_job].id, "j0");
}
END_TEST

// three_jobs() with a and c in account x, b in y, and d, without one,
// submitted at 40.
static Inputs accounts()
{
	return make_inputs("1x2", kProfiles,
			   "job_id,submit_s,model,epochs,gpus,account,priority\n"
			   "a,0,m,1,1,x,10\nb,2,m,2,1,y,-2.5\nc,0,m,2,1,x,\nd,40,m,1,1,,0\n");
}

START_TEST(test_accounts_get_their_share_of_gpu_seconds_and_jobs)
{
	Inputs in = accounts();
	Schedule base = schedule(in, std::string(kBaseline) + "d,40,50,1,0,1\n");
	// GPU-seconds: a 11, b 2 x 5 = 10, c 19, d 10; 50 in all.
	Schedule s = schedule(in, "a,0,11,1,0,1\nb,7,12,2,0;0,2\nc,11,30,1,0,2\n"
				  "d,40,50,1,0,1\n");
	BaselineComparison c = compare_with_baseline(in.workload, s, base);
	ck_assert_int_eq(c.accounts.size(), 3);
	const AccountShare &x = c.accounts[0], &y = c.accounts[1], &none = c.accounts[2];
	ck_assert_string_eq(in.workload.accounts[x.account], "x");
	ck_assert_int_eq(x.jobs, 2);
	ck_assert_double_eq(x.job_share, 0.5);
	ck_assert_double_eq_tol(x.gpu_s_share, 30 / 50.0, 1e-12);
	ck_assert_double_eq_tol(x.vs_baseline.later_share, 0.5, 1e-12); // a
	ck_assert_double_eq_tol(x.vs_baseline.worst_ratio, 1.1, 1e-12);
	ck_assert_string_eq(in.workload.accounts[y.account], "y");
	ck_assert_int_eq(y.jobs, 1);
	ck_assert_double_eq_tol(y.gpu_s_share, 10 / 50.0, 1e-12);
	ck_assert_double_eq(y.vs_baseline.later_share, 0);
	ck_assert_double_eq_tol(y.vs_baseline.worst_ratio, 0.5, 1e-12);
	ck_assert_int_eq(none.account, -1);
	ck_assert_int_eq(none.jobs, 1);
	ck_assert_double_eq_tol(none.gpu_s_share, 10 / 50.0, 1e-12);
	ck_assert_double_eq(none.vs_baseline.worst_ratio, 1);
}
END_TEST

START_TEST(test_json_names_the_baseline_worst_jobs_and_accounts)
{
	Inputs in = accounts();
	Schedule base = schedule(in, std::string(kBaseline) + "d,40,50,1,0,1\n");
	Schedule s = schedule(in, "a,0,11,1,0,1\nb,7,12,2,0;0,2\nc,11,30,1,0,2\n"
				  "d,40,50,1,0,1\n");
	ck_assert_string_eq(
		baseline_comparison_json(compare_with_baseline(in.workload, s, base),
					 "backfill", in.workload),
		"\"vs_baseline\": {\"baseline\": \"backfill\", \"later_5pct\": 0.25, "
		"\"p99_ratio\": 1.1, \"worst_ratio\": 1.1, \"worst_job\": \"a\"}, "
		"\"accounts\": ["
		"{\"account\": \"x\", \"gpu_s_share\": 0.6, \"jobs\": 2, \"job_share\": 0.5, "
		"\"later_5pct\": 0.5, \"worst_ratio\": 1.1, \"worst_job\": \"a\"}, "
		"{\"account\": \"y\", \"gpu_s_share\": 0.2, \"jobs\": 1, \"job_share\": 0.25, "
		"\"later_5pct\": 0.0, \"worst_ratio\": 0.5, \"worst_job\": \"b\"}, "
		"{\"account\": null, \"gpu_s_share\": 0.2, \"jobs\": 1, \"job_share\": 0.25, "
		"\"later_5pct\": 0.0, \"worst_ratio\": 1.0, \"worst_job\": \"d\"}]");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("job_ratios");
	TCase *tc = tcase_create("vs_baseline");
	tcase_add_test(tc, test_ratio_is_jct_over_the_baselines_jct);
	tcase_add_test(tc, test_one_job_later_by_10pct_of_three_is_a_third_later);
	tcase_add_test(tc, test_later_by_exactly_5pct_is_not_later);
	tcase_add_test(tc, test_baseline_against_itself_is_never_later);
	tcase_add_test(tc, test_p99_is_the_nearest_rank_not_the_worst);
	tcase_add_test(tc, test_accounts_get_their_share_of_gpu_seconds_and_jobs);
	tcase_add_test(tc, test_json_names_the_baseline_worst_jobs_and_accounts);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
