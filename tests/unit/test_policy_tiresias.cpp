// test_policy_tiresias.cpp - tiresias (discretised 2D least-attained-service
// with preemption) on tiny workloads whose schedules were worked out by hand.
// Every schedule is also validated.
#include <cstdlib>

#include "sim_fixture.hpp"

using namespace omru;
using namespace omru_test;

// m: 1 GPU 10 s/epoch, 2 GPUs 6 s (any spread).
static const char kProfiles[] = "model,gpus,epoch_s\nm,1,10\nm,2,6\n";
static const char kHead[] = "job_id,submit_s,model,epochs,gpus\n";

static Inputs on_1x2(const std::string &jobs)
{
	return make_inputs("1x2", kProfiles, (kHead + jobs).c_str());
}

static PolicyOptions threshold(double gpu_s)
{
	PolicyOptions o;
	o.tiresias_thresholds_gpu_s = { gpu_s };
	return o;
}

START_TEST(test_demoted_job_is_preempted_by_a_new_job_and_resumes_after_overhead)
{
	// Threshold 120 GPU-s: long (2 GPUs) reaches it at 60 and drops to Q1.
	// short arrives at 40 while long is still in Q0 and, arriving later,
	// waits; at 60 it preempts long (10 epochs done).  long resumes when
	// short ends at 90 and pays 30 s before its last 10 epochs x 6 s.
	Inputs in = on_1x2("long,0,m,20,2\nshort,40,m,5,2\n");
	Schedule s = run_policy(in, "tiresias", 30, threshold(120));
	auto lng = segments_of(in, s, "long");
	ck_assert_int_eq(lng.size(), 2);
	ck_assert_segment(lng[0], 0, 60, 2, 10);
	ck_assert_segment(lng[1], 90, 180, 2, 10);
	auto sht = segments_of(in, s, "short");
	ck_assert_int_eq(sht.size(), 1);
	ck_assert_segment(sht[0], 60, 90, 2, 5);
}
END_TEST

START_TEST(test_later_job_of_the_same_queue_does_not_preempt)
{
	// Default threshold 3600 GPU-s: both jobs stay in Q0, so second waits
	// for first to finish.
	Inputs in = on_1x2("first,0,m,20,2\nsecond,20,m,5,2\n");
	Schedule s = run_policy(in, "tiresias", 30);
	auto a = segments_of(in, s, "first");
	ck_assert_int_eq(a.size(), 1);
	ck_assert_segment(a[0], 0, 120, 2, 20);
	auto b = segments_of(in, s, "second");
	ck_assert_int_eq(b.size(), 1);
	ck_assert_segment(b[0], 120, 150, 2, 5);
}
END_TEST

START_TEST(test_last_queue_runs_in_submission_order)
{
	// Threshold 60 GPU-s.  a drops to Q1 at 30 and b (Q0) preempts it; b
	// drops to Q1 at 60, where a came first, so a takes the GPUs back and
	// runs to the end (60 + 30 + 15 x 6), then b (180 + 30 + 15 x 6).
	Inputs in = on_1x2("a,0,m,20,2\nb,10,m,20,2\n");
	Schedule s = run_policy(in, "tiresias", 30, threshold(60));
	auto a = segments_of(in, s, "a");
	ck_assert_int_eq(a.size(), 2);
	ck_assert_segment(a[0], 0, 30, 2, 5);
	ck_assert_segment(a[1], 60, 180, 2, 15);
	auto b = segments_of(in, s, "b");
	ck_assert_int_eq(b.size(), 2);
	ck_assert_segment(b[0], 30, 60, 2, 5);
	ck_assert_segment(b[1], 180, 300, 2, 15);
}
END_TEST

START_TEST(test_job_in_restart_overhead_is_not_stopped)
{
	// As in the first test, long resumes at 90 and pays its overhead until
	// 120.  newer (Q0) arrives at 100 and would preempt long (Q1), but long
	// cannot be stopped before 120: newer waits until then, and long's
	// segment from 90 only holds its overhead.  long resumes at 138.
	Inputs in = on_1x2("long,0,m,20,2\nshort,40,m,5,2\nnewer,100,m,3,2\n");
	Schedule s = run_policy(in, "tiresias", 30, threshold(120));
	auto lng = segments_of(in, s, "long");
	ck_assert_int_eq(lng.size(), 3);
	ck_assert_segment(lng[0], 0, 60, 2, 10);
	ck_assert_segment(lng[1], 90, 120, 2, 0);
	ck_assert_segment(lng[2], 138, 228, 2, 10);
	auto nwr = segments_of(in, s, "newer");
	ck_assert_int_eq(nwr.size(), 1);
	ck_assert_segment(nwr[0], 120, 138, 2, 3);
}
END_TEST

START_TEST(test_small_job_passes_a_big_one_that_does_not_fit)
{
	// a holds 1 of 2 GPUs until 100; big needs both and waits, but small
	// (later, same queue) fits the GPU left and runs at once.
	Inputs in = on_1x2("a,0,m,10,1\nbig,10,m,5,2\nsmall,20,m,2,1\n");
	Schedule s = run_policy(in, "tiresias", 30);
	ck_assert_segment(segments_of(in, s, "a")[0], 0, 100, 1, 10);
	ck_assert_segment(segments_of(in, s, "small")[0], 20, 40, 1, 2);
	ck_assert_segment(segments_of(in, s, "big")[0], 100, 130, 2, 5);
}
END_TEST

START_TEST(test_job_is_demoted_through_every_threshold)
{
	// Thresholds 40 and 100 GPU-s on one GPU; attained service counts the
	// restart overhead too (the GPUs are held).  a reaches 40 at 40 (Q1),
	// where b (Q0, waiting since 30) preempts it; b reaches 40 at 80 and a
	// comes back first (both Q1, a earlier).  a reaches 100 at 140 (Q2),
	// 30 s after its overhead, and b (Q1) preempts it again; b ends at
	// 140 + 30 + 2 x 10, then a runs its last 13 epochs.
	Inputs in = make_inputs("1x1", kProfiles,
				(std::string(kHead) +
				 "a,0,m,20,1\nb,30,m,6,1\n").c_str());
	PolicyOptions o;
	o.tiresias_thresholds_gpu_s = { 40, 100 };
	Schedule s = run_policy(in, "tiresias", 30, o);
	auto a = segments_of(in, s, "a");
	ck_assert_int_eq(a.size(), 3);
	ck_assert_segment(a[0], 0, 40, 1, 4);
	ck_assert_segment(a[1], 80, 140, 1, 3);
	ck_assert_segment(a[2], 190, 350, 1, 13);
	auto b = segments_of(in, s, "b");
	ck_assert_int_eq(b.size(), 2);
	ck_assert_segment(b[0], 40, 80, 1, 4);
	ck_assert_segment(b[1], 140, 190, 1, 2);
}
END_TEST

START_TEST(test_tiresias_refuses_a_job_larger_than_the_cluster)
{
	Inputs in = on_1x2("big,0,m,1,4\n");
	auto p = find_policy("tiresias")->make({});
	ck_assert_string_eq(p->refuse(in.workload, in.profiles, in.cluster),
			    "job big needs 4 GPUs; the cluster has 2 (line 2 of workload.csv)");
}
END_TEST

START_TEST(test_philly_window_gives_a_valid_repeatable_schedule)
{
	Inputs in = shared_inputs("16x4", "philly-8h-1");
	Schedule s = run_policy(in, "tiresias", 30);
	Schedule again = run_policy(in, "tiresias", 30);
	ck_assert_int_ge(s.size(), 160);
	ck_assert_same_schedule(s, again);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("policy_tiresias");
	TCase *tc = tcase_create("tiresias");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_demoted_job_is_preempted_by_a_new_job_and_resumes_after_overhead);
	tcase_add_test(tc, test_later_job_of_the_same_queue_does_not_preempt);
	tcase_add_test(tc, test_last_queue_runs_in_submission_order);
	tcase_add_test(tc, test_job_in_restart_overhead_is_not_stopped);
	tcase_add_test(tc, test_small_job_passes_a_big_one_that_does_not_fit);
	tcase_add_test(tc, test_job_is_demoted_through_every_threshold);
	tcase_add_test(tc, test_tiresias_refuses_a_job_larger_than_the_cluster);
	tcase_add_test(tc, test_philly_window_gives_a_valid_repeatable_schedule);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
