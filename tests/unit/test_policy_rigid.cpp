// test_policy_rigid.cpp - fifo, backfill, sjf and seq on tiny workloads whose
// schedules were worked out by hand.  Every schedule is also validated.
#include "sim_fixture.hpp"

using namespace omru;
using namespace omru_test;

// m: 1 GPU 10 s/epoch, 2 GPUs 6 s, 3 GPUs 5 s, 4 GPUs 4 s (any spread).
static const char kProfiles[] = "model,gpus,epoch_s\nm,1,10\nm,2,6\nm,3,5\nm,4,4\n";
static const char kHead[] = "job_id,submit_s,model,epochs,gpus,gpus_min,gpus_max\n";

static Inputs on_1x4(const std::string &jobs)
{
	return make_inputs("1x4", kProfiles, (kHead + jobs).c_str());
}

START_TEST(test_fifo_blocks_jobs_behind_one_that_does_not_fit)
{
	// a holds 3 GPUs until 10; b needs all 4; c (1 GPU) could run now but
	// must wait behind b.
	Inputs in = on_1x4("a,0,m,2,3,3,3\nb,1,m,1,4,4,4\nc,2,m,1,1,1,1\n");
	Schedule s = run_policy(in, "fifo");
	ck_assert_segment(segments_of(in, s, "a")[0], 0, 10, 3, 2);
	ck_assert_segment(segments_of(in, s, "b")[0], 10, 14, 4, 1);
	ck_assert_segment(segments_of(in, s, "c")[0], 14, 24, 1, 1);
}
END_TEST

START_TEST(test_backfill_starts_a_job_that_ends_before_the_reservation)
{
	// b's reservation is at 10 (a's estimated end); c needs 5 s from 2.
	Inputs in = on_1x4("a,0,m,2,3,3,3\nb,1,m,1,4,4,4\nc,2,m,0.5,1,1,1\n");
	Schedule s = run_policy(in, "backfill");
	ck_assert_segment(segments_of(in, s, "c")[0], 2, 7, 1, 0.5);
	ck_assert_segment(segments_of(in, s, "b")[0], 10, 14, 4, 1);
}
END_TEST

START_TEST(test_backfill_never_delays_the_reservation)
{
	// c would need 9 s from 2, past b's reservation at 10, and b needs
	// every GPU then: c waits behind b as in fifo.
	Inputs in = on_1x4("a,0,m,2,3,3,3\nb,1,m,1,4,4,4\nc,2,m,0.9,1,1,1\n");
	Schedule s = run_policy(in, "backfill");
	ck_assert_segment(segments_of(in, s, "b")[0], 10, 14, 4, 1);
	ck_assert_segment(segments_of(in, s, "c")[0], 14, 23, 1, 0.9);
}
END_TEST

START_TEST(test_backfill_uses_gpus_the_reservation_leaves_free)
{
	// a: 2 GPUs until 6; b needs 3 at 6, leaving 1 of 4 free then; c (1
	// GPU, 50 s) may take that one at once.
	Inputs in = on_1x4("a,0,m,1,2,2,2\nb,1,m,1,3,3,3\nc,2,m,5,1,1,1\n");
	Schedule s = run_policy(in, "backfill");
	ck_assert_segment(segments_of(in, s, "c")[0], 2, 52, 1, 5);
	ck_assert_segment(segments_of(in, s, "b")[0], 6, 11, 3, 1);
}
END_TEST

START_TEST(test_backfill_trusts_over_estimated_walltimes)
{
	// With walltime = 2 x runtime, a is expected to end at 20, so c (18 s
	// estimated) fits before the reservation and really delays b to 11.
	Inputs in = on_1x4("a,0,m,2,3,3,3\nb,1,m,1,4,4,4\nc,2,m,0.9,1,1,1\n");
	PolicyOptions o;
	o.walltime_factor = 2;
	Schedule s = run_policy(in, "backfill", 0, o);
	ck_assert_segment(segments_of(in, s, "c")[0], 2, 11, 1, 0.9);
	ck_assert_segment(segments_of(in, s, "b")[0], 11, 15, 4, 1);
}
END_TEST

START_TEST(test_sjf_runs_the_shortest_waiting_job_first)
{
	Inputs in = make_inputs("1x1", kProfiles,
				(std::string(kHead) +
				 "a,0,m,5,1,1,1\nb,1,m,2,1,1,1\nc,1,m,1,1,1,1\n").c_str());
	Schedule s = run_policy(in, "sjf");
	ck_assert_segment(segments_of(in, s, "a")[0], 0, 50, 1, 5); // non-preemptive
	ck_assert_segment(segments_of(in, s, "c")[0], 50, 60, 1, 1);
	ck_assert_segment(segments_of(in, s, "b")[0], 60, 80, 1, 2);
}
END_TEST

START_TEST(test_sjf_lets_a_short_job_pass_one_that_does_not_fit)
{
	// At 2 the shortest waiting job (b, 4 GPUs) does not fit; c does.
	Inputs in = on_1x4("a,0,m,2,3,3,3\nb,1,m,0.5,4,4,4\nc,2,m,0.5,1,1,1\n");
	Schedule s = run_policy(in, "sjf");
	ck_assert_segment(segments_of(in, s, "c")[0], 2, 7, 1, 0.5);
	ck_assert_segment(segments_of(in, s, "b")[0], 10, 12, 4, 0.5);
}
END_TEST

START_TEST(test_seq_runs_each_job_alone_on_its_largest_usable_count)
{
	// a may use up to 4 GPUs, b up to 2; one after the other.
	Inputs in = make_inputs("2x2", kProfiles,
				(std::string(kHead) + "a,0,m,1,1,1,4\nb,0,m,1,1,1,2\n").c_str());
	Schedule s = run_policy(in, "seq");
	ck_assert_segment(segments_of(in, s, "a")[0], 0, 4, 4, 1);
	ck_assert_segment(segments_of(in, s, "b")[0], 4, 10, 2, 1);
}
END_TEST

START_TEST(test_rigid_policy_refuses_a_job_larger_than_the_cluster)
{
	Inputs in = on_1x4("big,0,m,1,8,8,8\n");
	auto p = find_policy("fifo")->make({});
	ck_assert_string_eq(p->refuse(in.workload, in.profiles, in.cluster),
			    "job big needs 8 GPUs; the cluster has 4 (line 2 of workload.csv)");
}
END_TEST

START_TEST(test_rigid_policy_refuses_a_count_without_profile_row)
{
	Inputs in = make_inputs("2x4", "model,gpus,epoch_s,nodes\nm,1,10,1\nm,5,3,1\n",
				"job_id,submit_s,model,epochs,gpus\nx,0,m,1,5\n");
	auto p = find_policy("backfill")->make({});
	ck_assert_string_eq(p->refuse(in.workload, in.profiles, in.cluster),
			    "job x: the profiles have no row for model m on 5 GPUs over 2 node(s) (line 2 of workload.csv)");
}
END_TEST

START_TEST(test_every_rigid_policy_schedules_a_shared_philly_window)
{
	Inputs in = shared_inputs("16x4", "philly-8h-3");
	for (const char *policy : { "fifo", "backfill", "sjf", "seq" }) {
		Schedule s = run_policy(in, policy, 30);
		ck_assert_int_ge(s.size(), 160);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("policy_rigid");
	TCase *tc = tcase_create("policies");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_fifo_blocks_jobs_behind_one_that_does_not_fit);
	tcase_add_test(tc, test_backfill_starts_a_job_that_ends_before_the_reservation);
	tcase_add_test(tc, test_backfill_never_delays_the_reservation);
	tcase_add_test(tc, test_backfill_uses_gpus_the_reservation_leaves_free);
	tcase_add_test(tc, test_backfill_trusts_over_estimated_walltimes);
	tcase_add_test(tc, test_sjf_runs_the_shortest_waiting_job_first);
	tcase_add_test(tc, test_sjf_lets_a_short_job_pass_one_that_does_not_fit);
	tcase_add_test(tc, test_seq_runs_each_job_alone_on_its_largest_usable_count);
	tcase_add_test(tc, test_rigid_policy_refuses_a_job_larger_than_the_cluster);
	tcase_add_test(tc, test_rigid_policy_refuses_a_count_without_profile_row);
	tcase_add_test(tc, test_every_rigid_policy_schedules_a_shared_philly_window);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
