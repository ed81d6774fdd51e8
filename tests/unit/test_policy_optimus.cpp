// test_policy_optimus.cpp - optimus (moldable, GPUs to the largest marginal
// gain) on tiny workloads whose schedules were worked out by hand.  Every
// schedule is also validated.
#include <cstdlib>

#include "sim_fixture.hpp"

using namespace omru;
using namespace omru_test;

static const char kHead[] = "job_id,submit_s,model,epochs,gpus,gpus_min,gpus_max\n";
// m: 1 GPU 10 s/epoch, 2 GPUs 6 s (any spread).
static const char kM12[] = "model,gpus,epoch_s\nm,1,10\nm,2,6\n";

static Inputs inputs(const char *cluster, const char *profiles,
		     const std::string &jobs)
{
	return make_inputs(cluster, profiles, (kHead + jobs).c_str());
}

START_TEST(test_extra_gpu_goes_to_the_largest_marginal_gain)
{
	// On 3 GPUs each job gets 1 and one is left.  A second GPU saves
	// flat 10 x (100 - 90) = 100 s but steep 10 x (100 - 50) = 500 s, so
	// steep gets it although flat came first.  When steep ends at 500,
	// flat's 5 epochs left save 5 x 10 = 50 s on 2 GPUs, more than the
	// 30 s overhead: it restarts on 2 (500 + 30 + 5 x 90).
	Inputs in = inputs("1x3",
			   "model,gpus,epoch_s\nflat,1,100\nflat,2,90\n"
			   "steep,1,100\nsteep,2,50\n",
			   "flat,0,flat,10,1,1,2\nsteep,0,steep,10,1,1,2\n");
	Schedule s = run_policy(in, "optimus", 30);
	auto st = segments_of(in, s, "steep");
	ck_assert_int_eq(st.size(), 1);
	ck_assert_segment(st[0], 0, 500, 2, 10);
	auto fl = segments_of(in, s, "flat");
	ck_assert_int_eq(fl.size(), 2);
	ck_assert_segment(fl[0], 0, 500, 1, 5);
	ck_assert_segment(fl[1], 500, 980, 2, 5);
}
END_TEST

START_TEST(test_running_job_is_not_grown_when_the_overhead_outweighs_the_saving)
{
	// As above, but flat's second GPU would save 5 x (100 - 97) = 15 s,
	// less than the 30 s overhead: flat keeps its one GPU to the end.
	Inputs in = inputs("1x3",
			   "model,gpus,epoch_s\nflat,1,100\nflat,2,97\n"
			   "steep,1,100\nsteep,2,50\n",
			   "flat,0,flat,10,1,1,2\nsteep,0,steep,10,1,1,2\n");
	Schedule s = run_policy(in, "optimus", 30);
	ck_assert_segment(segments_of(in, s, "steep")[0], 0, 500, 2, 10);
	auto fl = segments_of(in, s, "flat");
	ck_assert_int_eq(fl.size(), 1);
	ck_assert_segment(fl[0], 0, 1000, 1, 10);
}
END_TEST

START_TEST(test_running_job_is_shrunk_for_a_new_job_and_pays_overhead_on_resume)
{
	// a runs alone on both GPUs.  At 30 (5 epochs done) b arrives and gets
	// its minimum of 1, so a is shrunk to 1 and resumes after 30 s of
	// overhead.  When b ends at 70, a (14 epochs left, 56 s saved on 2
	// GPUs) grows back and pays the overhead again: 70 + 30 + 14 x 6.
	Inputs in = inputs("1x2", kM12, "a,0,m,20,1,1,2\nb,30,m,4,1,1,2\n");
	Schedule s = run_policy(in, "optimus", 30);
	auto a = segments_of(in, s, "a");
	ck_assert_int_eq(a.size(), 3);
	ck_assert_segment(a[0], 0, 30, 2, 5);
	ck_assert_segment(a[1], 30, 70, 1, 1);
	ck_assert_segment(a[2], 70, 184, 2, 14);
	auto b = segments_of(in, s, "b");
	ck_assert_int_eq(b.size(), 1);
	ck_assert_segment(b[0], 30, 70, 1, 4);
}
END_TEST

START_TEST(test_count_without_profile_row_is_never_used)
{
	// No row for 3 GPUs.  Each job gets 1, then a second (a first on the
	// tie); a cannot take the last GPU (2 -> 4 costs 2), so b gets it and
	// both run on 2 GPUs.
	Inputs in = inputs("1x4", "model,gpus,epoch_s\nm,1,100\nm,2,60\nm,4,40\n",
			   "a,0,m,10,1,1,4\nb,0,m,10,1,1,4\n");
	Schedule s = run_policy(in, "optimus", 30);
	auto a = segments_of(in, s, "a");
	ck_assert_int_eq(a.size(), 1);
	ck_assert_segment(a[0], 0, 600, 2, 10);
	auto b = segments_of(in, s, "b");
	ck_assert_int_eq(b.size(), 1);
	ck_assert_segment(b[0], 0, 600, 2, 10);
}
END_TEST

START_TEST(test_gpus_max_is_respected)
{
	// 4 GPUs would be faster and are free, but a allows at most 2.
	Inputs in = inputs("1x4", "model,gpus,epoch_s\nm,1,100\nm,2,60\nm,4,40\n",
			   "a,0,m,10,1,1,2\n");
	Schedule s = run_policy(in, "optimus", 30);
	auto a = segments_of(in, s, "a");
	ck_assert_int_eq(a.size(), 1);
	ck_assert_segment(a[0], 0, 600, 2, 10);
}
END_TEST

START_TEST(test_equal_gains_go_to_the_earlier_job)
{
	// Twin jobs on 3 GPUs: the spare GPU goes to a.  When a ends at 600, b
	// (4 epochs left) grows to 2 at once, with no overhead to pay.
	Inputs in = inputs("1x3", "model,gpus,epoch_s\nm,1,100\nm,2,60\n",
			   "a,0,m,10,1,1,2\nb,0,m,10,1,1,2\n");
	Schedule s = run_policy(in, "optimus", 0);
	auto a = segments_of(in, s, "a");
	ck_assert_int_eq(a.size(), 1);
	ck_assert_segment(a[0], 0, 600, 2, 10);
	auto b = segments_of(in, s, "b");
	ck_assert_int_eq(b.size(), 2);
	ck_assert_segment(b[0], 0, 600, 1, 6);
	ck_assert_segment(b[1], 600, 840, 2, 4);
}
END_TEST

START_TEST(test_job_waits_when_earlier_jobs_hold_every_gpu)
{
	// Minimums go in submission order: a needs both GPUs, so b waits.
	Inputs in = inputs("1x2", kM12, "a,0,m,10,2,2,2\nb,0,m,1,1,1,1\n");
	Schedule s = run_policy(in, "optimus", 30);
	ck_assert_segment(segments_of(in, s, "a")[0], 0, 60, 2, 10);
	ck_assert_segment(segments_of(in, s, "b")[0], 60, 70, 1, 1);
}
END_TEST

START_TEST(test_job_in_restart_overhead_keeps_its_gpus)
{
	// b ends at 10 and a grows to 2 GPUs, paying overhead until 40.  c
	// arrives at 20 and would take one of a's GPUs, but a cannot be
	// stopped before 40: c waits until then.  a's segments from 10 and
	// from 40 hold only overhead (it is shrunk, then grown back when c
	// ends at 70).
	Inputs in = inputs("1x2", kM12,
			   "a,0,m,20,1,1,2\nb,0,m,1,1,1,2\nc,20,m,3,1,1,2\n");
	Schedule s = run_policy(in, "optimus", 30);
	ck_assert_segment(segments_of(in, s, "b")[0], 0, 10, 1, 1);
	auto a = segments_of(in, s, "a");
	ck_assert_int_eq(a.size(), 4);
	ck_assert_segment(a[0], 0, 10, 1, 1);
	ck_assert_segment(a[1], 10, 40, 2, 0);
	ck_assert_segment(a[2], 40, 70, 1, 0);
	ck_assert_segment(a[3], 70, 214, 2, 19);
	auto c = segments_of(in, s, "c");
	ck_assert_int_eq(c.size(), 1);
	ck_assert_segment(c[0], 40, 70, 1, 3);
}
END_TEST

START_TEST(test_optimus_refuses_a_job_with_no_usable_count)
{
	Inputs in = inputs("1x4", kM12, "x,0,m,1,3,3,4\n");
	auto p = find_policy("optimus")->make({});
	ck_assert_string_eq(p->refuse(in.workload, in.profiles, in.cluster),
			    "job x (line 2 of workload.csv): no GPU count in 3..4 "
			    "has a profile row that fits the cluster");
}
END_TEST

START_TEST(test_philly_window_gives_a_valid_repeatable_schedule)
{
	Inputs in = shared_inputs("16x4", "philly-8h-1");
	Schedule s = run_policy(in, "optimus", 30);
	Schedule again = run_policy(in, "optimus", 30);
	ck_assert_int_ge(s.size(), 160);
	ck_assert_same_schedule(s, again);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("policy_optimus");
	TCase *tc = tcase_create("optimus");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_extra_gpu_goes_to_the_largest_marginal_gain);
	tcase_add_test(tc, test_running_job_is_not_grown_when_the_overhead_outweighs_the_saving);
	tcase_add_test(tc, test_running_job_is_shrunk_for_a_new_job_and_pays_overhead_on_resume);
	tcase_add_test(tc, test_count_without_profile_row_is_never_used);
	tcase_add_test(tc, test_gpus_max_is_respected);
	tcase_add_test(tc, test_equal_gains_go_to_the_earlier_job);
	tcase_add_test(tc, test_job_waits_when_earlier_jobs_hold_every_gpu);
	tcase_add_test(tc, test_job_in_restart_overhead_keeps_its_gpus);
	tcase_add_test(tc, test_optimus_refuses_a_job_with_no_usable_count);
	tcase_add_test(tc, test_philly_window_gives_a_valid_repeatable_schedule);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
