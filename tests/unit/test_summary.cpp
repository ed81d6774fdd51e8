// test_summary.cpp - the summary's numbers and the makespan lower bound,
// checked against values worked out by hand.
#include "sim_fixture.hpp"

#include "sim/summary.hpp"

using namespace omru;
using namespace omru_test;

// Cluster 1x2; m: 1 GPU 10 s/epoch, 2 GPUs 6 s.  a may use 1-2 GPUs (best
// time 6 s, least area 10 GPU-s); b only 1 (20 s); c arrives at 30.
static Inputs inputs()
{
	return make_inputs("1x2", "model,gpus,epoch_s\nm,1,10\nm,2,6\n",
			   "job_id,submit_s,model,epochs,gpus,gpus_min,gpus_max\n"
			   "a,0,m,1,1,1,2\nb,0,m,2,1,1,1\nc,30,m,1,2,1,2\n");
}

START_TEST(test_lower_bound_is_the_largest_of_job_and_area_bounds)
{
	Inputs in = inputs();
	// c: submitted at 30, 6 s at its best count -> 36; the area after 30
	// (10 GPU-s / 2 GPUs) gives only 35; all jobs' area gives 15; b alone 20.
	ck_assert_double_eq(makespan_lower_bound(in.cluster, in.profiles, in.workload), 36);
}
END_TEST

START_TEST(test_area_bound_wins_when_work_exceeds_the_longest_job)
{
	Inputs in = make_inputs("1x2", "model,gpus,epoch_s\nm,1,10\nm,2,6\n",
				"job_id,submit_s,model,epochs,gpus\n"
				"a,0,m,1,1\nb,0,m,1,1\nc,0,m,1,1\nd,2,m,1,1\n");
	// 4 jobs x 10 GPU-s on 2 GPUs = 20 > 2 + 10.
	ck_assert_double_eq(makespan_lower_bound(in.cluster, in.profiles, in.workload), 20);
}
END_TEST

START_TEST(test_lower_bound_is_measured_from_the_first_submit)
{
	Inputs in = make_inputs("1x2", "model,gpus,epoch_s\nm,1,10\n",
				"job_id,submit_s,model,epochs,gpus\na,100,m,1,1\n");
	ck_assert_double_eq(makespan_lower_bound(in.cluster, in.profiles, in.workload), 10);
}
END_TEST

START_TEST(test_summary_of_a_hand_made_schedule)
{
	Inputs in = inputs();
	Schedule s = schedule_from_csv(
		CsvTable::parse("s.csv", "job_id,start_s,end_s,gpus,nodes,epochs\n"
					 "a,0,10,1,0,1\nb,0,20,1,0,2\nc,31,37,2,0;0,1\n"),
		in.workload);
	Summary r = summarize("x", in.cluster, in.profiles, in.workload, s, 1.5);
	ck_assert_double_eq(r.makespan_s, 37);
	ck_assert_double_eq_tol(r.avg_jct_s, (10 + 20 + 7) / 3.0, 1e-12);
	ck_assert_double_eq(r.p50_jct_s, 10); // nearest rank of 7, 10, 20
	ck_assert_double_eq(r.p99_jct_s, 20);
	ck_assert_double_eq_tol(r.avg_queue_s, 1 / 3.0, 1e-12); // c waited 1 s
	ck_assert_double_eq_tol(r.gpu_utilization, 42 / 74.0, 1e-12);
	ck_assert_double_eq(r.lower_bound_s, 36);
	ck_assert_string_eq(summary_json(r),
			    "{\"policy\": \"x\", \"jobs\": 3, \"makespan_s\": 37.0, "
			    "\"avg_jct_s\": 12.333333, \"p50_jct_s\": 10.0, "
			    "\"p99_jct_s\": 20.0, \"avg_queue_s\": 0.333333, "
			    "\"gpu_utilization\": 0.567568, \"lower_bound_s\": 36.0, "
			    "\"plan_ms\": 1.5}");
}
END_TEST

START_TEST(test_time_waiting_after_preemption_counts_as_queueing)
{
	Inputs in = inputs();
	Schedule s = schedule_from_csv(
		CsvTable::parse("s.csv", "job_id,start_s,end_s,gpus,nodes,epochs\n"
					 "a,0,10,1,0,1\nb,0,10,1,0,1\nb,15,25,1,0,1\nc,30,36,2,0;0,1\n"),
		in.workload);
	Summary r = summarize("x", in.cluster, in.profiles, in.workload, s, 0);
	ck_assert_double_eq_tol(r.avg_queue_s, 5 / 3.0, 1e-12);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("summary");
	TCase *tc = tcase_create("metrics");
	tcase_add_test(tc, test_lower_bound_is_the_largest_of_job_and_area_bounds);
	tcase_add_test(tc, test_area_bound_wins_when_work_exceeds_the_longest_job);
	tcase_add_test(tc, test_lower_bound_is_measured_from_the_first_submit);
	tcase_add_test(tc, test_summary_of_a_hand_made_schedule);
	tcase_add_test(tc, test_time_waiting_after_preemption_counts_as_queueing);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
