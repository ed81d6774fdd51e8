// test_reference.cpp - Slurm's own policy from the plan's state
// (planner/reference.hpp) on hand-made states, and the bound make_plan keeps
// against it: priority order (which also breaks the plan's own ties), running jobs' ends, conservative backfill, a
// higher-priority arrival moving a job as backfill would, pools, CPUs and
// memory and overruns in the shadow, a promoted job holding its start in
// the plan's simulation, and on random inputs no bound job planned past
// its deadline.
#include "check_cxx.hpp"

#include <cmath>
#include <limits>
#include <vector>

#include "planner/plan_simulation.hpp"
#include "planner/planner.hpp"
#include "planner/reference.hpp"
#include "planner/reference_shadow.hpp"
#include "plan_fixture.hpp"

using namespace omru;
using namespace omru::planner;
using omru_test::moldable;
using omru_test::refusal;
using omru_test::rigid;
using omru_test::running_on_node0;

namespace {

PlanInput cluster(int nodes)
{
	return omru_test::gpu_cluster(nodes);
}

// A pending job of `curve` asking `asked` GPUs, `epochs` of work.
PlanJob pending(long id, int curve, int asked, double epochs, double priority = 0,
		double submit_s = 0)
{
	PlanJob j;
	j.id = id;
	j.curve = curve;
	j.asked_gpus = asked;
	j.remaining_epochs = epochs;
	j.priority = priority;
	j.submit_s = submit_s;
	return j;
}

} // namespace

START_TEST(test_priority_order_then_submission)
{
	// One node; three 4-GPU jobs (100 s each): the reference runs them by
	// priority, equal priorities by submission.
	PlanInput in = cluster(1);
	in.curves = { rigid(4, 1) };
	in.jobs = { pending(1, 0, 4, 1, 0, 0), pending(2, 0, 4, 1, 5, 10),
		    pending(3, 0, 4, 1, 0, -5) };
	Reference ref = backfill_reference(in);
	ck_assert(ref.order == (std::vector<int>{ 1, 2, 0 }));
	ck_assert_double_eq(ref.start_s[1], 0);
	ck_assert_double_eq(ref.start_s[2], 100);
	ck_assert_double_eq(ref.start_s[0], 200);
	ck_assert_double_eq(ref.end_s[0], 300);
}
END_TEST

START_TEST(test_slurm_priority_breaks_the_plans_ties)
{
	// One node, two jobs the plan's objective cannot tell apart (4 GPUs,
	// 100 s each): without the bound, Slurm's priority still decides which
	// starts first (fair share, QOS), not the order they came in.
	PlanInput in = cluster(1);
	in.bound.on = false;
	in.curves = { rigid(4, 1) };
	in.jobs = { pending(1, 0, 4, 1, 0, 0), pending(2, 0, 4, 1, 5, 10) };
	Plan p = make_plan(in, PlanChoice{}, PlanSearch{});
	ck_assert_int_eq(p.now.size(), 1);
	ck_assert_int_eq(p.now[0].job, 1);
	ck_assert_double_eq(p.jobs[0].start_s(), 100);
}
END_TEST

START_TEST(test_backfill_never_delays_a_higher_priority_job)
{
	// One node, 3 GPUs held by a job until 100 s.  Head: 4 GPUs (waits
	// for 100).  Behind it: a 1-GPU job of 100 s fits beside the running
	// job and ends by 100: backfilled now; a 1-GPU job of 400 s would delay
	// the head: it waits for the head's end.
	PlanInput in = cluster(1);
	in.free_per_node = { 1 };
	in.curves = { rigid(4, 1), rigid(1, 1), rigid(3, 1) };
	in.jobs.push_back(running_on_node0(pending(9, 2, 3, 1), 3, 100, 1, false));
	in.jobs.push_back(pending(1, 0, 4, 1, 3));
	in.jobs.push_back(pending(2, 1, 1, 1, 2));
	in.jobs.push_back(pending(3, 1, 1, 4, 1));
	Reference ref = backfill_reference(in);
	ck_assert_double_eq(ref.end_s[0], 100);
	ck_assert_double_eq(ref.start_s[1], 100);
	ck_assert_double_eq(ref.start_s[2], 0);
	ck_assert_double_eq(ref.start_s[3], 200);
	ck_assert(ref.where[2] == (NodeCounts{ { 0, 1 } }));
	// The job started now is what the reference plan starts now.
	Plan p = reference_plan(in, ref);
	ck_assert(p.is_reference);
	ck_assert_int_eq(static_cast<int>(p.now.size()), 1);
	ck_assert_int_eq(p.now[0].job, 2);
	ck_assert_double_eq(p.jobs[3].end_s(), 600);
}
END_TEST

// One 4-GPU node: r runs on 3 GPUs, predicted to end at 8, its limit at
// 600; x (priority 3) waits for all 4 GPUs, 100 s, limit 300; a third job
// (priority 1) asks 1 GPU for `epochs` x 100 s, limit `limit_s`.
PlanInput hole_before_a_reservation(double epochs, double limit_s)
{
	PlanInput in = cluster(1);
	in.free_per_node = { 1 };
	in.curves = { rigid(3, 1), rigid(4, 1), rigid(1, 1) };
	PlanJob r = running_on_node0(pending(9, 0, 3, 1), 3, 8, 1, false);
	r.limit_end_s = 600;
	PlanJob x = pending(1, 1, 4, 1, 3);
	x.limit_s = 300;
	PlanJob third = pending(2, 2, 1, epochs, 1);
	third.limit_s = limit_s;
	in.jobs = { r, x, third };
	return in;
}

// The same state with no limit known: the predictions decide alone.
PlanInput without_limits(PlanInput in)
{
	for (PlanJob &pj : in.jobs)
		pj.limit_s = pj.limit_end_s = 0;
	return in;
}

START_TEST(test_a_short_limit_starts_in_a_hole_as_under_backfill)
{
	// y (60 s, limit 240).  On predictions x starts at 8 and y's 60 s
	// would delay it: y after x.  sched/backfill sees r's GPUs back at 600
	// and y's limit ending before: it starts y now, and so does the
	// reference; x then starts when y's GPU is back.
	PlanInput in = hole_before_a_reservation(0.6, 240);
	Reference ref = backfill_reference(in);
	ck_assert_double_eq(ref.start_s[2], 0);
	ck_assert_double_eq(ref.end_s[2], 60);
	ck_assert_double_eq(ref.start_s[1], 60);
	ck_assert_double_eq(ref.end_s[1], 160);
	Plan p = reference_plan(in, ref);
	ck_assert_int_eq(static_cast<int>(p.now.size()), 1);
	ck_assert_int_eq(p.now[0].job, 2);
	ref = backfill_reference(without_limits(in));
	ck_assert_double_eq(ref.start_s[1], 8);
	ck_assert_double_eq(ref.start_s[2], 108);
}
END_TEST

START_TEST(test_a_long_limit_waits_as_under_backfill)
{
	// w (5 s, limit 1000): on predictions it ends before x starts at 8,
	// but its limit runs into x's reservation (at r's limit, 600):
	// sched/backfill does not start it now, nor does the reference; it
	// starts after x (108), ends 5 s later.
	PlanInput in = hole_before_a_reservation(0.05, 1000);
	Reference ref = backfill_reference(in);
	ck_assert_double_eq(ref.start_s[1], 8);
	ck_assert_double_eq(ref.start_s[2], 108);
	ck_assert_double_eq(ref.end_s[2], 113);
	ck_assert_int_eq(static_cast<int>(reference_plan(in, ref).now.size()), 0);
	ck_assert_double_eq(backfill_reference(without_limits(in)).start_s[2], 0);
}
END_TEST

START_TEST(test_a_job_past_its_limit_holds_its_gpus)
{
	// At 700 r is past its limit (600) and predicted to end at 708: its
	// GPUs are not free now, so x (4 GPUs) does not start now but at 708,
	// and the reference starts nothing on GPUs r still holds.
	PlanInput in = hole_before_a_reservation(0.05, 1000);
	in.now_s = 700;
	in.jobs[0].progress_start_s = 600; // one epoch of 108 s: ends at 708
	in.jobs[0].epoch_s = 108;
	in.jobs.pop_back();
	Reference ref = backfill_reference(in);
	ck_assert_double_eq(ref.start_s[1], 708);
	ck_assert_int_eq(static_cast<int>(reference_plan(in, ref).now.size()), 0);
}
END_TEST

START_TEST(test_shadow_starts_by_limits)
{
	// The shadow decides as the reference does: y starts in the hole at 0
	// and ends at 60; x waits for its GPU and ends at 160.
	std::vector<double> e = ReferenceShadow().ends(hole_before_a_reservation(0.6, 240));
	ck_assert_double_eq(e[2], 60);
	ck_assert_double_eq(e[1], 160);
}
END_TEST

START_TEST(test_higher_priority_arrival_moves_a_job)
{
	// Two nodes.  A 4-GPU job of 300 s is reserved at 0 on one node;
	// a newcomer of higher priority asking 8 GPUs takes both nodes first,
	// so the earlier job moves behind it, as under backfill.
	PlanInput in = cluster(2);
	in.curves = { rigid(4, 2), rigid(8, 2) };
	in.jobs = { pending(1, 0, 4, 3, 0) };
	ck_assert_double_eq(backfill_reference(in).start_s[0], 0);
	in.jobs.push_back(pending(2, 1, 8, 1, 10, 5));
	Reference ref = backfill_reference(in);
	ck_assert_double_eq(ref.start_s[1], 0);
	ck_assert_double_eq(ref.start_s[0], 100);
	ck_assert_double_eq(ref.end_s[0], 400);
}
END_TEST

START_TEST(test_asked_count_and_nearest)
{
	// A moldable job runs at what it asked; a count its curve lacks goes
	// to the nearest (smaller on ties).
	PlanInput in = cluster(1);
	SpeedCurve two_four;
	two_four.gpus = { 2, 4 };
	two_four.epoch_s = { { 100, 100 }, { 60, 60 } };
	in.curves = { moldable(1), two_four };
	in.jobs = { pending(1, 0, 2, 1), pending(2, 1, 3, 1) };
	Reference ref = backfill_reference(in);
	ck_assert_int_eq(in.curves[0].gpus[ref.option[0]], 2);
	ck_assert_double_eq(ref.end_s[0], 200);
	ck_assert_int_eq(in.curves[1].gpus[ref.option[1]], 2);
	ck_assert_double_eq(ref.start_s[1], 0);
}
END_TEST

START_TEST(test_pools_hold_a_job_until_room)
{
	// A user's limit of 2 GPUs: a running job holds 2 until 100 s, so
	// the user's pending 1-GPU job waits for it though GPUs are free.
	PlanInput in = cluster(1);
	in.free_per_node = { 2 };
	in.pool_capacity = { 2 };
	in.curves = { rigid(1, 1), rigid(2, 1) };
	PlanJob run = running_on_node0(pending(9, 1, 2, 1), 2, 100, 1, false);
	run.pools = { { 0, 1, 0 } };
	PlanJob wait = pending(1, 0, 1, 1);
	wait.pools = { { 0, 1, 0 } };
	in.jobs = { run, wait, pending(2, 0, 1, 1) };
	Reference ref = backfill_reference(in);
	ck_assert_double_eq(ref.start_s[1], 100);
	ck_assert_double_eq(ref.start_s[2], 0);
}
END_TEST

START_TEST(test_a_job_its_limit_blocks_gets_no_reservation)
{
	// A user's limit of 4 GPUs, 2 held by a running job until 100.  Her
	// 4-GPU job (higher priority) is blocked by the limit now; her 1-GPU
	// job (200 s) fits it now.  sched/backfill reserves nothing for a
	// job its limits block, so the 1-GPU job starts now and the 4-GPU job
	// when both are done, at 200 (reserving its room at 100 would have
	// held the 1-GPU job until 200).
	PlanInput in = cluster(2);
	in.free_per_node = { 2, 0 }; // node 1 held by jobs outside the plan
	in.pool_capacity = { 4 };
	in.curves = { rigid(4, 1), rigid(1, 1), rigid(2, 1) };
	PlanJob run = running_on_node0(pending(9, 2, 2, 1), 2, 100, 1, false);
	PlanJob big = pending(1, 0, 4, 1, 2), small = pending(2, 1, 1, 2, 1);
	run.pools = big.pools = small.pools = { PoolUse{ 0, 1, 0 } };
	in.jobs = { run, big, small };
	Reference ref = backfill_reference(in);
	ck_assert_double_eq(ref.start_s[2], 0);
	ck_assert_double_eq(ref.start_s[1], 200);
	// With room for it now, it keeps its place: the 1-GPU job waits.
	in.pool_capacity = { 6 };
	ref = backfill_reference(in);
	ck_assert_double_eq(ref.start_s[1], 100);
	ck_assert_double_eq(ref.end_s[2], 400);
}
END_TEST

START_TEST(test_deadlines_stretch_the_reference)
{
	PlanInput in = cluster(1);
	in.now_s = 50;
	in.bound.on = true;
	in.bound.slack = 0.1;
	in.bound.slack_s = 5;
	in.curves = { rigid(4, 1) };
	in.jobs = { pending(1, 0, 4, 1, 0, 0), pending(2, 0, 0, 1, 0, 10) };
	Reference ref = backfill_reference(in);
	std::vector<double> d = reference_deadlines(in, ref.end_s);
	// Job 1: ends at 150, submitted at 0: 0 + 150 x 1.1 + 5.
	ck_assert_double_eq_tol(d[0], 170, 1e-9);
	// Job 2 asked no count: no bound.
	ck_assert(std::isinf(d[1]));
	in.bound.max_jobs = 0;
	ck_assert(std::isinf(reference_deadlines(in, ref.end_s)[0]));
	in.bound.slack = -1;
	ck_assert(refusal(in).find("slacks must be finite") != std::string::npos);
}
END_TEST

START_TEST(test_unbounded_plan_breaks_what_the_bound_keeps)
{
	// Makespan planning runs the long job first at 4 GPUs; the short
	// job of higher priority then waits for it.  With the bound, the
	// short job ends within its reference.
	PlanInput in = cluster(1);
	in.curves = { moldable(1) };
	in.jobs = { pending(1, 0, 1, 1, 10), pending(2, 0, 1, 12, 0) };
	Plan free_plan = make_plan(in);
	in.bound.on = true;
	in.bound.slack = 0;
	in.bound.slack_s = 0;
	Plan bound = make_plan(in);
	ck_assert_int_eq(static_cast<int>(bound.ref_end_s.size()), 2);
	ck_assert_double_eq(bound.ref_end_s[0], 400);
	ck_assert(bound.jobs[0].end_s() <= 400 + 1e-9);
	ck_assert_int_eq(bound.late, 0);
	ck_assert(free_plan.ref_end_s.empty());
}
END_TEST

START_TEST(test_the_bound_does_not_count_on_growth)
{
	// One node: 2 GPUs free now, 2 more at 100.  x asks 4 GPUs for 2
	// epochs: backfill starts it at 100, to end at 300.  Started now on 2
	// it would end at 250 if a later plan grew it at 100, but at 400 if
	// none does: the bound holds it to what it starts on, so it waits for
	// the 4 it asked.  Unbounded, mean JCT starts it now on 2.
	PlanInput in = cluster(1);
	in.curves = { moldable(1) };
	in.free_per_node = { 2 };
	PlanJob held = running_on_node0(pending(1, 0, 2, 1), 2, 100, 1, false);
	in.jobs = { held, pending(2, 0, 4, 2) };
	in.objective = Objective::MeanJct;
	Plan free_plan = make_plan(in);
	ck_assert_double_eq(free_plan.jobs[1].start_s(), 0);
	ck_assert_int_eq(free_plan.jobs[1].segments.front().gpus, 2);
	in.bound.on = true;
	in.bound.slack = 0;
	in.bound.slack_s = 0;
	Plan bound = make_plan(in);
	ck_assert_double_eq(bound.jobs[1].start_s(), 100);
	ck_assert_int_eq(bound.jobs[1].segments.front().gpus, 4);
	ck_assert_double_eq(bound.jobs[1].end_s(), 300);
}
END_TEST

START_TEST(test_bound_holds_on_random_inputs)
{
	// Property: with the bound on, every pending job that asked a count
	// ends no later than submit + (reference end - submit) x (1 + slack)
	// + slack_s, whatever the search found; random moldable and rigid
	// jobs, priorities, running jobs, on 2 or 3 nodes.
	unsigned seed = 11;
	auto next = [&seed](int n) {
		seed = seed * 1103515245u + 12345u;
		return static_cast<int>((seed >> 16) % n);
	};
	int fell_back = 0;
	for (int round = 0; round < 60; round++) {
		int nodes = 2 + next(2);
		PlanInput in = cluster(nodes);
		in.now_s = 100;
		in.bound.on = true;
		in.bound.slack = 0.05 * next(3);
		in.bound.slack_s = 10.0 * next(2);
		in.objective = next(2) ? Objective::Makespan : Objective::MeanJct;
		in.restart_overhead_s = 20;
		in.curves = { moldable(nodes), rigid(2, nodes), rigid(1, nodes) };
		if (next(2)) {
			PlanJob r = running_on_node0(pending(99, 0, 2, 1), 2, 200, 1 + next(3),
						     next(2) != 0);
			r.progress_start_s = 50;
			in.free_per_node[0] = 2;
			in.jobs.push_back(r);
		}
		int n = 3 + next(8);
		for (long id = 1; id <= n; id++) {
			int curve = next(3);
			int asked = curve == 0 ? 1 + next(4) : in.curves[curve].gpus[0];
			in.jobs.push_back(pending(id, curve, asked, 1 + next(6), next(3),
						  100 - next(100)));
		}
		Plan p = make_plan(in);
		Reference ref = backfill_reference(in);
		std::vector<double> d = reference_deadlines(in, ref.end_s);
		for (size_t j = 0; j < in.jobs.size(); j++) {
			if (in.jobs[j].running || !std::isfinite(d[j]))
				continue;
			ck_assert_msg(p.jobs[j].end_s() <= d[j] + 1e-6 * std::max(1.0, d[j]),
				      "round %d: job %zu ends at %g, its bound is %g", round, j,
				      p.jobs[j].end_s(), d[j]);
			// Without the growth later plans may not give it.
			const PlannedSegment &first = p.jobs[j].segments.front();
			const SpeedCurve &cv = in.curves[in.jobs[j].curve];
			for (size_t o = 0; o < cv.gpus.size(); o++)
				if (cv.gpus[o] == first.gpus) {
					double firm = first.start_s + in.jobs[j].remaining_epochs *
									      cv.epoch_s[o][first.nodes];
					ck_assert_msg(firm <= d[j] + 1e-6 * std::max(1.0, d[j]),
						      "round %d: job %zu ends at %g on the %d GPUs it "
						      "starts on, its bound is %g",
						      round, j, firm, first.gpus, d[j]);
				}
		}
		ck_assert_int_eq(p.late, 0);
		fell_back += p.is_reference;
	}
	// The search keeps the bound by itself on most inputs.
	ck_assert_msg(fell_back < 30, "fell back to the reference %d times of 60", fell_back);
}
END_TEST

START_TEST(test_shadow_keeps_what_backfill_would_have_done)
{
	// One 4-GPU node.  At 0, a (1 epoch, asked 1 GPU: 400 s) is pending:
	// the shadow starts it on 1 GPU, to end at 400.  At 100 the plan
	// really runs a on all 4 GPUs and b (asked 2: 200 s) arrives: in the
	// shadow 3 GPUs are free, so b ends at 300, though the cluster's own
	// state would make it wait for a.
	PlanInput in = cluster(1);
	in.curves = { moldable(1) };
	in.jobs = { pending(1, 0, 1, 1) };
	ReferenceShadow shadow;
	std::vector<double> e = shadow.ends(in);
	ck_assert_double_eq(e[0], 400);
	in.now_s = 100;
	in.free_per_node = { 0 };
	PlanJob a = running_on_node0(pending(1, 0, 1, 1), 4, 100, 4, true); // to 400
	in.jobs = { a, pending(2, 0, 2, 1, 0, 100) };
	e = shadow.ends(in);
	ck_assert_int_eq(static_cast<int>(shadow.running()), 1);
	ck_assert_double_eq(e[0], 400);
	ck_assert_double_eq(e[1], 300);
	ck_assert_double_eq(backfill_reference(in).end_s[1], 600); // from the real state
	// Past a's shadow end, gone from the input: a ends in the shadow too.
	in.now_s = 450;
	in.free_per_node = { 4 };
	in.jobs = { pending(3, 0, 4, 1, 0, 450) };
	e = shadow.ends(in);
	ck_assert_int_eq(static_cast<int>(shadow.running()), 0);
	ck_assert_double_eq(e[0], 550);
	// Time going back starts a new history.
	in.now_s = 0;
	in.jobs = { pending(3, 0, 4, 1, 0, 0) };
	ck_assert_double_eq(shadow.ends(in)[0], 100);
}
END_TEST

START_TEST(test_shadow_ends_what_really_ended_early)
{
	PlanInput in = cluster(1);
	in.curves = { moldable(1) };
	// A blocker first seen running on all 4 GPUs until 1000, cancelled at
	// 50: the job behind it (asked 4: 100 s) ends at 150 in the shadow
	// too, as backfill would have started it at 50.
	{
		ReferenceShadow shadow;
		in.now_s = 0;
		in.free_per_node = { 0 };
		in.jobs = { running_on_node0(pending(1, 0, 4, 1), 4, 1000, 1, false),
			    pending(2, 0, 4, 1) };
		ck_assert_double_eq(shadow.ends(in)[1], 1100);
		in.now_s = 50;
		in.free_per_node = { 4 };
		in.jobs = { pending(2, 0, 4, 1) };
		ck_assert_double_eq(shadow.ends(in)[0], 150);
		ck_assert_int_eq(static_cast<int>(shadow.running()), 0);
	}
	// A job the shadow runs on its asked 1 GPU (0 to 400) really runs on 4
	// from 10 (to 110) and ends at 60, half its real run: in the shadow it
	// ends at half its run there, 200, and a 4-GPU job behind it at 300.
	{
		ReferenceShadow shadow;
		in.now_s = 0;
		in.free_per_node = { 4 };
		in.jobs = { pending(1, 0, 1, 1) };
		ck_assert_double_eq(shadow.ends(in)[0], 400);
		in.now_s = 10;
		in.free_per_node = { 0 };
		PlanJob a = running_on_node0(pending(1, 0, 1, 1), 4, 100, 1, true);
		a.progress_start_s = 10;
		in.jobs = { a };
		shadow.ends(in);
		in.now_s = 60;
		in.free_per_node = { 4 };
		in.jobs = { pending(2, 0, 4, 1, 0, 60) };
		ck_assert_double_eq(shadow.ends(in)[0], 300);
	}
	// A job the shadow runs that is withdrawn before it really ran (a
	// cancel while pending) frees its GPU in the shadow at once.
	{
		ReferenceShadow shadow;
		in.now_s = 0;
		in.jobs = { pending(1, 0, 1, 1) };
		ck_assert_double_eq(shadow.ends(in)[0], 400);
		in.now_s = 30;
		in.jobs = { pending(2, 0, 4, 1, 0, 30) };
		ck_assert_double_eq(shadow.ends(in)[0], 130);
	}
}
END_TEST

START_TEST(test_shadow_waits_for_pools)
{
	// One 4-GPU node, a user's GPU limit of 2 (a pool): the user's two
	// 2-GPU jobs run one after the other in the shadow, as Slurm would
	// run them, not side by side.
	PlanInput in = cluster(1);
	in.curves = { moldable(1) };
	in.pool_capacity = { 2 };
	PlanJob a = pending(1, 0, 2, 1), b = pending(2, 0, 2, 1);
	a.pools = b.pools = { PoolUse{ 0, 1, 0 } };
	in.jobs = { a, b };
	ReferenceShadow shadow;
	std::vector<double> e = shadow.ends(in);
	ck_assert_double_eq(e[0], 200);
	ck_assert_double_eq(e[1], 400);
}
END_TEST

START_TEST(test_shadow_waits_for_cpus_and_memory)
{
	// One node: 4 GPUs, 16 CPUs, 64 GB.  a (asked 1 GPU with 12 CPUs: 400
	// s) runs in the shadow; b (asked 2 GPUs, 4 CPUs each) fits its GPUs
	// beside a but not its CPUs: it waits for a, as cons_tres would make
	// it, and ends at 600, not 200.
	PlanInput in = cluster(1);
	in.curves = { moldable(1) };
	in.node_cpus = in.free_cpus = { 16 };
	in.node_mem = in.free_mem = { 65536 };
	PlanJob a = pending(1, 0, 1, 1), b = pending(2, 0, 2, 1);
	a.need.cpus_per_gpu = 12;
	b.need.cpus_per_gpu = 4;
	in.jobs = { a, b };
	{
		ReferenceShadow shadow;
		std::vector<double> e = shadow.ends(in);
		ck_assert_double_eq(e[0], 400);
		ck_assert_double_eq(e[1], 600);
		// At 100 the plan really runs a on 4 GPUs with 12 CPUs: the
		// shadow gives those back and still holds a's 12 CPUs on its
		// 1 GPU, so b still ends at 600.
		in.now_s = 100;
		in.free_per_node = { 0 };
		in.free_cpus = { 4 };
		PlanJob ra = running_on_node0(a, 4, 100, 3, true);
		ra.progress_start_s = 100;
		in.jobs = { ra, b };
		e = shadow.ends(in);
		ck_assert_double_eq(e[1], 600);
	}
	// A CPU job outside the plan holding 12 of the node's CPUs keeps
	// them in the shadow: b (8 CPUs) never fits beside it, so b has no
	// end while the input says so.
	{
		ReferenceShadow shadow;
		in.now_s = 0;
		in.free_per_node = { 4 };
		in.free_cpus = { 4 };
		in.jobs = { b };
		ck_assert(!std::isfinite(shadow.ends(in)[0]));
	}
	// Memory binds the same way: b asks 40 GB per GPU, a holds 40 GB.
	{
		ReferenceShadow shadow;
		in.now_s = 0;
		in.free_per_node = { 4 };
		in.free_cpus = { 16 };
		a.need = NodeNeed{};
		b.need = NodeNeed{};
		a.need.mem_per_gpu = 40000;
		b.need.mem_min = 40000;
		in.jobs = { a, b };
		std::vector<double> e = shadow.ends(in);
		ck_assert_double_eq(e[0], 400);
		ck_assert_double_eq(e[1], 600);
	}
}
END_TEST

START_TEST(test_shadow_waits_for_an_overrun)
{
	// One node.  a was first seen running on all 4 GPUs, to end at 100;
	// b (asked 4: 100 s) waits for it: 100 to 200.  a really runs past
	// 100: at 120 it still runs, so in the shadow it held its GPUs to 120
	// too (backfill would have waited as long), and b, planned at 100,
	// starts at 120 instead.
	PlanInput in = cluster(1);
	in.curves = { moldable(1) };
	in.free_per_node = { 0 };
	PlanJob b = pending(2, 0, 4, 1);
	in.jobs = { running_on_node0(pending(1, 0, 4, 1), 4, 100, 1, false), b };
	ReferenceShadow shadow;
	ck_assert_double_eq(shadow.ends(in)[1], 200);
	in.now_s = 99;
	ck_assert_double_eq(shadow.ends(in)[1], 200);
	// The plugin predicts an overdue job 10 s on from now.
	in.now_s = 120;
	PlanJob late = running_on_node0(pending(1, 0, 4, 1), 4, 10, 1, false);
	late.progress_start_s = 120;
	in.jobs = { late, b };
	std::vector<double> e = shadow.ends(in);
	ck_assert_double_eq(e[0], 120);
	ck_assert_double_eq(e[1], 220);
	// a ends for real at 125: b runs in the shadow from 120 as planned.
	in.now_s = 125;
	in.free_per_node = { 4 };
	in.jobs = { b };
	ck_assert_double_eq(shadow.ends(in)[0], 220);
	ck_assert_int_eq(static_cast<int>(shadow.running()), 1);
}
END_TEST

START_TEST(test_shadow_decides_again_when_a_limit_frees)
{
	// One node; a user's limit of 2 GPUs, held by her running job a
	// until 100.  Her b (2 GPUs, 200 s) has the higher priority; c
	// (another user's, 4 GPUs, 100 s) the lower.  At 0 her limit blocks
	// b: no reservation, so the reference then starts c at 100 and b
	// after it.  Under Slurm, when a ends at 100 b fits its limit again
	// and goes first: b 100-300, c 300-400.  The next pass comes at 150:
	// the shadow decides again at 100 rather than start c as planned at 0.
	PlanInput in = cluster(1);
	in.curves = { moldable(1) };
	in.pool_capacity = { 2 };
	in.free_per_node = { 2 };
	PlanJob a = running_on_node0(pending(9, 0, 2, 1), 2, 100, 1, false);
	PlanJob b = pending(1, 0, 2, 1, 2), c = pending(2, 0, 4, 1, 1);
	a.pools = b.pools = { PoolUse{ 0, 1, 0 } };
	in.jobs = { a, b, c };
	ReferenceShadow shadow;
	std::vector<double> e = shadow.ends(in);
	ck_assert_double_eq(e[2], 200);
	ck_assert_double_eq(e[1], 400);
	in.now_s = 150;
	in.free_per_node = { 4 };
	in.jobs = { b, c };
	e = shadow.ends(in);
	ck_assert_double_eq(e[0], 300);
	ck_assert_double_eq(e[1], 400);
	ck_assert_int_eq(static_cast<int>(shadow.running()), 1);
}
END_TEST

START_TEST(test_a_promoted_job_holds_its_start)
{
	// One node; r holds 2 GPUs to 100.  First in the order, a (4 GPUs,
	// 100 s) can start at 100; b (2 GPUs, 200 s) and c (2 GPUs, 50 s)
	// fit now.  List scheduling alone starts b now and a only at 200;
	// with a holding its start, as backfill reserves for it, b would
	// still run at 100 and waits, c ends by then and starts now.
	PlanInput in = cluster(1);
	in.curves = { rigid(4, 1), rigid(2, 1) };
	in.free_per_node = { 2 };
	PlanJob r = pending(9, 1, 2, 1);
	in.jobs = { running_on_node0(r, 2, 100, 1, false), pending(1, 0, 4, 1),
		    pending(2, 1, 2, 2), pending(3, 1, 2, 0.5) };
	Candidate c;
	c.option = { 0, 0, 0, 0 };
	c.order = { 1, 2, 3 };
	Outcome free_for_all = simulate_plan(in, c, true);
	ck_assert_double_eq(free_for_all.jobs[2].start_s(), 0);
	ck_assert_double_eq(free_for_all.jobs[1].start_s(), 200);
	c.reserve = { 0, 1, 0, 0 };
	Outcome held = simulate_plan(in, c, true);
	ck_assert_double_eq(held.jobs[3].start_s(), 0);
	ck_assert_double_eq(held.jobs[1].start_s(), 100);
	ck_assert_double_eq(held.jobs[2].start_s(), 200);
}
END_TEST

START_TEST(test_nothing_starts_now_on_gpus_freed_a_second_later)
{
	// select/omru's times are Unix seconds.  The node's running job ends
	// 1.5 s from now; the 4-GPU job waiting for it must not be started
	// now (cons_tres refuses it, and the refusal took the job's only node
	// from the plan: the limits bench, seed 2).
	const double now = 1796175000.485;
	PlanInput in = cluster(1);
	in.now_s = now;
	in.free_per_node = { 3 };
	in.curves = { rigid(4, 1), rigid(1, 1) };
	PlanJob r = running_on_node0(pending(9, 1, 1, 1), 1, 100, 1, false);
	r.progress_start_s = now + 1.5 - 100;
	r.submit_s = r.progress_start_s;
	in.jobs = { r, pending(1, 0, 4, 1, 0, now - 60) };
	Reference ref = backfill_reference(in);
	ck_assert_double_eq(ref.start_s[1], now + 1.5);
	ck_assert(!starts_now(in, ref, 1));
	ck_assert(reference_plan(in, ref).now.empty());
	// Once it has ended (the next pass), it starts.
	in.now_s = now + 2;
	in.jobs = { pending(1, 0, 4, 1, 0, now - 60) };
	in.free_per_node = { 4 };
	ref = backfill_reference(in);
	ck_assert(starts_now(in, ref, 0));
	ck_assert_int_eq(static_cast<int>(reference_plan(in, ref).now.size()), 1);
}
END_TEST

START_TEST(test_a_late_job_under_its_users_limit_takes_the_count_that_fits)
{
	// A user's limit of 2 GPUs; her running job holds 1 of it until
	// 500 s, and a job outside the plan holds another GPU: 2 are free.
	// x, hers, asked 2 GPUs (1 epoch: 300 s on 1 GPU, 100 s on 2, so 2
	// is the cheaper count): room for 2 under her limit comes at 500.
	// y, another user's, lower priority, asked both free GPUs for 50 s.
	// The shadow promised x an end at 300 (her jobs held less of the
	// limit there).  Promoted at its asked count x would end at 600; on
	// the 1 GPU her limit leaves now it ends at 300, on time, and y waits
	// for it (y's own bound is far).
	PlanInput in = cluster(1);
	in.free_per_node = { 2 };
	in.pool_capacity = { 2 };
	SpeedCurve cv;
	cv.gpus = { 1, 2 };
	cv.epoch_s = { { 300, 300 }, { 100, 100 } };
	in.curves = { rigid(1, 1), cv, rigid(2, 1) };
	PlanJob r = running_on_node0(pending(9, 0, 1, 1), 1, 500, 1, false);
	PlanJob x = pending(1, 1, 2, 1, 10);
	r.pools = x.pools = { PoolUse{ 0, 1, 0 } };
	PlanJob y = pending(2, 2, 2, 0.5, 1);
	in.jobs = { r, x, y };
	in.objective = Objective::MeanJct;
	in.bound.on = true;
	in.bound.slack = 0;
	in.bound.slack_s = 0;
	const std::vector<double> shadow_end = { 500, 300, 1000 };
	Plan plan = make_plan(in, {}, {}, &shadow_end);
	ck_assert_int_eq(plan.late, 0);
	ck_assert_int_eq(plan.jobs[1].segments.front().gpus, 1);
	ck_assert_double_eq(plan.jobs[1].start_s(), 0);
	ck_assert_double_eq(plan.jobs[1].end_s(), 300);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("reference");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_priority_order_then_submission);
	tcase_add_test(tc, test_slurm_priority_breaks_the_plans_ties);
	tcase_add_test(tc, test_backfill_never_delays_a_higher_priority_job);
	tcase_add_test(tc, test_higher_priority_arrival_moves_a_job);
	tcase_add_test(tc, test_a_short_limit_starts_in_a_hole_as_under_backfill);
	tcase_add_test(tc, test_a_long_limit_waits_as_under_backfill);
	tcase_add_test(tc, test_a_job_past_its_limit_holds_its_gpus);
	tcase_add_test(tc, test_shadow_starts_by_limits);
	tcase_add_test(tc, test_asked_count_and_nearest);
	tcase_add_test(tc, test_pools_hold_a_job_until_room);
	tcase_add_test(tc, test_a_job_its_limit_blocks_gets_no_reservation);
	tcase_add_test(tc, test_a_late_job_under_its_users_limit_takes_the_count_that_fits);
	tcase_add_test(tc, test_nothing_starts_now_on_gpus_freed_a_second_later);
	tcase_add_test(tc, test_deadlines_stretch_the_reference);
	tcase_add_test(tc, test_unbounded_plan_breaks_what_the_bound_keeps);
	tcase_add_test(tc, test_the_bound_does_not_count_on_growth);
	tcase_add_test(tc, test_bound_holds_on_random_inputs);
	tcase_add_test(tc, test_shadow_keeps_what_backfill_would_have_done);
	tcase_add_test(tc, test_shadow_ends_what_really_ended_early);
	tcase_add_test(tc, test_shadow_waits_for_pools);
	tcase_add_test(tc, test_shadow_waits_for_cpus_and_memory);
	tcase_add_test(tc, test_shadow_waits_for_an_overrun);
	tcase_add_test(tc, test_shadow_decides_again_when_a_limit_frees);
	tcase_add_test(tc, test_a_promoted_job_holds_its_start);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
