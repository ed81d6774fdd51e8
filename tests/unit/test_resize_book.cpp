// test_resize_book.cpp - elastic jobs in the controller: the resize book's
// life cycle (stop asked, stopped for the requeue, resumed: cost measured;
// given up after the grace), what the plan input makes of it (resizable
// elastic jobs priced at the measured cost, GPUs held for resizes under
// way), and the controller deciding a resize once and starting the
// requeued job first on its new GPUs; phase-aware reallocation (a job in
// its late training phase, and only such a job, shrunk so a waiting job
// starts; one shrink at a time); the book across a slurmctld restart (its
// state file).
#include "check_cxx.hpp"

#include <cmath>

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <unistd.h>

#include "controller/controller.hpp"
#include "controller/plan_input.hpp"
#include "controller/resize_book.hpp"
#include "controller/resize_state.hpp"
#include "model/csv_table.hpp"
#include "omru/omru_ctl.h"

using namespace omru;
using namespace omru::controller;

namespace {

// fast: near-linear to 4 GPUs on a node (100 s per epoch on one).
std::shared_ptr<const ProfileTable> fast_profiles()
{
	return std::make_shared<ProfileTable>(ProfileTable::from_csv(CsvTable::parse(
		"p.csv", "model,gpus,epoch_s\nfast,1,100\nfast,2,51\nfast,3,35\nfast,4,26\n")));
}

Resize resize(uint32_t job, const std::string &model, int from, int to, double at)
{
	Resize r;
	r.job_id = job;
	r.model = model;
	r.from_gpus = from;
	r.to_gpus = to;
	r.where = { { 0, to } };
	r.asked_s = at;
	return r;
}

NodeSnap node4()
{
	NodeSnap n;
	n.name = "n1";
	n.gpus = 4;
	return n;
}

// An elastic job of `fast` running on GPU count `gpus` of node 0 since `start`.
JobSnap running_elastic(uint32_t id, int gpus, double start, double epochs = 20)
{
	JobSnap j;
	j.job_id = id;
	j.running = true;
	j.submit_s = start;
	j.start_s = start;
	j.omru = true;
	j.elastic = true;
	j.model = "fast";
	j.epochs = epochs;
	j.gpus_min = 1;
	j.gpus_max = 4;
	j.gpus = gpus;
	j.time_limit_s = 86400;
	j.where = { { 0, gpus } };
	return j;
}

PlanSettings settings(double cost_s = 10)
{
	PlanSettings s;
	s.resize.default_cost_s = cost_s;
	s.resize.margin = 0.1;
	s.resize.grace_s = 60;
	return s;
}

} // namespace

START_TEST(test_book_measures_the_restart_cost_of_a_resumed_job)
{
	ResizeBook b(settings(10).resize);
	ck_assert_double_eq_tol(b.priced_cost_s("fast"), 11, 1e-9); // default x 1.1
	ck_assert(b.request(resize(7, "fast", 1, 4, 1000)));
	ck_assert(!b.request(resize(7, "fast", 1, 4, 1001))); // once
	ck_assert(b.under_way(7) != nullptr);
	ck_assert(b.ended(7, true, 1002));
	auto r = b.started(7, 1030);
	ck_assert(r.has_value());
	ck_assert_double_eq_tol(r->cost_s, 30, 1e-9);
	ck_assert(b.under_way(7) == nullptr);
	// Not resized again before it ran twice its restart cost.
	ck_assert(b.resting(7, 1031));
	ck_assert(b.resting(7, 1089));
	ck_assert(!b.resting(7, 1091));
	ck_assert(!b.resting(99, 1031));
	// The model's mean, then the mean over all models for another model.
	ck_assert_double_eq_tol(b.priced_cost_s("fast"), 33, 1e-9);
	ck_assert_double_eq_tol(b.priced_cost_s("other"), 33, 1e-9);
	ck_assert(b.request(resize(8, "other", 2, 4, 2000)));
	ck_assert(b.ended(8, true, 2001));
	b.started(8, 2010);
	ck_assert_double_eq_tol(b.priced_cost_s("other"), 11, 1e-9);
	ck_assert_double_eq_tol(b.priced_cost_s("third"), 1.1 * 20, 1e-9);
	ck_assert_int_eq(b.measured().first, 2);
}
END_TEST

START_TEST(test_book_gives_up_a_job_that_does_not_stop)
{
	ResizeBook b(settings().resize);
	ck_assert(b.request(resize(7, "fast", 1, 4, 1000)));
	ck_assert(b.expire(1059).empty());
	auto log = b.expire(1061);
	ck_assert_int_eq(log.size(), 1);
	ck_assert(log[0].find("job 7 did not stop within 60 s") != std::string::npos);
	ck_assert(b.refused(7));
	ck_assert(!b.request(resize(7, "fast", 1, 4, 1100))); // never again
	// A job requeued but never started again is only planned anew: the
	// grace counts from when Slurm lets it start (first seen so) ...
	ck_assert(b.request(resize(8, "fast", 1, 4, 1000)));
	b.note_free_to_start(8, 1000); // still stopping: not yet
	ck_assert(b.ended(8, true, 1001));
	ck_assert(b.expire(1040).empty()); // held by Slurm's requeue delay
	b.note_free_to_start(8, 1050);
	b.note_free_to_start(8, 1055); // the first time counts
	ck_assert(b.expire(1070).empty());
	ck_assert(b.expire(1110).empty());
	log = b.expire(1111);
	ck_assert_int_eq(log.size(), 1);
	ck_assert_str_eq(log[0].c_str(), "job 8 was requeued for 4 GPUs but has not started "
					 "there within 60 s of being free to: planned like any "
					 "pending job");
	ck_assert(!b.refused(8));
	ck_assert(b.request(resize(8, "fast", 1, 4, 1200)));
}
END_TEST

START_TEST(test_book_bounds_the_wait_slurm_holds_a_requeued_job)
{
	ResizeBook b(settings().resize);
	// Held all along: one grace of hold, then the grace to start.
	ck_assert(b.request(resize(9, "fast", 1, 4, 1000)));
	ck_assert(b.ended(9, true, 1001));
	ck_assert(b.expire(1121).empty());
	auto log = b.expire(1122);
	ck_assert_int_eq(log.size(), 1);
	ck_assert_str_eq(log[0].c_str(), "job 9 was requeued for 4 GPUs but Slurm has held it "
					 "for 121 s: planned like any pending job");
	ck_assert(b.under_way(9) == nullptr);
	// Free to start only after more than a grace of hold: the hold
	// counted up to one grace, the start has one more.
	ck_assert(b.request(resize(10, "fast", 1, 4, 2000)));
	ck_assert(b.ended(10, true, 2001));
	b.note_free_to_start(10, 2100);
	ck_assert(b.expire(2121).empty());
	ck_assert_int_eq(b.expire(2122).size(), 1);
	// Started within it: measured as usual.
	ck_assert(b.request(resize(11, "fast", 1, 4, 3000)));
	ck_assert(b.ended(11, true, 3001));
	ck_assert(b.expire(3030).empty());
	b.note_free_to_start(11, 3040);
	ck_assert(b.expire(3100).empty());
	ck_assert(b.started(11, 3100).has_value());
}
END_TEST

START_TEST(test_book_forgets_a_job_that_ended_otherwise)
{
	ResizeBook b(settings().resize);
	ck_assert(b.request(resize(7, "fast", 1, 4, 1000)));
	ck_assert(!b.ended(7, false, 1005)); // it finished first
	ck_assert(b.under_way(7) == nullptr);
	ck_assert(!b.started(7, 1010).has_value());
	ck_assert_int_eq(b.measured().first, 0);
}
END_TEST

// slurmctld stops while the stopped job completes: the restarted one
// recovers the book and sees the same end again.  The resize stays, timed
// from the first stop; a requeued job cancelled while it waits is dropped.
START_TEST(test_book_keeps_a_stop_reported_again_after_a_restart)
{
	ResizeBook b(settings().resize);
	ck_assert(b.request(resize(7, "fast", 1, 4, 1000)));
	ck_assert(b.ended(7, true, 1002));
	ResizeBook again(settings().resize);
	again.restore(b.state(), 1005);
	ck_assert(again.ended(7, true, 1010));
	ck_assert_ptr_nonnull(again.under_way(7));
	ck_assert_double_eq(again.under_way(7)->stopped_s, 1002);
	auto r = again.started(7, 1014);
	ck_assert(r.has_value());
	ck_assert_double_eq_tol(r->cost_s, 14, 1e-9);
	ck_assert(again.request(resize(8, "fast", 1, 4, 2000)));
	ck_assert(again.ended(8, true, 2001));
	ck_assert(!again.ended(8, false, 2005)); // scancel while requeued
	ck_assert_ptr_null(again.under_way(8));
}
END_TEST

// slurmctld is down while the job stops: its completion reaches the
// restarted slurmctld late (slurmstepd retries every 15 s; CI, once: past
// a 20 s grace).  The grace counts from the restart, not from the request.
START_TEST(test_grace_counts_from_a_restart)
{
	const double grace = settings().resize.grace_s;
	ResizeBook b(settings().resize);
	ck_assert(b.request(resize(7, "fast", 1, 4, 1000)));
	ResizeBook again(settings().resize);
	again.restore(b.state(), 1000 + grace - 1); // down for nearly the grace
	ck_assert(again.expire(1000 + grace + 5).empty());
	ck_assert(again.ended(7, true, 1000 + grace + 6));
	auto r = again.started(7, 1000 + grace + 8);
	ck_assert(r.has_value());
	ck_assert_double_eq_tol(r->cost_s, grace + 8, 1e-9); // from the request
	// Not stopped within the grace of the restart either: given up.
	ResizeBook c(settings().resize);
	ck_assert(c.request(resize(8, "fast", 1, 4, 2000)));
	ResizeBook late(settings().resize);
	late.restore(c.state(), 2010);
	ck_assert(late.expire(2010 + grace).empty());
	ck_assert_int_eq(late.expire(2010 + grace + 1).size(), 1);
	ck_assert(late.refused(8));
	// A requeued job held while slurmctld was down: its hold's grace
	// counts from the restart too.
	ck_assert(c.ended(8, true, 2003));
	ResizeBook held(settings().resize);
	held.restore(c.state(), 2003 + 3 * grace);
	ck_assert(held.expire(2003 + 4 * grace).empty());
	ck_assert_int_eq(held.expire(2003 + 4 * grace + 1).size(), 1);
}
END_TEST

START_TEST(test_only_elastic_running_jobs_are_resizable_at_the_priced_cost)
{
	SpeedBook book(fast_profiles());
	ResizeBook resizes(settings(10).resize);
	Snapshot s;
	s.now_s = 1000;
	s.nodes = { node4() };
	s.jobs = { running_elastic(1, 1, 900) };
	JobSnap rigid = running_elastic(2, 1, 900);
	rigid.elastic = false;
	rigid.where = { { 0, 1 } };
	s.jobs.push_back(rigid);
	s.nodes[0].gpus_alloc = 2;
	BookFor one = [&book](uint32_t) -> SpeedBook & { return book; };
	BuiltInput b = build_plan_input(s, one, settings(10), &resizes);
	ck_assert_int_eq(b.in.jobs.size(), 2);
	ck_assert(b.in.reuse);
	ck_assert(b.in.jobs[0].resizable);
	ck_assert_double_eq_tol(b.in.jobs[0].restart_s, 11, 1e-9);
	ck_assert(!b.in.jobs[1].resizable);
	// Without the book (or with Elastic=no) nothing is resized.
	BuiltInput off = build_plan_input(s, one, settings(10), nullptr);
	ck_assert(!off.in.reuse);
	ck_assert(!off.in.jobs[0].resizable);
	PlanSettings no = settings(10);
	no.elastic = false;
	ck_assert(!build_plan_input(s, one, no, &resizes).in.jobs[0].resizable);
}
END_TEST

START_TEST(test_a_resumed_job_rests_before_another_resize)
{
	SpeedBook book(fast_profiles());
	ResizeBook resizes(settings(10).resize);
	ck_assert(resizes.request(resize(1, "fast", 1, 2, 1000)));
	ck_assert(resizes.ended(1, true, 1001));
	ck_assert(resizes.started(1, 1012).has_value()); // cost 12: rests 24 s
	Snapshot s;
	s.now_s = 1020;
	s.nodes = { node4() };
	s.nodes[0].gpus_alloc = 2;
	s.jobs = { running_elastic(1, 2, 1012) };
	BookFor one = [&book](uint32_t) -> SpeedBook & { return book; };
	ck_assert(!build_plan_input(s, one, settings(10), &resizes).in.jobs[0].resizable);
	s.now_s = 1037;
	ck_assert(build_plan_input(s, one, settings(10), &resizes).in.jobs[0].resizable);
}
END_TEST

START_TEST(test_the_controller_grows_jobs_on_one_node_only)
{
	// 2 nodes of 4: the job holds 2 GPUs of node 0, node 0 has 2 free
	// and node 1 is empty.  Growing to 4 fits node 0; to 6 or 8 it would
	// span both nodes, which a restarted job cannot be placed on exactly.
	std::shared_ptr<const ProfileTable> p = std::make_shared<ProfileTable>(
		ProfileTable::from_csv(CsvTable::parse(
			"p.csv", "model,gpus,epoch_s,nodes\nfast,1,100,\nfast,2,51,\n"
				 "fast,4,26,\nfast,8,13,2\n")));
	Controller c(p, settings(1));
	Snapshot s;
	s.now_s = 1000;
	NodeSnap n0 = node4(), n1 = node4();
	n1.name = "n2";
	n0.gpus_alloc = 2;
	s.nodes = { n0, n1 };
	JobSnap j = running_elastic(1, 2, 990, 100);
	j.gpus_max = 8;
	s.jobs = { j };
	c.plan(s);
	StopRequest stop;
	ck_assert(c.pop_stop(stop));
	ck_assert_int_eq(stop.to_gpus, 4);
}
END_TEST

START_TEST(test_a_stopping_job_holds_its_gpus_and_its_new_ones)
{
	SpeedBook book(fast_profiles());
	ResizeBook resizes(settings(10).resize);
	Resize r = resize(1, "fast", 1, 3, 1000);
	r.where = { { 0, 3 } };
	ck_assert(resizes.request(r));
	Snapshot s;
	s.now_s = 1001;
	s.nodes = { node4() };
	s.nodes[0].gpus_alloc = 1;
	s.jobs = { running_elastic(1, 1, 900) };
	BookFor one = [&book](uint32_t) -> SpeedBook & { return book; };
	BuiltInput b = build_plan_input(s, one, settings(10), &resizes);
	ck_assert_int_eq(b.in.jobs.size(), 1);
	const planner::PlanJob &pj = b.in.jobs[0];
	ck_assert(pj.running && !pj.resizable);
	ck_assert_int_eq(pj.gpus, 3);
	ck_assert_int_eq(b.in.free_per_node[0], 1); // 4 - the 3 held
	ck_assert_double_eq_tol(pj.epoch_s, 35, 1e-9); // at its new count
	ck_assert_double_eq_tol(pj.progress_start_s, 1000 + 11, 1e-9);
}
END_TEST

// Job 1 pending again after a requeue, its record saying `epochs_done`,
// planned on one node of 4 with `resizes`.
static BuiltInput requeued_plan(const ResizeBook &resizes, double epochs_done,
				JobSnap *job = nullptr)
{
	static SpeedBook book(fast_profiles()); // BuiltInput points at it
	Snapshot s;
	s.now_s = 1005;
	s.nodes = { node4() };
	JobSnap j = running_elastic(1, 1, 900);
	j.running = false;
	j.where.clear();
	j.eligible = { 0 };
	j.epochs_done = epochs_done;
	s.jobs = { j };
	if (job)
		*job = j;
	BookFor one = [](uint32_t) -> SpeedBook & { return book; };
	return build_plan_input(s, one, settings(10), &resizes);
}

START_TEST(test_a_requeued_job_is_planned_on_its_new_gpus_with_the_work_left)
{
	ResizeBook resizes(settings(10).resize);
	ck_assert(resizes.request(resize(1, "fast", 1, 4, 1000)));
	ck_assert(resizes.ended(1, true, 1001));
	BuiltInput b = requeued_plan(resizes, 6);
	ck_assert_int_eq(b.in.jobs.size(), 1);
	const planner::PlanJob &pj = b.in.jobs[0];
	ck_assert(pj.running);
	ck_assert_int_eq(pj.gpus, 4);
	ck_assert_double_eq_tol(pj.epochs_at_progress_start, 14, 1e-9);
	ck_assert_int_eq(b.in.free_per_node[0], 0);
}
END_TEST

START_TEST(test_a_job_that_exits_85_on_its_own_is_no_resize)
{
	// Slurm requeues it (RequeueExit=85) with the record its trainer
	// wrote, epochs_done=9: the plan did not stop it, so it is planned
	// with all its epochs and does not jump the queue.
	ResizeBook resizes(settings(10).resize);
	JobSnap j;
	BuiltInput b = requeued_plan(resizes, 9, &j);
	ck_assert_int_eq(b.in.jobs.size(), 1);
	ck_assert(!b.in.jobs[0].running);
	ck_assert_double_eq_tol(b.in.jobs[0].remaining_epochs, j.epochs, 1e-9);
}
END_TEST

START_TEST(test_controller_resizes_once_and_starts_the_requeued_job_first)
{
	Controller c(fast_profiles(), settings(10));
	Snapshot s;
	s.now_s = 1000;
	s.nodes = { node4() };
	s.nodes[0].gpus_alloc = 1;
	s.jobs = { running_elastic(1, 1, 900) };
	c.plan(s);
	StopRequest stop;
	ck_assert(c.pop_stop(stop));
	ck_assert_int_eq(stop.job_id, 1);
	ck_assert_int_eq(stop.from_gpus, 1);
	ck_assert_int_eq(stop.to_gpus, 4);
	ck_assert(!c.pop_stop(stop));
	s.now_s = 1001;
	c.plan(s); // still stopping: asked once
	ck_assert(!c.pop_stop(stop));
	// A pending GPU job arriving meanwhile does not get the held GPUs.
	ck_assert(c.job_stopped(1, true, 1002));
	JobSnap requeued = running_elastic(1, 1, 900);
	requeued.running = false;
	requeued.where.clear();
	requeued.eligible = { 0 };
	requeued.epochs_done = 1;
	JobSnap other = requeued;
	other.job_id = 2;
	other.elastic = false;
	other.submit_s = 1;
	s.now_s = 1003;
	s.nodes[0].gpus_alloc = 0;
	s.jobs = { requeued, other };
	c.plan(s);
	const Decision *d = c.lookup(1);
	ck_assert(d && d->kind == Decision::Kind::Start);
	ck_assert_int_eq(d->gpus, 4);
	ck_assert(c.lookup(2)->kind != Decision::Kind::Start);
	auto r = c.job_started(1, 1015);
	ck_assert(r.has_value());
	ck_assert_double_eq_tol(r->cost_s, 15, 1e-9);
}
END_TEST

// Slurm holds a requeued job (its requeue delay; the nodes after a
// slurmctld restart): the grace to start counts from the first snapshot
// where it is pending and free to start.
START_TEST(test_the_resume_grace_counts_from_when_slurm_frees_the_job)
{
	Controller c(fast_profiles(), settings(10));
	Snapshot s;
	s.now_s = 1000;
	s.nodes = { node4() };
	s.nodes[0].gpus_alloc = 1;
	s.jobs = { running_elastic(1, 1, 900) };
	c.plan(s);
	ck_assert(c.job_stopped(1, true, 1002));
	JobSnap requeued = running_elastic(1, 1, 900);
	requeued.running = false;
	requeued.where.clear();
	requeued.eligible = { 0 };
	requeued.held = true;
	s.nodes[0].gpus_alloc = 0;
	s.jobs = { requeued };
	for (double t : { 1030.0, 1055.0 }) {
		s.now_s = t;
		c.plan(s);
	}
	ck_assert_ptr_nonnull(c.resizes().under_way(1)); // 53 s held
	s.jobs[0].held = false;
	s.now_s = 1060; // free from here: until 1120, past the 60 s grace
	c.plan(s);
	s.now_s = 1120;
	c.plan(s);
	ck_assert_ptr_nonnull(c.resizes().under_way(1));
	s.now_s = 1121;
	c.plan(s);
	ck_assert_ptr_null(c.resizes().under_way(1));
	std::string line;
	bool named = false;
	while (c.pop_note(line))
		named = named || line.find("job 1 was requeued for 4 GPUs but has not started "
					   "there within 60 s of being free to") == 0;
	ck_assert(named);
}
END_TEST

// Job 1 on all 4 GPUs of a model that scales poorly, 17.8 epochs left (800
// s); job 2 (20 epochs) waits for it: 2,700 s in all.  Shrunk to 2 GPUs,
// job 1 ends near 2,080 and job 2 runs beside it, then grows: near 2,180.
START_TEST(test_a_late_phase_job_is_shrunk_so_a_waiting_job_starts)
{
	auto slow = std::make_shared<ProfileTable>(ProfileTable::from_csv(CsvTable::parse(
		"p.csv", "model,gpus,epoch_s\nfast,1,100\nfast,2,60\nfast,3,50\nfast,4,45\n")));
	auto scene = [](bool late) {
		Snapshot s;
		s.now_s = 1000;
		s.nodes = { node4() };
		s.nodes[0].gpus_alloc = 4;
		JobSnap a = running_elastic(1, 4, 900);
		// The loss falls at 10% (late) or 80% of its first rate.
		a.phase = CommentPhase{ 600, 0.5, late ? 0.05 : 0.4 };
		JobSnap b = running_elastic(2, 1, 990);
		b.running = false;
		b.where.clear();
		b.eligible = { 0 };
		b.elastic = false;
		s.jobs = { a, b };
		return s;
	};
	StopRequest stop;
	{
		Controller c(slow, settings(10));
		c.plan(scene(true));
		ck_assert(c.pop_stop(stop));
		ck_assert_int_eq(stop.job_id, 1);
		ck_assert_int_eq(stop.from_gpus, 4);
		ck_assert_int_lt(stop.to_gpus, 4);
		const Decision *d = c.lookup(2);
		ck_assert(d && d->kind == Decision::Kind::Start);
		ck_assert_int_le(d->gpus, 4 - stop.to_gpus);
		// While the shrink is under way no other is tried.
		Snapshot again = scene(true);
		again.now_s = 1001;
		c.plan(again);
		ck_assert(!c.pop_stop(stop));
	}
	{
		Controller c(slow, settings(10)); // early: left alone
		c.plan(scene(false));
		ck_assert(!c.pop_stop(stop));
		ck_assert(c.lookup(2)->kind == Decision::Kind::Wait);
	}
	{
		PlanSettings off = settings(10); // PhaseAware=no
		off.resize.phase_aware = false;
		Controller c(slow, off);
		c.plan(scene(true));
		ck_assert(!c.pop_stop(stop));
	}
	{
		Controller c(slow, settings(10)); // no signal: left alone
		Snapshot s = scene(true);
		s.jobs[0].phase.reset();
		c.plan(s);
		ck_assert(!c.pop_stop(stop));
	}
}
END_TEST

START_TEST(test_the_cost_runs_until_the_trainer_trains_again)
{
	ResizeBook b(settings(10).resize);
	ck_assert(b.request(resize(1, "fast", 1, 4, 1000)));
	ck_assert(b.ended(1, true, 1002));
	ck_assert(b.started(1, 1012).has_value()); // 12 s to the start
	ck_assert_double_eq_tol(b.priced_cost_s("fast"), 12 * 1.1, 1e-9);
	ck_assert(!b.note_resumed(1, 990, 1015).has_value()); // an earlier run's
	auto line = b.note_resumed(1, 1015, 1015);
	ck_assert(line.has_value());
	ck_assert_str_eq(line->c_str(), "job 1 trains again after its resize 1 -> 4 GPUs: "
					"restart cost 15 s (12 s to its start, 3 s to resume)");
	ck_assert_double_eq_tol(b.priced_cost_s("fast"), 15 * 1.1, 1e-9);
	ck_assert_double_eq_tol(b.measured().second, 15, 1e-9);
	ck_assert(!b.note_resumed(1, 1020, 1020).has_value()); // counted once
	ck_assert(b.resting(1, 1044) && !b.resting(1, 1046)); // 2 x 15 s from 1015
	ck_assert(!b.note_resumed(2, 1020, 1020).has_value()); // never resized
}
END_TEST

START_TEST(test_a_forged_resume_time_cannot_raise_the_restart_cost)
{
	// The job's trainer says it resumed 10^11 s from now: the cost is
	// bounded by slurmctld's clock (now) and by ElasticGrace after the
	// start, so the model's price and every other model's stay sane.
	ResizeSettings rs = settings(10).resize;
	ResizeBook b(rs);
	ck_assert(b.request(resize(1, "fast", 1, 4, 1000)));
	ck_assert(b.ended(1, true, 1002));
	ck_assert(b.started(1, 1012).has_value());
	ck_assert(b.note_resumed(1, 1e11, 1020).has_value());
	ck_assert_double_eq_tol(b.measured().second, 20, 1e-9); // now, not 1e11
	ResizeBook c(rs);
	ck_assert(c.request(resize(1, "fast", 1, 4, 1000)));
	ck_assert(c.ended(1, true, 1002));
	ck_assert(c.started(1, 1012).has_value());
	ck_assert(c.note_resumed(1, 1e6, 1e6).has_value()); // seen much later
	ck_assert_double_eq_tol(c.measured().second, 12 + rs.grace_s, 1e-9);
	ck_assert(std::isfinite(c.priced_cost_s("other")) &&
		  c.priced_cost_s("other") <= (12 + rs.grace_s) * 1.1 + 1e-9);
	std::string text = format_resize_state(c.state());
	ck_assert(parse_resize_state(text, "resize_state").ok()); // reloads
}
END_TEST

START_TEST(test_the_book_survives_a_restart_through_its_state_file)
{
	ResizeSettings rs = settings(10).resize;
	ResizeBook a(rs);
	ck_assert(a.request(resize(1, "fast", 1, 4, 1000))); // measured: 12 s
	ck_assert(a.ended(1, true, 1002));
	ck_assert(a.started(1, 1012).has_value());
	Resize open = resize(2, "slow", 4, 2, 1100); // stopped, waits to resume
	open.where = { { 0, 1 }, { 3, 1 } };
	ck_assert(a.request(open));
	ck_assert(a.ended(2, true, 1103));
	ck_assert(a.request(resize(3, "fast", 2, 3, 1000)));
	(void) a.expire(1000 + rs.grace_s + 1); // 3 refused
	a.note_phase(4, CommentPhase{ 600, 1.0, 0.1 });

	std::string text = format_resize_state(a.state());
	auto st = parse_resize_state(text, "resize_state");
	ck_assert_msg(st.ok(), "%s", st.ok() ? "" : st.error().c_str());
	ResizeBook b(rs);
	b.restore(st.value(), 1104);
	std::string again = format_resize_state(b.state());
	ck_assert_str_eq(again.c_str(), text.c_str());
	ck_assert_double_eq_tol(b.priced_cost_s("fast"), 12 * 1.1, 1e-9);
	ck_assert_double_eq_tol(b.priced_cost_s("other"), 12 * 1.1, 1e-9);
	const Resize *r = b.under_way(2);
	ck_assert(r && r->stopped_s == 1103 && r->to_gpus == 2 && r->model == "slow");
	ck_assert(r->where == open.where);
	ck_assert(b.refused(3));
	ck_assert(b.may_shrink(4));
	ck_assert(b.resting(1, 1020) && !b.resting(1, 1037));
	// The resumed start measures its cost as if nothing happened.
	auto done = b.started(2, 1113);
	ck_assert(done.has_value());
	ck_assert_double_eq_tol(done->cost_s, 13, 1e-9);
	// Job 1's trainer trains again 4 s after its start (restored as
	// restarting): its cost becomes 16 s, the model's mean with it.
	ck_assert(b.note_resumed(1, 1016, 1020).has_value());
	ck_assert_double_eq_tol(b.priced_cost_s("fast"), 16 * 1.1, 1e-9);

	for (const char *bad : {
		     "",
		     "omru-plan-state 1\n",
		     "omru-resize-state 2\n",
		     "omru-resize-state 1\nresize 5 1 2 10 0 m\n",
		     "omru-resize-state 1\nresize 5 1 2 10 0 m 1:1,0:1\n",
		     "omru-resize-state 1\nresize 5 1 2 -1 0 m 0:1\n",
		     "omru-resize-state 1\ncost m 1\n",
		     "omru-resize-state 1\nlate 0\n",
		     "omru-resize-state 1\nrest 5 nan\n",
		     "omru-resize-state 1\nrefused 5 6\n",
		     "omru-resize-state 1\nshrink 5\n" })
		ck_assert_msg(!parse_resize_state(bad, "f").ok(), "accepted: %s", bad);
	auto e = parse_resize_state("omru-resize-state 1\nshrink 5\n", "f");
	ck_assert_str_eq(e.error().c_str(), "f:2: unknown key 'shrink'");
}
END_TEST

START_TEST(test_c_api_keeps_the_record_and_adds_the_resize)
{
	char dir[] = "/tmp/omru-resize-book-XXXXXX";
	ck_assert(mkdtemp(dir));
	std::string d = dir;
	std::FILE *f = std::fopen((d + "/p.csv").c_str(), "w");
	std::fputs("model,gpus,epoch_s\nfast,1,100\nfast,2,51\nfast,3,35\nfast,4,26\n", f);
	std::fclose(f);
	f = std::fopen((d + "/omru.conf").c_str(), "w");
	std::fprintf(f, "ProfileFile=%s/p.csv\nRestartOverhead=10\n", dir);
	std::fclose(f);
	omru_ctl_t *ctl = omru_ctl_create();
	char err[512];
	ck_assert_int_eq(omru_ctl_configure(ctl, (d + "/omru.conf").c_str(), dir, err,
					    sizeof(err)), OMRU_OK);
	omru_job_options_t o{};
	o.set = OMRU_OPT_MODEL | OMRU_OPT_EPOCHS | OMRU_OPT_GPUS | OMRU_OPT_ELASTIC;
	std::strcpy(o.model, "fast");
	o.epochs = 20;
	o.gpus_min = 1;
	o.gpus_max = 4;
	int where_node[] = { 0 }, where_gpus[] = { 1 }, eligible[] = { 0 };
	omru_ctl_job_t j{};
	j.job_id = 5;
	j.running = 1;
	j.submit_s = 900;
	j.start_s = 900;
	j.opts = &o;
	j.gpus = 1;
	j.where_node = where_node;
	j.where_gpus = where_gpus;
	j.where_count = 1;
	ck_assert_int_eq(omru_ctl_snapshot_begin(ctl, 1000, 1), OMRU_OK);
	ck_assert_int_eq(omru_ctl_snapshot_node(ctl, 0, "n1", 4, 1, 1), OMRU_OK);
	ck_assert_int_eq(omru_ctl_snapshot_job(ctl, &j, err, sizeof(err)), OMRU_OK);
	ck_assert_int_eq(omru_ctl_plan(ctl, err, sizeof(err)), OMRU_OK);
	uint32_t id = 0;
	int from = 0, to = 0;
	ck_assert_int_eq(omru_ctl_pop_stop(ctl, &id, &from, &to), 1);
	ck_assert_int_eq(id, 5);
	ck_assert_int_eq(to, 4);
	ck_assert_int_eq(omru_ctl_pop_stop(ctl, &id, &from, &to), 0);
	ck_assert_int_eq(omru_ctl_resuming(ctl, 5), 0);
	ck_assert_int_eq(omru_ctl_job_stopped(ctl, 5, OMRU_ELASTIC_EXIT_CODE, 1001), 1);
	ck_assert_int_eq(omru_ctl_resuming(ctl, 5), 1);
	// Requeued: pending, its record says what the stopped run finished.
	j.running = 0;
	j.where_count = 0;
	j.eligible = eligible;
	j.eligible_count = 1;
	const char *record = "admin note omru: gpus=1 epochs_done=6 real_s=100";
	j.admin_comment = record;
	ck_assert_int_eq(omru_ctl_snapshot_begin(ctl, 1005, 1), OMRU_OK);
	ck_assert_int_eq(omru_ctl_snapshot_node(ctl, 0, "n1", 4, 0, 1), OMRU_OK);
	ck_assert_int_eq(omru_ctl_snapshot_job(ctl, &j, err, sizeof(err)), OMRU_OK);
	ck_assert_int_eq(omru_ctl_plan(ctl, err, sizeof(err)), OMRU_OK);
	omru_ctl_decision_t dec;
	ck_assert_int_eq(omru_ctl_lookup(ctl, 5, &dec), 1);
	ck_assert_int_eq(dec.kind, OMRU_DECIDE_START);
	ck_assert_int_eq(dec.gpus, 4);
	char out[1200], note[256];
	ck_assert_int_eq(omru_ctl_job_started(ctl, 5, 1015, record, "omru: gpus=4 predicted_s=400",
					      out, sizeof(out), note, sizeof(note)), 1);
	ck_assert_str_eq(out, "admin note omru: gpus=4 epochs_done=6 real_s=100 "
			      "predicted_s=400 resizes=1000:1>4:15");
	ck_assert(std::string(note).find("restart cost 15 s") != std::string::npos);
	// Started again without a resize: nothing to add.
	ck_assert_int_eq(omru_ctl_job_started(ctl, 5, 1100, out, "omru: gpus=4", out,
					      sizeof(out), note, sizeof(note)), 0);
	omru_ctl_destroy(ctl);
	std::remove((d + "/p.csv").c_str());
	std::remove((d + "/omru.conf").c_str());
	rmdir(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("resize_book");
	TCase *tc = tcase_create("resize_book");
	tcase_add_test(tc, test_book_measures_the_restart_cost_of_a_resumed_job);
	tcase_add_test(tc, test_book_gives_up_a_job_that_does_not_stop);
	tcase_add_test(tc, test_book_bounds_the_wait_slurm_holds_a_requeued_job);
	tcase_add_test(tc, test_book_forgets_a_job_that_ended_otherwise);
	tcase_add_test(tc, test_book_keeps_a_stop_reported_again_after_a_restart);
	tcase_add_test(tc, test_grace_counts_from_a_restart);
	tcase_add_test(tc, test_only_elastic_running_jobs_are_resizable_at_the_priced_cost);
	tcase_add_test(tc, test_a_resumed_job_rests_before_another_resize);
	tcase_add_test(tc, test_the_controller_grows_jobs_on_one_node_only);
	tcase_add_test(tc, test_a_stopping_job_holds_its_gpus_and_its_new_ones);
	tcase_add_test(tc, test_a_requeued_job_is_planned_on_its_new_gpus_with_the_work_left);
	tcase_add_test(tc, test_a_job_that_exits_85_on_its_own_is_no_resize);
	tcase_add_test(tc, test_controller_resizes_once_and_starts_the_requeued_job_first);
	tcase_add_test(tc, test_the_resume_grace_counts_from_when_slurm_frees_the_job);
	tcase_add_test(tc, test_a_late_phase_job_is_shrunk_so_a_waiting_job_starts);
	tcase_add_test(tc, test_the_cost_runs_until_the_trainer_trains_again);
	tcase_add_test(tc, test_a_forged_resume_time_cannot_raise_the_restart_cost);
	tcase_add_test(tc, test_the_book_survives_a_restart_through_its_state_file);
	tcase_add_test(tc, test_c_api_keeps_the_record_and_adds_the_resize);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
