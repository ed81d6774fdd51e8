// test_replanner.cpp - long queues: the coarse search simulates a fraction
// of the grid and still places every job; an incremental re-plan
// simulates the kept choice and its neighbours only; Replanner re-plans
// incrementally exactly while a long queue changes little, and searches
// fully again once enough has changed.
#include "check_cxx.hpp"

#include <cmath>

#include "planner/planner.hpp"
#include "planner/replanner.hpp"

using namespace omru;
using namespace omru::planner;

// 8 nodes x 4 GPUs, two moldable models (one scales well, one does not)
// and `pending` jobs of 1-6 epochs.
static PlanInput long_queue(int pending)
{
	PlanInput in;
	in.nodes = 8;
	in.gpus_per_node = 4;
	in.free_per_node.assign(8, 4);
	in.restart_overhead_s = 30;
	auto curve = [](double t1, double alpha) {
		SpeedCurve cv;
		for (int g : { 1, 2, 4, 8 }) {
			cv.gpus.push_back(g);
			std::vector<double> by_nodes(std::min(g, 8) + 1, kNoRow);
			by_nodes[(g + 3) / 4] = t1 / std::pow(g, alpha);
			cv.epoch_s.push_back(by_nodes);
		}
		return cv;
	};
	in.curves = { curve(100, 0.9), curve(60, 0.5) };
	for (int i = 0; i < pending; i++) {
		PlanJob j;
		j.id = i;
		j.curve = i % 2;
		j.remaining_epochs = 1 + i % 6;
		in.jobs.push_back(j);
	}
	return in;
}

START_TEST(test_long_queue_is_searched_coarse_to_fine)
{
	PlanInput in = long_queue(300);
	Plan coarse = make_plan(in);
	PlanSearch all;
	all.exhaustive = true;
	Plan full = make_plan(in, {}, all);
	ck_assert_int_eq(coarse.unplaced, 0);
	ck_assert_int_le(coarse.candidates, 16); // 4 budgets x 3 orders, 4 neighbours
	ck_assert_int_gt(full.candidates, coarse.candidates);
	ck_assert(!coarse.incremental);
	// Both are real plans of every job: each ends after it starts.
	for (const PlannedJob &j : coarse.jobs)
		ck_assert(j.end_s() > j.start_s());
	// The whole grid cannot do worse than a part of it.
	ck_assert(full.makespan_s <= coarse.makespan_s * (1 + 1e-9));
}
END_TEST

START_TEST(test_short_queue_searches_the_whole_grid)
{
	PlanInput in = long_queue(40);
	PlanSearch all;
	all.exhaustive = true;
	Plan p = make_plan(in);
	Plan q = make_plan(in, {}, all);
	ck_assert_int_eq(p.candidates, q.candidates);
	ck_assert(p.makespan_s == q.makespan_s);
}
END_TEST

START_TEST(test_incremental_replan_simulates_the_kept_choice_and_neighbours)
{
	PlanInput in = long_queue(300);
	Plan first = make_plan(in);
	PlanJob extra;
	extra.id = 1000;
	extra.curve = 0;
	extra.remaining_epochs = 3;
	in.jobs.push_back(extra);
	PlanSearch inc;
	inc.max_simulations = 2;
	Plan p = make_plan(in, first.choice, inc);
	ck_assert(p.incremental);
	ck_assert_int_le(p.candidates, 3);
	ck_assert_int_eq(p.unplaced, 0);
	// Without a kept choice there is nothing to be incremental about.
	Plan cold = make_plan(in, {}, inc);
	ck_assert(!cold.incremental);
}
END_TEST

START_TEST(test_replanner_goes_incremental_while_little_changes)
{
	PlanInput in = long_queue(300);
	Replanner r;
	ck_assert(!r.plan(in).incremental); // first plan: full
	ck_assert(r.plan(in).incremental);  // nothing changed
	PlanJob extra;
	extra.id = 1000;
	extra.curve = 1;
	extra.remaining_epochs = 2;
	in.jobs.push_back(extra);
	ck_assert(r.plan(in).incremental); // one arrival in 301
	// Five more arrivals: 6 changed since the full search, over 1%.
	for (int k = 1; k <= 5; k++) {
		extra.id = 1000 + k;
		in.jobs.push_back(extra);
	}
	ck_assert(!r.plan(in).incremental);
	ck_assert(r.plan(in).incremental); // counted from the new full search
	// A choice from elsewhere: the next plan searches fully.
	r.set_choice(r.choice());
	ck_assert(!r.plan(in).incremental);
}
END_TEST

START_TEST(test_replanner_searches_fully_after_enough_incremental_passes)
{
	PlanInput in = long_queue(300);
	Replanner r;
	r.plan(in);
	for (int k = 0; k < Replanner::kMaxIncremental; k++)
		ck_assert(r.plan(in).incremental);
	ck_assert(!r.plan(in).incremental);
}
END_TEST

START_TEST(test_replanner_on_a_short_queue_always_searches_fully)
{
	PlanInput in = long_queue(100);
	Replanner r;
	for (int k = 0; k < 3; k++)
		ck_assert(!r.plan(in).incremental);
}
END_TEST

int main()
{
	Suite *s = suite_create("replanner");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_long_queue_is_searched_coarse_to_fine);
	tcase_add_test(tc, test_short_queue_searches_the_whole_grid);
	tcase_add_test(tc, test_incremental_replan_simulates_the_kept_choice_and_neighbours);
	tcase_add_test(tc, test_replanner_goes_incremental_while_little_changes);
	tcase_add_test(tc, test_replanner_searches_fully_after_enough_incremental_passes);
	tcase_add_test(tc, test_replanner_on_a_short_queue_always_searches_fully);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
