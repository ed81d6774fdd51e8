// test_validator.cpp - `omru-sim validate` finds every broken rule of a
// schedule (doc/sim-formats.md) and accepts schedules that keep them.
#include "sim_fixture.hpp"

using namespace omru;
using namespace omru_test;

// Cluster 2x2; model m: 1 GPU 10 s/epoch, 2 GPUs 6 s packed, 8 s over two
// nodes; 3 GPUs has no row.  Job a (submitted at 0) and b (at 5) have 1
// epoch each and may use 1-2 GPUs.
static Inputs inputs()
{
	return make_inputs("2x2",
			   "model,gpus,epoch_s,nodes\nm,1,10,1\nm,2,6,1\nm,2,8,2\n",
			   "job_id,submit_s,model,epochs,gpus,gpus_min,gpus_max\n"
			   "a,0,m,1,1,1,2\nb,5,m,1,1,1,2\n");
}

static std::vector<Violation> check(const char *rows, double overhead = 0)
{
	static Inputs in = inputs();
	std::string text = std::string("job_id,start_s,end_s,gpus,nodes,epochs\n") + rows;
	Schedule s = schedule_from_csv(CsvTable::parse("s.csv", text), in.workload);
	return validate_schedule(in.cluster, in.profiles, in.workload, s, overhead);
}

static std::string only(const std::vector<Violation> &v)
{
	ck_assert_int_eq(v.size(), 1);
	return "line " + std::to_string(v[0].line) + ": " + v[0].message;
}

START_TEST(test_valid_schedule_has_no_violation)
{
	ck_assert_int_eq(check("a,0,6,2,0;0,1\nb,6,16,1,1,1\n").size(), 0);
	// Split across GPU sets; the second segment pays the overhead.
	ck_assert_int_eq(check("a,0,5,1,0,0.5\na,5,13,2,0;1,0.5\nb,5,15,1,1,1\n", 4).size(), 0);
}
END_TEST

START_TEST(test_over_capacity_is_reported)
{
	ck_assert_string_eq(only(check("a,0,6,2,0;0,1\nb,5,15,1,0,1\n")),
			    "line 3: job b: node 0 runs 3 GPUs at 5 s; it has 2");
}
END_TEST

START_TEST(test_back_to_back_segments_do_not_overlap)
{
	ck_assert_int_eq(check("a,0,6,2,0;0,1\nb,6,16,1,0,1\n").size(), 0);
}
END_TEST

START_TEST(test_too_short_segment_is_reported)
{
	ck_assert_string_eq(only(check("a,0,9,1,0,1\nb,5,15,1,1,1\n")),
			    "line 2: job a: lasts 9 s but 1 epochs x 10 s need 10 s");
	// The spread row (8 s) applies to 2 GPUs over two nodes.
	ck_assert_string_eq(only(check("a,0,7,2,0;1,1\nb,7,17,1,1,1\n")),
			    "line 2: job a: lasts 7 s but 1 epochs x 8 s need 8 s");
}
END_TEST

START_TEST(test_resumed_segment_must_pay_the_restart_overhead)
{
	ck_assert_string_eq(only(check("a,0,5,1,0,0.5\na,5,10,1,0,0.5\nb,5,15,1,1,1\n", 2)),
			    "line 3: job a: lasts 5 s but 0.5 epochs x 10 s + restart overhead 2 s need 7 s");
}
END_TEST

START_TEST(test_missing_epochs_are_reported)
{
	ck_assert_string_eq(only(check("a,0,5,1,0,0.5\nb,5,15,1,1,1\n")),
			    "line 2: job a: segments add up to 0.5 epochs; the job has 1");
	ck_assert_string_eq(only(check("a,0,10,1,0,1\n")),
			    "line 0: job b (workload line 3) has no segment: its 1 epochs never ran");
}
END_TEST

START_TEST(test_segment_before_submit_is_reported)
{
	ck_assert_string_eq(only(check("a,0,10,1,0,1\nb,4,14,1,1,1\n")),
			    "line 3: job b: starts at 4 s, before the job's submit_s 5 s");
}
END_TEST

START_TEST(test_overlapping_segments_of_one_job_are_reported)
{
	ck_assert_string_eq(only(check("a,0,5,1,0,0.5\na,4,9,1,1,0.5\nb,5,15,1,1,1\n")),
			    "line 3: job a: segment 4 s..9 s overlaps the job's segment 0 s..5 s (line 2)");
}
END_TEST

START_TEST(test_spread_without_profile_row_is_reported)
{
	Inputs in = make_inputs("2x2", "model,gpus,epoch_s,nodes\nm,2,6,1\n",
				"job_id,submit_s,model,epochs,gpus\na,0,m,1,2\n");
	Schedule s = schedule_from_csv(
		CsvTable::parse("s.csv", "job_id,start_s,end_s,gpus,nodes,epochs\na,0,9,2,0;1,1\n"),
		in.workload);
	ck_assert_string_eq(only(validate_schedule(in.cluster, in.profiles, in.workload, s, 0)),
			    "line 2: job a: the profiles have no row for model m on 2 GPUs over 2 node(s): it cannot run there");
}
END_TEST

START_TEST(test_count_outside_the_jobs_range_is_reported)
{
	Inputs in = make_inputs("1x4", "model,gpus,epoch_s\nm,1,10\nm,2,6\n",
				"job_id,submit_s,model,epochs,gpus\na,0,m,1,1\n");
	Schedule s = schedule_from_csv(
		CsvTable::parse("s.csv", "job_id,start_s,end_s,gpus,nodes,epochs\na,0,6,2,0;0,1\n"),
		in.workload);
	ck_assert_string_eq(only(validate_schedule(in.cluster, in.profiles, in.workload, s, 0)),
			    "line 2: job a: 2 GPUs is outside the job's range 1..1");
}
END_TEST

START_TEST(test_node_outside_the_cluster_is_reported)
{
	ck_assert_string_eq(only(check("a,0,10,1,2,1\nb,5,15,1,1,1\n")),
			    "line 2: job a: node 2 does not exist (cluster 2x2)");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("validator");
	TCase *tc = tcase_create("rules");
	tcase_add_test(tc, test_valid_schedule_has_no_violation);
	tcase_add_test(tc, test_over_capacity_is_reported);
	tcase_add_test(tc, test_back_to_back_segments_do_not_overlap);
	tcase_add_test(tc, test_too_short_segment_is_reported);
	tcase_add_test(tc, test_resumed_segment_must_pay_the_restart_overhead);
	tcase_add_test(tc, test_missing_epochs_are_reported);
	tcase_add_test(tc, test_segment_before_submit_is_reported);
	tcase_add_test(tc, test_overlapping_segments_of_one_job_are_reported);
	tcase_add_test(tc, test_spread_without_profile_row_is_reported);
	tcase_add_test(tc, test_count_outside_the_jobs_range_is_reported);
	tcase_add_test(tc, test_node_outside_the_cluster_is_reported);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
