// test_arrival_guard.cpp - moldable starts while jobs keep arriving
// (planner/arrival_guard.hpp): a batch seen at once keeps its ranges; once
// the jobs the plan holds were first seen at two passes within a job's run,
// or a pass within it saw one job alone, a pending job that cannot give GPUs
// back starts at the count it asked, and keeps its range again once
// arrivals pause for as long as it would run.
#include "check_cxx.hpp"

#include "planner/arrival_guard.hpp"
#include "planner/replanner.hpp"

using namespace omru;
using namespace omru::planner;

// One node of 4 GPUs; one model at 1, 2 and 4 GPUs (10 s an epoch on one
// GPU, scaling well).
static PlanInput idle_node(double now)
{
	PlanInput in;
	in.now_s = now;
	in.nodes = 1;
	in.gpus_per_node = 4;
	in.free_per_node = { 4 };
	SpeedCurve cv;
	for (int g : { 1, 2, 4 }) {
		cv.gpus.push_back(g);
		cv.epoch_s.push_back({ kNoRow, 10.0 / g });
	}
	in.curves = { cv };
	in.arrival_guard = true;
	in.reuse = false; // Elastic=no: nothing can give GPUs back
	in.bound.on = true;
	return in;
}

// A pending job asking 2 GPUs, moldable 1-4, 10 epochs (100 s on one GPU,
// 50 s at its ask).
static PlanJob moldable(long id, double submit)
{
	PlanJob j;
	j.id = id;
	j.curve = 0;
	j.submit_s = submit;
	j.remaining_epochs = 10;
	j.asked_gpus = 2;
	j.resizable = false;
	return j;
}

// A first pass at t=0 that saw job 1 alone; RET the input of a second
// pass at `t` that holds job 2 too, submitted then (not yet shown to `g`).
static PlanInput second_pass(ArrivalGuard &g, double t)
{
	PlanInput in = idle_node(0);
	in.jobs = { moldable(1, 0) };
	g.guarded(in);
	in.now_s = t;
	in.jobs.push_back(moldable(2, t));
	return in;
}

START_TEST(test_a_batch_seen_at_once_keeps_its_ranges)
{
	PlanInput in = idle_node(0);
	in.jobs = { moldable(1, 0), moldable(2, 0) };
	ArrivalGuard g;
	ck_assert(g.guarded(in).empty());
	// The batch's last job still here did not arrive alone.
	in.now_s = 5;
	in.jobs.erase(in.jobs.begin());
	ck_assert(g.guarded(in).empty());
	in.now_s = 0;
	in.jobs = { moldable(1, 0), moldable(2, 0) };
	// A job alone may be the first of a stream: the plan starts it at
	// the 2 GPUs it asked, not on the whole idle node.
	in.jobs.pop_back();
	Replanner r;
	Plan p = r.plan(in);
	ck_assert_int_eq(p.held_to_ask, 1);
	ck_assert_int_eq(p.now.size(), 1);
	ck_assert_int_eq(p.now[0].gpus, 2);
	// Without the guard it widens it.
	Replanner blind;
	in.arrival_guard = false;
	p = blind.plan(in);
	ck_assert_int_eq(p.now.size(), 1);
	ck_assert_int_eq(p.now[0].gpus, 4);
}
END_TEST

START_TEST(test_arrivals_at_two_passes_hold_a_job_to_its_ask)
{
	Replanner r;
	PlanInput first = idle_node(0);
	first.free_per_node = { 0 }; // something outside the plan holds the node
	first.jobs = { moldable(1, 0) };
	ck_assert_int_eq(r.plan(first).held_to_ask, 1); // alone at its pass
	PlanInput second = idle_node(2);
	second.jobs = { moldable(1, 0), moldable(2, 2) };
	Plan p = r.plan(second);
	ck_assert_int_eq(p.held_to_ask, 2);
	// Both start at the 2 GPUs they asked, side by side.
	ck_assert_int_eq(p.now.size(), 2);
	for (const Action &a : p.now)
		ck_assert_int_eq(a.gpus, 2);
	// Without the guard the plan would have widened one of them.
	Replanner blind;
	first.arrival_guard = second.arrival_guard = false;
	blind.plan(first);
	ck_assert_int_eq(blind.plan(second).held_to_ask, 0);
}
END_TEST

START_TEST(test_a_job_that_can_give_gpus_back_keeps_its_range)
{
	ArrivalGuard g;
	PlanInput in = second_pass(g, 2);
	in.jobs[1].resizable = true;
	in.reuse = true; // an elastic job the plan may take GPUs back from
	std::vector<ArrivalGuard::Held> held = g.guarded(in);
	ck_assert_int_eq(held.size(), 1);
	ck_assert_int_eq(held[0].job, 0);
	// Elastic, but resizing is off (Elastic=no): guarded too.
	ArrivalGuard h;
	in = second_pass(h, 2);
	in.jobs[1].resizable = true;
	ck_assert_int_eq(h.guarded(in).size(), 2);
}
END_TEST

START_TEST(test_arrivals_pausing_for_a_jobs_run_release_it)
{
	ArrivalGuard g;
	PlanInput in = second_pass(g, 2);
	ck_assert_int_eq(g.guarded(in).size(), 2);
	// Its run at its ask is 50 s: the arrival at 2 (alone) still counts
	// at 51 s.
	in.now_s = 51;
	ck_assert_int_eq(g.guarded(in).size(), 2);
	in.now_s = 53;
	ck_assert(g.guarded(in).empty());
	// A shorter job is released sooner: 10 s at its ask.
	ArrivalGuard h;
	in = second_pass(h, 2);
	in.jobs[1].remaining_epochs = 2;
	h.guarded(in);
	in.now_s = 13;
	std::vector<ArrivalGuard::Held> held = h.guarded(in);
	ck_assert_int_eq(held.size(), 1);
	ck_assert_int_eq(held[0].job, 0);
}
END_TEST

START_TEST(test_a_job_arriving_alone_is_held_until_arrivals_pause)
{
	// The first job has left the plan's input when the second arrives:
	// alone at its pass, the second may still be the first of a stream.
	// Once nothing arrived for its run (50 s at its ask) it keeps its
	// range.
	ArrivalGuard g;
	PlanInput in = second_pass(g, 8);
	in.jobs.erase(in.jobs.begin());
	ck_assert_int_eq(g.guarded(in).size(), 1);
	in.now_s = 57;
	ck_assert_int_eq(g.guarded(in).size(), 1);
	in.now_s = 59;
	ck_assert(g.guarded(in).empty());
	// With the first still running, the second is guarded.
	ArrivalGuard h;
	in = second_pass(h, 8);
	in.jobs[0].running = true;
	in.jobs[0].gpus = 4;
	in.jobs[0].where = { { 0, 4 } };
	in.free_per_node = { 0 };
	std::vector<ArrivalGuard::Held> held = h.guarded(in);
	ck_assert_int_eq(held.size(), 1);
	ck_assert_int_eq(held[0].job, 1);
}
END_TEST

START_TEST(test_off_or_without_a_choice_nothing_is_guarded)
{
	ArrivalGuard g;
	PlanInput in = second_pass(g, 2);
	in.arrival_guard = false;
	ck_assert(g.guarded(in).empty());
	// A job that asked no count, one already running, one whose curve
	// has a single count: nothing to hold.
	in.arrival_guard = true;
	in.now_s = 3;
	in.jobs[0].asked_gpus = 0;
	in.jobs[1].running = true;
	in.jobs[1].gpus = 2;
	in.jobs[1].where = { { 0, 2 } };
	in.free_per_node = { 2 };
	PlanJob rigid = moldable(3, 3);
	SpeedCurve one;
	one.gpus = { 2 };
	one.epoch_s = { { kNoRow, 5.0 } };
	in.curves.push_back(one);
	rigid.curve = 1;
	in.jobs.push_back(rigid);
	ck_assert(g.guarded(in).empty());
}
END_TEST

START_TEST(test_time_going_back_starts_a_new_history)
{
	ArrivalGuard g;
	PlanInput in = idle_node(100);
	in.jobs = { moldable(1, 100) };
	g.guarded(in);
	in.now_s = 102;
	in.jobs.push_back(moldable(2, 102));
	ck_assert_int_eq(g.guarded(in).size(), 2);
	in.now_s = 0; // a new run (omru-sim compare reuses nothing, but a caller may)
	in.jobs = { moldable(7, 0), moldable(8, 0) };
	ck_assert(g.guarded(in).empty()); // a batch at its first pass
}
END_TEST

START_TEST(test_hold_to_ask_keeps_only_the_asked_option)
{
	ArrivalGuard g;
	PlanInput in = second_pass(g, 2);
	in.jobs.push_back(moldable(3, 2));
	in.jobs[2].asked_gpus = 3; // not a count of its curve: the nearest, 2 or 4
	std::vector<ArrivalGuard::Held> held = g.guarded(in);
	ck_assert_int_eq(held.size(), 3);
	ArrivalGuard::hold_to_ask(in, held);
	// One new curve for the two jobs that asked 2 (and the third, whose
	// nearest count is 2: the smaller on ties).
	ck_assert_int_eq(in.curves.size(), 2);
	for (const PlanJob &j : in.jobs) {
		ck_assert_int_eq(j.curve, 1);
	}
	ck_assert_int_eq(in.curves[1].gpus.size(), 1);
	ck_assert_int_eq(in.curves[1].gpus[0], 2);
	ck_assert_double_eq(in.curves[1].epoch_s[0][1], 5.0);
	check_plan_input(in);
}
END_TEST

int main()
{
	Suite *s = suite_create("arrival_guard");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_a_batch_seen_at_once_keeps_its_ranges);
	tcase_add_test(tc, test_arrivals_at_two_passes_hold_a_job_to_its_ask);
	tcase_add_test(tc, test_a_job_that_can_give_gpus_back_keeps_its_range);
	tcase_add_test(tc, test_arrivals_pausing_for_a_jobs_run_release_it);
	tcase_add_test(tc, test_a_job_arriving_alone_is_held_until_arrivals_pause);
	tcase_add_test(tc, test_off_or_without_a_choice_nothing_is_guarded);
	tcase_add_test(tc, test_time_going_back_starts_a_new_history);
	tcase_add_test(tc, test_hold_to_ask_keeps_only_the_asked_option);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
