// test_shrink_to_admit.cpp - phase-aware reallocation in the planner and in
// omru-sim: a running elastic job in its late training phase (workload
// column late_after) is shrunk so a job that would wait starts beside it,
// when that ends the batch sooner; a job with no signal, or still early, is
// never shrunk; the kept GPUs are its fullest nodes.
#include <cmath>

#include "planner/shrink_to_admit.hpp"
#include "sim_fixture.hpp"

using namespace omru;
using namespace omru_test;

static const char kHead[] =
	"job_id,submit_s,model,epochs,gpus,gpus_min,gpus_max,elastic,late_after\n";
// Scales poorly: 100 s per epoch on 1 GPU, 60 on 2, 40 on 4.
static const char kProfiles[] = "model,gpus,epoch_s\nm,1,100\nm,2,60\nm,4,40\n";

// The rule tested here is the makespan objective's (a shrink that delays
// the running job pays only where the batch ends sooner), without the
// reference bound (which holds the shrunk job to its own promise: see
// test_the_bound_keeps_the_shrunk_jobs_promise).
static PolicyOptions makespan_plan()
{
	PolicyOptions o;
	o.omru_objective = planner::Objective::Makespan;
	o.omru_bound.on = false;
	return o;
}

static double makespan(const Schedule &s)
{
	double end = 0;
	for (const Segment &g : s)
		end = std::max(end, g.end_s);
	return end;
}

// a (10 epochs) alone from 0 on 4 GPUs; b (10 epochs) arrives at 100.
// Waiting for a: b runs 400..800.  With a shrunk to 2 at 100 (2.5 epochs
// done, 10 s restart): a ends at 110 + 7.5 x 60 = 560, b runs beside it on
// 2 GPUs from 100 and grows to 4 at 560: 570 + (10 - 460/60) x 40 = 663.3.
START_TEST(test_a_late_job_is_shrunk_so_the_newcomer_starts)
{
	std::string w = std::string(kHead) + "a,0,m,10,4,1,4,1,1\nb,100,m,10,4,1,4,1,\n";
	Inputs in = make_inputs("1x4", kProfiles, w.c_str());
	Schedule s = run_policy(in, "omru", 10, makespan_plan());
	ck_assert_double_le_tol(makespan(s), 663.4, 1e-6);
	auto a = segments_of(in, s, "a");
	auto b = segments_of(in, s, "b");
	ck_assert_int_eq(a.size(), 2);
	ck_assert_int_eq(a[0].gpus(), 4);
	ck_assert_double_eq_tol(a[1].start_s, 100, 1e-9);
	ck_assert_int_lt(a[1].gpus(), 4);
	ck_assert_double_eq_tol(b.front().start_s, 100, 1e-9);

	// --no-phase-aware: b waits for a.
	PolicyOptions off = makespan_plan();
	off.omru_phase_aware = false;
	Schedule t = run_policy(in, "omru", 10, off);
	ck_assert_double_eq_tol(makespan(t), 800, 1e-6);
	ck_assert_double_eq_tol(segments_of(in, t, "b").front().start_s, 400, 1e-9);
}
END_TEST

// Under the reference bound (the defaults) a is not shrunk below the 4
// GPUs it asked: at 2 it would end at 560, past its backfill end (400)
// x 1.05 + 1 s; b waits for it, as under backfill.  With a looser bound
// (slack 0.5: a's bound is 601) the shrink keeps a's promise and is taken.
START_TEST(test_the_bound_keeps_the_shrunk_jobs_promise)
{
	std::string w = std::string(kHead) + "a,0,m,10,4,1,4,1,1\nb,100,m,10,4,1,4,1,\n";
	Inputs in = make_inputs("1x4", kProfiles, w.c_str());
	PolicyOptions bound;
	bound.omru_objective = planner::Objective::Makespan;
	Schedule s = run_policy(in, "omru", 10, bound);
	ck_assert_int_eq(segments_of(in, s, "a").size(), 1);
	ck_assert_double_eq_tol(segments_of(in, s, "b").front().start_s, 400, 1e-9);

	bound.omru_bound.slack = 0.5;
	s = run_policy(in, "omru", 10, bound);
	auto a = segments_of(in, s, "a");
	ck_assert_int_eq(a.size(), 2);
	ck_assert_double_le_tol(a.back().end_s, 601, 1e-6);
	ck_assert_double_eq_tol(segments_of(in, s, "b").front().start_s, 100, 1e-9);
}
END_TEST

START_TEST(test_no_signal_or_an_early_job_is_never_shrunk)
{
	// a reports no phase; then a is late only after 5 epochs (at 200 s,
	// after b arrived: the next event is a's end).
	for (const char *late : { "", "5" }) {
		std::string w = std::string(kHead) + "a,0,m,10,4,1,4,1," + late +
				"\nb,100,m,10,4,1,4,1,\n";
		Inputs in = make_inputs("1x4", kProfiles, w.c_str());
		Schedule s = run_policy(in, "omru", 10, makespan_plan());
		ck_assert_int_eq(segments_of(in, s, "a").size(), 1);
		ck_assert_double_eq_tol(segments_of(in, s, "b").front().start_s, 400, 1e-9);
	}
	// Not elastic: never resized, late or not.
	std::string w = std::string(kHead) + "a,0,m,10,4,1,4,0,1\nb,100,m,10,4,1,4,1,\n";
	Inputs in = make_inputs("1x4", kProfiles, w.c_str());
	ck_assert_int_eq(segments_of(in, run_policy(in, "omru", 10, makespan_plan()), "a").size(), 1);
}
END_TEST

START_TEST(test_a_shrink_keeps_the_fullest_nodes)
{
	NodeCounts where = { { 0, 2 }, { 1, 3 }, { 4, 1 } };
	ck_assert(planner::kept_part(where, 3) == NodeCounts({ { 1, 3 } }));
	ck_assert(planner::kept_part(where, 4) == NodeCounts({ { 0, 1 }, { 1, 3 } }));
	ck_assert(planner::kept_part(where, 6) == where);
	ck_assert(planner::kept_part(where, 1) == NodeCounts({ { 1, 1 } }));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("shrink_to_admit");
	TCase *t = tcase_create("shrink");
	tcase_set_timeout(t, 60);
	tcase_add_test(t, test_a_late_job_is_shrunk_so_the_newcomer_starts);
	tcase_add_test(t, test_the_bound_keeps_the_shrunk_jobs_promise);
	tcase_add_test(t, test_no_signal_or_an_early_job_is_never_shrunk);
	tcase_add_test(t, test_a_shrink_keeps_the_fullest_nodes);
	suite_add_tcase(s, t);
	return run_suite(s);
}
