// test_policy_omru_ga.cpp - omru-ga (the OMRU paper's GA over job groups,
// with greedy GPU counts and GPU reuse).  The executor is checked on tiny
// batches whose schedules were worked out by hand; there the GA is held to
// the chromosome "every job in one group" (population 1, no generations),
// repaired where the jobs' smallest counts do not fit together.  The GA
// itself is checked on the shared 32-job batches.  Every schedule is also
// validated.
#include <algorithm>
#include <cstdlib>

#include "sim_fixture.hpp"

using namespace omru;
using namespace omru_test;

static const char kHead[] = "job_id,submit_s,model,epochs,gpus,gpus_min,gpus_max\n";
// m: 1 GPU 10 s/epoch, 2 GPUs 6 s, 4 GPUs 4 s; no row for 3.
static const char kM124[] = "model,gpus,epoch_s\nm,1,10\nm,2,6\nm,4,4\n";

static Inputs inputs(const char *cluster, const char *profiles,
		     const std::string &jobs)
{
	return make_inputs(cluster, profiles, (kHead + jobs).c_str());
}

// The GA reduced to its first chromosome: every job in one group.
static PolicyOptions one_group()
{
	PolicyOptions o;
	o.ga_population = 1;
	o.ga_iterations = 0;
	return o;
}

static double makespan(const Schedule &s)
{
	double end = 0;
	for (const Segment &g : s)
		end = std::max(end, g.end_s);
	return end;
}

// batch-32-N.csv with the T4 profiles on `cluster`.
static Inputs batch(const char *cluster, int n)
{
	return shared_inputs(cluster, "batch-32-" + std::to_string(n));
}

START_TEST(test_online_workload_is_refused_naming_the_job)
{
	Inputs in = inputs("1x4", kM124, "a,0,m,1,1,1,4\nb,7.5,m,1,1,1,4\n");
	auto p = find_policy("omru-ga")->make({});
	ck_assert_string_eq(p->refuse(in.workload, in.profiles, in.cluster),
			    "plans offline batches only (every job submitted at 0), "
			    "but job b (line 3 of workload.csv) is submitted at "
			    "7.5 s; use an online policy (e.g. backfill, tiresias, "
			    "optimus)");
}
END_TEST

START_TEST(test_job_with_no_usable_count_is_refused)
{
	Inputs in = inputs("1x4", kM124, "x,0,m,1,3,3,3\n");
	auto p = find_policy("omru-ga")->make({});
	ck_assert_string_eq(p->refuse(in.workload, in.profiles, in.cluster),
			    "job x (line 2 of workload.csv): no GPU count in 3..3 "
			    "has a profile row that fits the cluster");
}
END_TEST

START_TEST(test_spare_gpus_go_to_the_currently_longest_job)
{
	// Both start on 1 GPU (a 40 s, b 30 s), 2 spare.  a is longest: 2
	// GPUs (24 s).  Now b (30 s) is longest: 2 GPUs (18 s).  None left.
	Inputs in = inputs("1x4", kM124, "a,0,m,4,1,1,4\nb,0,m,3,1,1,4\n");
	Schedule s = run_policy(in, "omru-ga", 0, one_group());
	ck_assert_int_eq(s.size(), 2);
	ck_assert_segment(segments_of(in, s, "a")[0], 0, 24, 2, 4);
	ck_assert_segment(segments_of(in, s, "b")[0], 0, 18, 2, 3);
}
END_TEST

START_TEST(test_job_whose_next_count_does_not_fit_lets_the_next_longest_take_the_gpus)
{
	// a (2 GPUs minimum, 60 s) and b (1 GPU, 30 s): 1 spare.  a's next
	// count, 4, needs 2 more: a is saturated and b takes the spare GPU
	// (18 s).
	Inputs in = inputs("1x4", kM124, "a,0,m,10,2,2,4\nb,0,m,3,1,1,4\n");
	Schedule s = run_policy(in, "omru-ga", 0, one_group());
	ck_assert_int_eq(s.size(), 2);
	ck_assert_segment(segments_of(in, s, "a")[0], 0, 60, 2, 10);
	ck_assert_segment(segments_of(in, s, "b")[0], 0, 18, 2, 3);
}
END_TEST

START_TEST(test_job_whose_next_count_is_slower_is_saturated)
{
	// s: 2 GPUs are slower than 1 (non-monotone) although 4 are faster.
	// x (100 s) is longest but saturated at 1; y takes 2 GPUs (12 s); 4
	// would need 2 more than the 1 left.
	Inputs in = inputs("1x4",
			   "model,gpus,epoch_s\nm,1,10\nm,2,6\nm,4,4\n"
			   "s,1,10\ns,2,12\ns,4,3\n",
			   "x,0,s,10,1,1,4\ny,0,m,2,1,1,4\n");
	Schedule s = run_policy(in, "omru-ga", 0, one_group());
	ck_assert_int_eq(s.size(), 2);
	ck_assert_segment(segments_of(in, s, "x")[0], 0, 100, 1, 10);
	ck_assert_segment(segments_of(in, s, "y")[0], 0, 12, 2, 2);
}
END_TEST

START_TEST(test_job_that_cannot_be_placed_at_its_count_takes_a_smaller_one)
{
	// 2x3, 2 GPUs only on one node.  Each job gets 2 of the 6 GPUs (ties
	// go to the earlier job).  a and b take a node each; c's 2 would span
	// both nodes, which has no row, so c runs on 1.
	Inputs in = inputs("2x3", "model,gpus,epoch_s,nodes\nm,1,10,1\nm,2,6,1\n",
			   "a,0,m,3,1,1,2\nb,0,m,3,1,1,2\nc,0,m,3,1,1,2\n");
	Schedule s = run_policy(in, "omru-ga", 0, one_group());
	ck_assert_int_eq(s.size(), 3);
	ck_assert_segment(segments_of(in, s, "a")[0], 0, 18, 2, 3);
	ck_assert_segment(segments_of(in, s, "b")[0], 0, 18, 2, 3);
	ck_assert_segment(segments_of(in, s, "c")[0], 0, 30, 1, 3);
}
END_TEST

START_TEST(test_idle_gpus_run_the_next_group_until_the_barrier)
{
	// sh and lo (2 GPUs each) fill the cluster, so c is repaired into
	// group 2.  sh ends at 12; lo runs to 30, 18 s > 5 s overhead, so c
	// runs on sh's 2 GPUs: 3 epochs by 30.  At the barrier c's 7 epochs
	// get 4 GPUs (1 -> 2 -> 4): stopped and restarted, paying 5 s:
	// 30 + 5 + 7 x 4 = 63.
	Inputs in = inputs("1x4", kM124,
			   "sh,0,m,2,2,2,2\nlo,0,m,5,2,2,2\nc,0,m,10,1,1,4\n");
	Schedule s = run_policy(in, "omru-ga", 5, one_group());
	ck_assert_segment(segments_of(in, s, "sh")[0], 0, 12, 2, 2);
	ck_assert_segment(segments_of(in, s, "lo")[0], 0, 30, 2, 5);
	auto c = segments_of(in, s, "c");
	ck_assert_int_eq(c.size(), 2);
	ck_assert_segment(c[0], 12, 30, 2, 3);
	ck_assert_segment(c[1], 30, 63, 4, 7);
}
END_TEST

START_TEST(test_reused_job_at_its_allotted_count_keeps_running)
{
	// As above but c may use at most 2 GPUs: its allotment at the
	// barrier is the 2 it runs on, so it is not stopped: 12 + 10 x 6.
	Inputs in = inputs("1x4", kM124,
			   "sh,0,m,2,2,2,2\nlo,0,m,5,2,2,2\nc,0,m,10,1,1,2\n");
	Schedule s = run_policy(in, "omru-ga", 5, one_group());
	auto c = segments_of(in, s, "c");
	ck_assert_int_eq(c.size(), 1);
	ck_assert_segment(c[0], 12, 72, 2, 10);
}
END_TEST

START_TEST(test_no_reuse_when_the_group_ends_within_the_restart_overhead)
{
	// At 12 the group has 18 s left, not more than the 20 s overhead:
	// sh's GPUs stay idle and c starts at the barrier on 4 GPUs.
	Inputs in = inputs("1x4", kM124,
			   "sh,0,m,2,2,2,2\nlo,0,m,5,2,2,2\nc,0,m,10,1,1,4\n");
	Schedule s = run_policy(in, "omru-ga", 20, one_group());
	auto c = segments_of(in, s, "c");
	ck_assert_int_eq(c.size(), 1);
	ck_assert_segment(c[0], 30, 70, 4, 10);
}
END_TEST

START_TEST(test_reuse_serves_the_longest_next_job_first)
{
	// c2 (60 s on 1 GPU) is longer than c1 (20 s): at 12 it takes both
	// idle GPUs.  At 30 c2 has 3 epochs left (30 s on 1 GPU), c1 2 (20
	// s): c2 -> 2 GPUs (18 s), then c1 -> 2 (12 s).  c2 already runs on
	// 2 and keeps going (12 + 6 x 6); c1 starts: 30 + 2 x 6.
	Inputs in = inputs("1x4", kM124,
			   "sh,0,m,2,2,2,2\nlo,0,m,5,2,2,2\n"
			   "c1,0,m,2,1,1,2\nc2,0,m,6,1,1,2\n");
	Schedule s = run_policy(in, "omru-ga", 5, one_group());
	auto c2 = segments_of(in, s, "c2");
	ck_assert_int_eq(c2.size(), 1);
	ck_assert_segment(c2[0], 12, 48, 2, 6);
	auto c1 = segments_of(in, s, "c1");
	ck_assert_int_eq(c1.size(), 1);
	ck_assert_segment(c1[0], 30, 42, 2, 2);
}
END_TEST

START_TEST(test_reuse_takes_the_fastest_count_that_fits_the_idle_gpus)
{
	// c's model s is slower on 2 GPUs than on 1: on sh's 2 idle GPUs c
	// runs on 1.  At the barrier its allotment is 1 too (2 is not
	// faster), so it keeps running: 12 + 10 x 10.
	Inputs in = inputs("1x4",
			   "model,gpus,epoch_s\nm,1,10\nm,2,6\nm,4,4\n"
			   "s,1,10\ns,2,12\ns,4,3\n",
			   "sh,0,m,2,2,2,2\nlo,0,m,5,2,2,2\nc,0,s,10,1,1,4\n");
	Schedule s = run_policy(in, "omru-ga", 5, one_group());
	auto c = segments_of(in, s, "c");
	ck_assert_int_eq(c.size(), 1);
	ck_assert_segment(c[0], 12, 112, 1, 10);
}
END_TEST

START_TEST(test_same_seed_gives_the_same_schedule)
{
	Inputs in = batch("4x4", 1);
	PolicyOptions o;
	o.ga_iterations = 20;
	o.seed = 7;
	Schedule s = run_policy(in, "omru-ga", 30, o);
	Schedule again = run_policy(in, "omru-ga", 30, o);
	ck_assert_same_schedule(s, again);
}
END_TEST

START_TEST(test_ga_is_never_worse_than_one_group)
{
	// On 8x4 the 32 jobs fit together at 1 GPU each: one group is
	// feasible as it is.
	for (int n = 1; n <= 2; n++) {
		Inputs in = batch("8x4", n);
		PolicyOptions o;
		o.ga_iterations = 20;
		double one = makespan(run_policy(in, "omru-ga", 30, one_group()));
		double ga = makespan(run_policy(in, "omru-ga", 30, o));
		ck_assert_msg(ga <= one, "batch %d: GA %.1f s > one group %.1f s",
			      n, ga, one);
	}
}
END_TEST

START_TEST(test_ga_keeps_the_best_of_its_initial_population)
{
	// The same seed draws the same initial population; with the elite
	// kept, more generations never give a longer makespan.
	Inputs in = batch("4x4", 2);
	double before = 0;
	for (int iterations : { 0, 1, 5, 20 }) {
		PolicyOptions o;
		o.ga_iterations = iterations;
		double m = makespan(run_policy(in, "omru-ga", 30, o));
		if (iterations > 0)
			ck_assert_msg(m <= before, "%d generations: %.1f s > %.1f s",
				      iterations, m, before);
		before = m;
	}
}
END_TEST

START_TEST(test_shared_batches_give_valid_schedules)
{
	// run_policy validates each schedule.
	for (const char *cluster : { "4x4", "8x4" })
		for (int n = 1; n <= 2; n++) {
			Inputs in = batch(cluster, n);
			PolicyOptions o;
			o.ga_iterations = 20;
			Schedule s = run_policy(in, "omru-ga", 30, o);
			ck_assert_int_ge(s.size(), 32);
		}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("policy_omru_ga");
	TCase *tc = tcase_create("omru_ga");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_online_workload_is_refused_naming_the_job);
	tcase_add_test(tc, test_job_with_no_usable_count_is_refused);
	tcase_add_test(tc, test_spare_gpus_go_to_the_currently_longest_job);
	tcase_add_test(tc, test_job_whose_next_count_does_not_fit_lets_the_next_longest_take_the_gpus);
	tcase_add_test(tc, test_job_whose_next_count_is_slower_is_saturated);
	tcase_add_test(tc, test_job_that_cannot_be_placed_at_its_count_takes_a_smaller_one);
	tcase_add_test(tc, test_idle_gpus_run_the_next_group_until_the_barrier);
	tcase_add_test(tc, test_reused_job_at_its_allotted_count_keeps_running);
	tcase_add_test(tc, test_no_reuse_when_the_group_ends_within_the_restart_overhead);
	tcase_add_test(tc, test_reuse_serves_the_longest_next_job_first);
	tcase_add_test(tc, test_reuse_takes_the_fastest_count_that_fits_the_idle_gpus);
	tcase_add_test(tc, test_same_seed_gives_the_same_schedule);
	tcase_add_test(tc, test_ga_is_never_worse_than_one_group);
	tcase_add_test(tc, test_ga_keeps_the_best_of_its_initial_population);
	tcase_add_test(tc, test_shared_batches_give_valid_schedules);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
