// test_start_overhead.cpp - a user's launch learned from their completed
// jobs (controller/start_overhead.hpp) and priced by the plan and the
// reference alike (planner PlanJob::start_overhead_s): no overhead before
// three samples, the median after, samples the epoch time explains better
// refused, one user's jobs never another's overhead, and a chain of two
// jobs on one node priced with each job's launch in the plan and in
// Slurm's own policy.
#include "check_cxx.hpp"

#include <cmath>
#include <limits>
#include <vector>

#include "controller/start_overhead.hpp"
#include "planner/planner.hpp"
#include "planner/reference.hpp"
#include "plan_fixture.hpp"

using namespace omru;
using namespace omru::controller;
using namespace omru::planner;
using omru_test::rigid;

START_TEST(test_median_once_three_samples)
{
	StartOverheadBook b;
	ck_assert_double_eq(b.add(7, 102, 100, 0.25), 2);
	ck_assert_double_eq(b.add(7, 110, 100, 0.25), 10);
	ck_assert_double_eq(b.of(7), 0); // two samples say nothing yet
	ck_assert_double_eq(b.add(7, 203, 200, 0.25), 3);
	ck_assert_double_eq(b.of(7), 3); // median of 2, 10, 3
	ck_assert_double_eq(b.add(7, 104, 100, 0.25), 4);
	ck_assert_double_eq(b.of(7), 3.5); // 2 3 | 4 10
	// Another user learned nothing from them.
	ck_assert_double_eq(b.of(8), 0);
}
END_TEST

START_TEST(test_samples_the_epoch_time_explains_are_refused)
{
	StartOverheadBook b;
	// Faster than its profile, beyond the margin (a quarter: the curve's
	// business), beyond half its prediction whatever the margin, beyond
	// kMaxStartOverheadS, and numbers that are not.
	ck_assert_double_eq(b.add(1, 90, 100, 0.25), -1);
	ck_assert_double_eq(b.add(1, 130, 100, 0.25), -1);
	ck_assert_double_eq(b.add(1, 160, 100, 10), -1);
	ck_assert_double_eq(b.add(1, 10000 + kMaxStartOverheadS + 1, 10000, 10), -1);
	ck_assert_double_eq(b.add(1, NAN, 100, 0.25), -1);
	ck_assert_double_eq(b.add(1, 101, 0, 0.25), -1);
	ck_assert_double_eq(b.add(1, 101, 100, -1), -1);
	ck_assert_double_eq(b.add(1, std::numeric_limits<double>::infinity(), 100, 0.25), -1);
	ck_assert_double_eq(b.of(1), 0);
	// With a margin of 10, half the prediction still counts.
	ck_assert_double_eq(b.add(1, 150, 100, 10), 50);
}
END_TEST

START_TEST(test_only_the_latest_samples_count)
{
	StartOverheadBook b;
	for (size_t i = 0; i < kStartOverheadSamples; i++)
		b.add(3, 120, 100, 0.25); // 20 s each
	ck_assert_double_eq(b.of(3), 20);
	for (size_t i = 0; i < kStartOverheadSamples / 2 + 1; i++)
		b.add(3, 101, 100, 0.25); // then 1 s each: the majority
	ck_assert_double_eq(b.of(3), 1);
	b.clear();
	ck_assert_double_eq(b.of(3), 0);
}
END_TEST

START_TEST(test_plan_and_reference_price_the_launch)
{
	// One 4-GPU node, two rigid 4-GPU jobs of 100 s, each with a 5 s
	// launch: the second starts when the first ends at 105 and ends at
	// 210, in the plan and in Slurm's own policy alike.
	PlanInput in = omru_test::gpu_cluster(1);
	in.curves = { rigid(4, 1) };
	for (long id : { 1L, 2L }) {
		PlanJob j;
		j.id = id;
		j.curve = 0;
		j.asked_gpus = 4;
		j.remaining_epochs = 1;
		j.submit_s = static_cast<double>(id);
		j.start_overhead_s = 5;
		in.jobs.push_back(j);
	}
	Reference ref = backfill_reference(in);
	ck_assert_double_eq(ref.end_s[0], 105);
	ck_assert_double_eq(ref.start_s[1], 105);
	ck_assert_double_eq(ref.end_s[1], 210);
	Plan p = make_plan(in, PlanChoice{}, PlanSearch{});
	ck_assert_double_eq(p.jobs[0].end_s(), 105);
	ck_assert_double_eq(p.jobs[1].start_s(), 105);
	ck_assert_double_eq(p.jobs[1].end_s(), 210);
	ck_assert_int_eq(p.late, 0);
	// A launch that is not a number is refused with the job's name.
	in.jobs[1].start_overhead_s = NAN;
	bool refused = false;
	try {
		make_plan(in, PlanChoice{}, PlanSearch{});
	} catch (const std::exception &e) {
		refused = std::string(e.what()).find("start overhead") != std::string::npos;
	}
	ck_assert(refused);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("start_overhead");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_median_once_three_samples);
	tcase_add_test(tc, test_samples_the_epoch_time_explains_are_refused);
	tcase_add_test(tc, test_only_the_latest_samples_count);
	tcase_add_test(tc, test_plan_and_reference_price_the_launch);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
