// test_controller.cpp - the Slurm-free half of select/omru: a slurmctld
// snapshot becomes a planner input, the plan becomes per-job answers, the
// plan choice survives in a state file, site profiles merge, an ended job's
// loader report sizes the CPUs of its user's next jobs of the model.
#include "check_cxx.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

#include "controller/controller.hpp"
#include "controller/plan_input.hpp"
#include "controller/plan_state.hpp"
#include "controller/site_profiles.hpp"
#include "model/csv_table.hpp"
#include "planner/planner.hpp"
#include "omru/omru_ctl.h"

using namespace omru;
using namespace omru::controller;

namespace {

std::shared_ptr<const ProfileTable> profiles(const std::string &csv)
{
	return std::make_shared<ProfileTable>(
		ProfileTable::from_csv(CsvTable::parse("p.csv", csv)));
}

// resnet: 100 s per epoch on 1 GPU, near-linear to 4 on one node.
const char *kResnet = "model,gpus,epoch_s\n"
		      "resnet,1,100\nresnet,2,52\nresnet,4,27\n";

NodeSnap node(const std::string &name, int gpus, int alloc = 0, bool usable = true)
{
	NodeSnap n;
	n.name = name;
	n.gpus = gpus;
	n.gpus_alloc = alloc;
	n.usable = usable;
	return n;
}

JobSnap omru_job(uint32_t id, double submit, int lo, int hi, double epochs,
		 std::vector<int> eligible, const std::string &model = "resnet")
{
	JobSnap j;
	j.job_id = id;
	j.submit_s = submit;
	j.omru = true;
	j.model = model;
	j.epochs = epochs;
	j.gpus_min = lo;
	j.gpus_max = hi;
	j.gpus = lo;
	j.time_limit_s = 7200;
	j.eligible = std::move(eligible);
	return j;
}

JobSnap plain_job(uint32_t id, double submit, int gpus, double limit_s,
		  std::vector<int> eligible)
{
	JobSnap j;
	j.job_id = id;
	j.submit_s = submit;
	j.gpus = gpus;
	j.time_limit_s = limit_s;
	j.eligible = std::move(eligible);
	return j;
}

Snapshot two_nodes_of_4()
{
	Snapshot s;
	s.now_s = 1000;
	s.nodes = { node("n1", 4), node("n2", 4) };
	return s;
}

// An OMRU job of `model` that ended (not completed: no runtime to learn)
// with `loader` in its record.
JobEnd ended(uint32_t job_id, uint32_t uid, const std::string &model,
	     const std::string &loader)
{
	JobEnd e;
	e.job_id = job_id;
	e.uid = uid;
	e.model = model;
	e.gpus = 1;
	e.nodes = 1;
	e.run_s = 600;
	e.loader = loader;
	return e;
}

// 1 worker gave 200 samples/s waiting 75% of the time, a worker makes 200/s:
// c = (1 - 0.75) / 200 = 1.25 ms per sample, peak 800/s, 800 / 200 = 4
// workers per task reach it.
const char *kNeeds4 = "1:200:0.75:200";

// Pending, one GPU each: resnet of uid 1000, resnet of uid 1001, and a
// plain job of uid 1000.
Snapshot resnet_of_two_users_and_a_plain_job()
{
	Snapshot s = two_nodes_of_4();
	s.jobs.push_back(omru_job(1, 0, 1, 1, 10, { 0, 1 }));
	s.jobs.back().uid = 1000;
	s.jobs.push_back(omru_job(2, 1, 1, 1, 10, { 0, 1 }));
	s.jobs.back().uid = 1001;
	s.jobs.push_back(plain_job(3, 2, 1, 600, { 0, 1 }));
	s.jobs.back().uid = 1000;
	return s;
}

PlanSettings cpus(int cpus_per_gpu, bool loader_cpus)
{
	PlanSettings st;
	st.cpus_per_gpu = cpus_per_gpu;
	st.loader_cpus = loader_cpus;
	return st;
}

} // namespace

START_TEST(test_known_model_gets_every_count_of_its_range)
{
	Snapshot s = two_nodes_of_4();
	s.jobs.push_back(omru_job(7, 900, 1, 4, 10, { 0, 1 }));
	SpeedBook book(profiles(kResnet));
	BuiltInput b = build_plan_input(s, book, {});
	ck_assert_int_eq(b.in.jobs.size(), 1);
	const planner::SpeedCurve &cv = b.in.curves[b.in.jobs[0].curve];
	ck_assert_int_eq(cv.gpus.size(), 4);
	ck_assert_int_eq(cv.gpus[0], 1);
	ck_assert_int_eq(cv.gpus[3], 4);
	ck_assert_double_eq(cv.epoch_s[0][1], 100);
	ck_assert_double_eq(cv.epoch_s[3][1], 27);
	ck_assert_double_eq(b.in.jobs[0].remaining_epochs, 10);
	ck_assert_int_eq(b.model[0], 0);
	ck_assert(!b.in.reuse);
}
END_TEST

START_TEST(test_a_users_unpriceable_rows_change_only_that_users_plan)
{
	// uid 1000's own rows for resnet make an epoch time of inf when its
	// job spreads (as 1e-300 next to 1e9 once made a spread ratio of
	// inf; the store's bounds now refuse such rows, this guard stays):
	// that job is planned as unprofiled,
	// uid 1001's job of the same model as before, and the plan is made.
	Snapshot s = resnet_of_two_users_and_a_plain_job();
	s.jobs[0].gpus_max = 4; // 2 GPUs over 2 nodes: 1.6e308 x the spread cost
	SpeedBook bad(profiles("model,gpus,epoch_s\nresnet,1,1.6e308\nresnet,2,1.6e308\n"
			       "resnet,4,1.6e308\n"));
	SpeedBook good(profiles(kResnet));
	BookFor book_for = [&](uint32_t uid) -> SpeedBook & {
		return uid == 1000 ? bad : good;
	};
	BuiltInput b = build_plan_input(s, book_for, {});
	ck_assert_int_eq(b.in.jobs.size(), 3);
	for (size_t j = 0; j < b.in.jobs.size(); j++)
		ck_assert_int_eq(b.model[j], (b.job_ids[j] == 2 ? 0 : -1));
	ck_assert_int_eq(b.unpriced.size(), 1);
	ck_assert_int_eq(b.unpriced[0].first, 1000);
	ck_assert_str_eq(b.unpriced[0].second.c_str(), "resnet");
	planner::check_plan_input(b.in); // does not throw
}
END_TEST

START_TEST(test_pricing_is_bounded_per_user_and_plan)
{
	// 500 nodes of 8 GPUs: a 1-1024 range is ~390,000 priced cells.  Its
	// user's second and third such ranges would pass the user's budget:
	// they go to cons_tres alone; another user's job is still priced.
	Snapshot s;
	s.now_s = 1000;
	std::vector<int> all;
	for (int n = 0; n < 500; n++) {
		s.nodes.push_back(node("n" + std::to_string(n), 8));
		all.push_back(n);
	}
	for (uint32_t id = 1; id <= 3; id++) {
		s.jobs.push_back(omru_job(id, id, 1, 1025 - static_cast<int>(id), 10, all));
		s.jobs.back().uid = 1000;
	}
	s.jobs.push_back(omru_job(4, 4, 1, 64, 10, all));
	s.jobs.back().uid = 1001;
	SpeedBook book(profiles(kResnet));
	BuiltInput b = build_plan_input(s, book, {});
	ck_assert_int_eq(b.over_budget.size(), 2);
	ck_assert_int_eq(b.over_budget[0], 2);
	ck_assert_int_eq(b.over_budget[1], 3);
	ck_assert_int_eq(b.in.jobs.size(), 2); // jobs 1 and 4
	ck_assert_int_eq(b.unmodelled.size(), 2);
}
END_TEST

START_TEST(test_unknown_model_runs_its_minimum_for_its_time_limit)
{
	Snapshot s = two_nodes_of_4();
	s.jobs.push_back(omru_job(8, 900, 2, 4, 10, { 0, 1 }, "bert"));
	SpeedBook book(profiles(kResnet));
	BuiltInput b = build_plan_input(s, book, {});
	const planner::SpeedCurve &cv = b.in.curves[b.in.jobs[0].curve];
	ck_assert_int_eq(cv.gpus.size(), 1);
	ck_assert_int_eq(cv.gpus[0], 2);
	ck_assert_double_eq(cv.epoch_s[0][1], 7200);
	ck_assert_double_eq(b.in.jobs[0].remaining_epochs, 1);
	ck_assert_int_eq(b.model[0], -1);
}
END_TEST

START_TEST(test_plain_job_is_rigid_and_priced_at_its_time_limit)
{
	Snapshot s = two_nodes_of_4();
	s.jobs.push_back(plain_job(9, 900, 3, 600, { 0, 1 }));
	SpeedBook book(profiles(kResnet));
	BuiltInput b = build_plan_input(s, book, {});
	const planner::SpeedCurve &cv = b.in.curves[b.in.jobs[0].curve];
	ck_assert_int_eq(cv.gpus.size(), 1);
	ck_assert_int_eq(cv.gpus[0], 3);
	ck_assert_double_eq(cv.epoch_s[0][1], 600);
}
END_TEST

START_TEST(test_plain_job_without_limit_uses_the_default_runtime)
{
	Snapshot s = two_nodes_of_4();
	s.jobs.push_back(plain_job(9, 900, 1, 0, { 0, 1 }));
	SpeedBook book(profiles(kResnet));
	BuiltInput b = build_plan_input(s, book, {});
	ck_assert_double_eq(b.in.curves[0].epoch_s[0][1], kDefaultRuntimeS);
}
END_TEST

START_TEST(test_eligible_subset_becomes_a_node_set)
{
	Snapshot s;
	s.now_s = 0;
	s.nodes = { node("n1", 4), node("n2", 4), node("n3", 8) };
	s.jobs.push_back(omru_job(1, 0, 1, 4, 1, { 0, 1 }));
	s.jobs.push_back(omru_job(2, 1, 1, 4, 1, { 0, 1 }));
	s.jobs.push_back(omru_job(3, 2, 1, 4, 1, { 0, 1, 2 }));
	SpeedBook book(profiles(kResnet));
	BuiltInput b = build_plan_input(s, book, {});
	ck_assert_int_eq(b.in.node_sets.size(), 1);
	ck_assert_int_eq(b.in.jobs[0].node_set, 0);
	ck_assert_int_eq(b.in.jobs[1].node_set, 0);
	ck_assert_int_eq(b.in.jobs[2].node_set, -1); // every node
	ck_assert_int_eq(b.in.gpus_per_node, 8);
	ck_assert_int_eq(b.in.node_gpus[2], 8);
	ck_assert_int_eq(b.in.node_gpus[0], 4);
}
END_TEST

START_TEST(test_unusable_node_offers_no_free_gpus)
{
	Snapshot s = two_nodes_of_4();
	s.nodes[1].usable = false;
	SpeedBook book(profiles(kResnet));
	s.jobs.push_back(omru_job(1, 0, 1, 4, 1, { 0 }));
	BuiltInput b = build_plan_input(s, book, {});
	ck_assert_int_eq(b.in.free_per_node[0], 4);
	ck_assert_int_eq(b.in.free_per_node[1], 0);
}
END_TEST

// A plain 4-GPU job with a 60-s limit running on node 0 since 100 (its
// predicted end 160), seen at `now`.
static Snapshot plain_job_running_since_100(double now)
{
	Snapshot s = two_nodes_of_4();
	s.now_s = now;
	JobSnap r = plain_job(5, 0, 4, 60, {});
	r.running = true;
	r.start_s = 100;
	r.where = { { 0, 4 } };
	s.nodes[0].gpus_alloc = 4;
	s.jobs.push_back(r);
	return s;
}

START_TEST(test_running_job_past_its_prediction_still_holds_its_gpus)
{
	SpeedBook book(profiles(kResnet));
	BuiltInput b = build_plan_input(plain_job_running_since_100(1000), book, {});
	const planner::PlanJob &pj = b.in.jobs[0];
	ck_assert(pj.running);
	ck_assert_double_eq(pj.progress_start_s, 1000);
	ck_assert_double_eq(pj.epoch_s * pj.epochs_at_progress_start, 90); // 10% of 900 s
	ck_assert_int_eq(b.in.free_per_node[0], 0);
}
END_TEST

START_TEST(test_running_job_on_time_keeps_its_end)
{
	// Predicted to end at 160, now 157: it ends at 160, not at some
	// guess further on (the plan may give its GPUs out from then).
	SpeedBook book(profiles(kResnet));
	BuiltInput b = build_plan_input(plain_job_running_since_100(157), book, {});
	const planner::PlanJob &pj = b.in.jobs[0];
	ck_assert_double_eq(pj.progress_start_s + pj.epoch_s * pj.epochs_at_progress_start, 160);
}
END_TEST

// ---- time limits and the cost of spreading (issue 26) --------------------

// resnet, 10 epochs: 1000 s on 1 GPU, 520 on 2, ~359 on 3, 270 on 4; with
// the default margin (0.25) 1250, 650, ~449 and 337.5 s.
START_TEST(test_pending_job_gets_only_counts_that_end_within_its_limit)
{
	Snapshot s = two_nodes_of_4();
	s.jobs.push_back(omru_job(1, 0, 1, 4, 10, { 0, 1 }));
	s.jobs.back().time_limit_s = 700;
	SpeedBook book(profiles(kResnet));
	BuiltInput b = build_plan_input(s, book, {});
	const planner::SpeedCurve &cv = b.in.curves[b.in.jobs[0].curve];
	ck_assert_int_eq(cv.gpus.size(), 3);
	ck_assert_int_eq(cv.gpus[0], 2);
	ck_assert_int_eq(cv.gpus[2], 4);
}
END_TEST

START_TEST(test_the_margin_counts_against_the_limit)
{
	// 1250 s on 1 GPU with the margin: a limit of 1200 leaves 1 out,
	// CorrectionMargin=0.1 (1100 s) keeps it.
	Snapshot s = two_nodes_of_4();
	s.jobs.push_back(omru_job(1, 0, 1, 4, 10, { 0, 1 }));
	s.jobs.back().time_limit_s = 1200;
	SpeedBook book(profiles(kResnet));
	ck_assert_int_eq(build_plan_input(s, book, {}).in.curves[0].gpus[0], 2);
	PlanSettings st;
	st.correction_margin = 0.1;
	ck_assert_int_eq(build_plan_input(s, book, st).in.curves[0].gpus[0], 1);
}
END_TEST

START_TEST(test_job_no_count_fits_is_planned_at_the_count_it_asked)
{
	Snapshot s = two_nodes_of_4();
	s.jobs.push_back(omru_job(1, 0, 1, 4, 10, { 0, 1 }));
	s.jobs.back().time_limit_s = 100;
	s.jobs.back().gpus = 2; // --gpus=2
	SpeedBook book(profiles(kResnet));
	BuiltInput b = build_plan_input(s, book, {});
	ck_assert_int_eq(b.unmodelled.size(), 0);
	const planner::SpeedCurve &cv = b.in.curves[b.in.jobs[0].curve];
	ck_assert_int_eq(cv.gpus.size(), 1);
	ck_assert_int_eq(cv.gpus[0], 2);
	ck_assert_double_eq(cv.epoch_s[0][1], 52);
}
END_TEST

START_TEST(test_a_spread_past_the_limit_is_not_offered)
{
	// 2 GPUs: 650 s packed with the margin, x 1.25 over two nodes (no
	// profile measured a spread) 812.5 s: past a 700 s limit.
	Snapshot s = two_nodes_of_4();
	s.jobs.push_back(omru_job(1, 0, 2, 2, 10, { 0, 1 }));
	s.jobs.back().time_limit_s = 700;
	SpeedBook book(profiles(kResnet));
	BuiltInput b = build_plan_input(s, book, {});
	const planner::SpeedCurve &cv = b.in.curves[b.in.jobs[0].curve];
	ck_assert_int_eq(cv.gpus.size(), 1);
	ck_assert_double_eq(cv.epoch_s[0][1], 52);
	ck_assert(std::isnan(cv.epoch_s[0][2]));
	// Without a limit the spread is priced, not free.
	s.jobs.back().time_limit_s = 0;
	b = build_plan_input(s, book, {});
	ck_assert_double_eq(b.in.curves[0].epoch_s[0][2], 52 * 1.25);
}
END_TEST

START_TEST(test_jobs_whose_limits_keep_the_same_spreads_share_a_curve)
{
	// 10 epochs: limits 700 and 650 s allow 56 and 52 s per epoch, both
	// keep 2 GPUs packed (52 s) and not 1 (100 s) nor 2 spread (65 s);
	// 7200 s keeps every spread, as no limit does.
	Snapshot s = two_nodes_of_4();
	for (double limit : { 700, 650, 7200, 0 }) {
		s.jobs.push_back(omru_job(static_cast<uint32_t>(s.jobs.size()) + 1, 0, 1, 4,
					  10, { 0, 1 }));
		s.jobs.back().time_limit_s = limit;
	}
	SpeedBook book(profiles(kResnet));
	BuiltInput b = build_plan_input(s, book, {});
	ck_assert_int_eq(b.in.curves.size(), 2);
	ck_assert_int_eq(b.in.jobs[0].curve, b.in.jobs[1].curve);
	ck_assert_int_eq(b.in.jobs[2].curve, b.in.jobs[3].curve);
	ck_assert_int_eq(b.in.curves[b.in.jobs[0].curve].gpus.size(), 3);
	ck_assert_int_eq(b.in.curves[b.in.jobs[2].curve].gpus.size(), 4);
}
END_TEST

START_TEST(test_controller_waits_for_a_packed_start_within_the_limit)
{
	// One GPU free on each node until the running jobs end at 1100: the
	// 2-GPU job waits for one node rather than start over two and be
	// killed at its limit.
	Snapshot s = two_nodes_of_4();
	for (int n = 0; n < 2; n++) {
		s.nodes[n].gpus_alloc = 3;
		JobSnap r = plain_job(10 + n, 0, 3, 600, {});
		r.running = true;
		r.start_s = 500;
		r.where = { { n, 3 } };
		s.jobs.push_back(r);
	}
	s.jobs.push_back(omru_job(1, 1, 2, 2, 10, { 0, 1 }));
	s.jobs.back().time_limit_s = 700;
	Controller c(profiles(kResnet), {});
	c.plan(s);
	const Decision *d = c.lookup(1);
	ck_assert(d->kind == Decision::Kind::Wait);
	ck_assert_double_eq(d->start_s, 1100);
	ck_assert_int_eq(d->nodes, 1);
}
END_TEST

START_TEST(test_running_job_keeps_its_count_past_its_limit)
{
	Snapshot s = two_nodes_of_4();
	JobSnap r = omru_job(1, 0, 1, 4, 10, {});
	r.running = true;
	r.start_s = 1000;
	r.gpus = 1;
	r.where = { { 0, 1 } };
	r.time_limit_s = 100;
	s.nodes[0].gpus_alloc = 1;
	s.jobs.push_back(r);
	SpeedBook book(profiles(kResnet));
	BuiltInput b = build_plan_input(s, book, {});
	ck_assert_int_eq(b.in.curves[b.in.jobs[0].curve].gpus.size(), 4);
}
END_TEST

START_TEST(test_elastic_job_is_resized_only_within_its_limit)
{
	// Running on 2 GPUs, 10 epochs left; a resize restarts it (66 s,
	// RestartOverhead 60 x 1.1) as a requeued job with its whole 800 s
	// limit: 1 GPU (66 + 1250 s) does not fit, 3 and 4 do, 2 it holds.
	Snapshot s = two_nodes_of_4();
	JobSnap r = omru_job(1, 0, 1, 4, 10, {});
	r.running = true;
	r.elastic = true;
	r.start_s = 1000;
	r.gpus = 2;
	r.where = { { 0, 2 } };
	r.time_limit_s = 800;
	s.nodes[0].gpus_alloc = 2;
	s.jobs.push_back(r);
	SpeedBook book(profiles(kResnet));
	BookFor one = [&book](uint32_t) -> SpeedBook & { return book; };
	ResizeBook resizes;
	BuiltInput b = build_plan_input(s, one, {}, &resizes);
	ck_assert(b.in.jobs[0].resizable);
	const planner::SpeedCurve &cv = b.in.curves[b.in.jobs[0].curve];
	ck_assert_int_eq(cv.gpus.size(), 3);
	ck_assert_int_eq(cv.gpus[0], 2);
	ck_assert_int_eq(cv.gpus[2], 4);
	// Halfway through (260 s at 52 s per epoch: 5 epochs left), 1 GPU
	// fits: 66 + 5 x 100 x 1.25 = 691 s.
	s.now_s = 1260;
	b = build_plan_input(s, one, {}, &resizes);
	ck_assert_int_eq(b.in.curves[b.in.jobs[0].curve].gpus.size(), 4);
}
END_TEST

START_TEST(test_job_without_profile_pays_the_spread_cost_per_node)
{
	Snapshot s;
	s.now_s = 1000;
	s.nodes = { node("n1", 4), node("n2", 4), node("n3", 4) };
	s.jobs.push_back(plain_job(1, 0, 3, 600, { 0, 1, 2 }));
	SpeedBook book(profiles(kResnet));
	BuiltInput b = build_plan_input(s, book, {});
	const std::vector<double> &by_nodes = b.in.curves[0].epoch_s[0];
	ck_assert_double_eq(by_nodes[1], 600);
	ck_assert_double_eq(by_nodes[2], 600 * 1.25);
	ck_assert_double_eq(by_nodes[3], 600 * 1.25 * 1.25);
	PlanSettings st;
	st.spread_cost = 2;
	b = build_plan_input(s, book, st);
	ck_assert_double_eq(b.in.curves[0].epoch_s[0][3], 600 * 4);
}
END_TEST

START_TEST(test_controller_prices_spreads_at_the_configured_cost)
{
	// SpreadCost=2: 2 GPUs of resnet over two nodes, 52 x 2 s per epoch.
	PlanSettings st;
	st.spread_cost = 2;
	Controller c(profiles(kResnet), st);
	Snapshot s = two_nodes_of_4();
	s.nodes[0].gpus_alloc = 3;
	s.nodes[1].gpus_alloc = 3;
	s.jobs.push_back(omru_job(1, 0, 2, 2, 10, { 0, 1 }));
	s.jobs.back().time_limit_s = 0;
	c.plan(s);
	const Decision *d = c.lookup(1);
	ck_assert(d->kind == Decision::Kind::Start);
	ck_assert_int_eq(d->nodes, 2);
	ck_assert_double_eq(d->runtime_s, 10 * 52 * 2);
}
END_TEST

// Three completed 2-GPU resnet jobs of uid 7 that each ran 4 s past their
// 10 x 52 s: uid 7's next job is priced with its 4 s launch, uid 8's
// without; StartOverhead=0 prices neither.
START_TEST(test_controller_learns_each_users_launch)
{
	auto plan_two = [](Controller &c) {
		Snapshot s = two_nodes_of_4();
		s.jobs.push_back(omru_job(1, 0, 2, 2, 10, { 0, 1 }));
		s.jobs.back().uid = 7;
		s.jobs.push_back(omru_job(2, 0, 2, 2, 10, { 0, 1 }));
		s.jobs.back().uid = 8;
		c.plan(s);
		return std::make_pair(c.lookup(1)->runtime_s, c.lookup(2)->runtime_s);
	};
	for (double overhead : { -1.0, 0.0 }) {
		PlanSettings st;
		st.start_overhead_s = overhead;
		Controller c(profiles(kResnet), st);
		for (uint32_t id = 10; id < 13; id++) {
			JobEnd e = ended(id, 7, "resnet", "");
			e.completed = true;
			e.epochs = 10;
			e.gpus = 2;
			e.run_s = 10 * 52 + 4;
			c.job_ended(e, 500);
		}
		auto [seven, eight] = plan_two(c);
		ck_assert_double_eq(seven, overhead < 0 ? 524 : 520);
		ck_assert_double_eq(eight, 520);
	}
}
END_TEST

START_TEST(test_pending_beyond_the_cap_are_left_out_by_priority)
{
	Snapshot s = two_nodes_of_4();
	for (uint32_t id = 1; id <= 4; id++) {
		JobSnap j = plain_job(id, id, 1, 60, { 0, 1 });
		j.priority = id; // 4 is the most urgent
		s.jobs.push_back(j);
	}
	SpeedBook book(profiles(kResnet));
	PlanSettings st;
	st.max_pending = 2;
	BuiltInput b = build_plan_input(s, book, st);
	ck_assert_int_eq(b.in.jobs.size(), 2);
	ck_assert_int_eq(b.job_ids[0], 3);
	ck_assert_int_eq(b.job_ids[1], 4);
	ck_assert_int_eq(b.left_out.size(), 2);
}
END_TEST

START_TEST(test_job_that_cannot_fit_is_unmodelled)
{
	Snapshot s = two_nodes_of_4();
	s.jobs.push_back(plain_job(1, 0, 16, 60, { 0, 1 }));
	s.jobs.push_back(plain_job(2, 0, 1, 60, {}));
	SpeedBook book(profiles(kResnet));
	BuiltInput b = build_plan_input(s, book, {});
	ck_assert_int_eq(b.in.jobs.size(), 0);
	ck_assert_int_eq(b.unmodelled.size(), 2);
}
END_TEST

START_TEST(test_controller_starts_what_fits_and_dates_the_rest)
{
	Snapshot s = two_nodes_of_4();
	// Two 4-GPU-wide jobs and a third that must wait for one of them.
	s.jobs.push_back(omru_job(1, 0, 4, 4, 10, { 0, 1 }));
	s.jobs.push_back(omru_job(2, 1, 4, 4, 10, { 0, 1 }));
	s.jobs.push_back(omru_job(3, 2, 4, 4, 10, { 0, 1 }));
	Controller c(profiles(kResnet), {});
	c.plan(s);
	int starts = 0, waits = 0;
	for (uint32_t id = 1; id <= 3; id++) {
		const Decision *d = c.lookup(id);
		ck_assert_ptr_nonnull(d);
		if (d->kind == Decision::Kind::Start) {
			starts++;
			ck_assert_int_eq(d->gpus, 4);
			ck_assert_int_eq(d->where.size(), 1);
			ck_assert_double_eq(d->runtime_s, 270);
			ck_assert(d->profile == ProfileSource::Site);
		} else {
			waits++;
			ck_assert(d->kind == Decision::Kind::Wait);
			ck_assert_double_eq(d->start_s, 1270);
		}
	}
	ck_assert_int_eq(starts, 2);
	ck_assert_int_eq(waits, 1);
	ck_assert_ptr_null(c.lookup(99));
	ck_assert_int_eq(c.stats().plans, 1);
}
END_TEST

START_TEST(test_controller_plan_is_stable_when_nothing_changes)
{
	Snapshot s = two_nodes_of_4();
	for (uint32_t id = 1; id <= 6; id++)
		s.jobs.push_back(omru_job(id, id, 1, 4, 5 + id, { 0, 1 }));
	Controller c(profiles(kResnet), {});
	c.plan(s);
	std::vector<std::pair<int, int>> first;
	for (uint32_t id = 1; id <= 6; id++)
		first.emplace_back(int(c.lookup(id)->kind), c.lookup(id)->gpus);
	planner::PlanChoice choice = c.choice();
	c.plan(s);
	for (uint32_t id = 1; id <= 6; id++) {
		ck_assert_int_eq(int(c.lookup(id)->kind), first[id - 1].first);
		ck_assert_int_eq(c.lookup(id)->gpus, first[id - 1].second);
	}
	ck_assert_double_eq(c.choice().budget_s, choice.budget_s);
}
END_TEST

// A waiting job's reference end moves when a job of higher priority
// arrives (backfill would start that one first): the plan's stats say
// which job's promise moved and by how much; a plan that changes nothing
// moves nothing.
START_TEST(test_stats_name_the_reference_ends_that_moved)
{
	Snapshot s = two_nodes_of_4();
	for (int n = 0; n < 2; n++) { // both nodes busy until 1270 and 1370
		s.nodes[n].gpus_alloc = 4;
		JobSnap r = omru_job(1 + n, 0, 4, 4, 10, {});
		r.running = true;
		r.gpus = 4;
		r.start_s = 1000 + 100 * n;
		r.where = { { n, 4 } };
		s.jobs.push_back(r);
	}
	JobSnap waits = omru_job(3, 2, 4, 4, 10, { 0, 1 });
	waits.priority = 10;
	s.jobs.push_back(waits);
	Controller c(profiles(kResnet), {});
	c.plan(s);
	ck_assert(c.lookup(3)->kind == Decision::Kind::Wait);
	const double before = c.lookup(3)->ref_end_s;
	ck_assert(before > s.now_s);
	c.plan(s);
	ck_assert(c.stats().ref_moved.empty());
	JobSnap urgent = omru_job(4, 3, 4, 4, 10, { 0, 1 });
	urgent.priority = 100;
	s.jobs.push_back(urgent);
	c.plan(s);
	const double after = c.lookup(3)->ref_end_s;
	ck_assert(after > before + 1);
	const auto &moved = c.stats().ref_moved;
	ck_assert_int_eq(moved.size(), 1);
	ck_assert_int_eq(moved[0].first, 3);
	ck_assert_double_eq_tol(moved[0].second, after - before, 1e-6);
}
END_TEST

START_TEST(test_estimated_count_is_marked_estimated)
{
	Snapshot s = two_nodes_of_4();
	s.jobs.push_back(omru_job(1, 0, 3, 3, 10, { 0, 1 }));
	Controller c(profiles(kResnet), {});
	c.plan(s);
	ck_assert(c.lookup(1)->profile == ProfileSource::Estimated);
	ck_assert_int_eq(c.lookup(1)->gpus, 3);
}
END_TEST

START_TEST(test_plan_state_round_trips)
{
	planner::PlanChoice c;
	c.budget_s = 1234.5;
	c.order = 2;
	c.moved = { { 17, 4 }, { 23, 2 } };
	c.valid = true;
	std::string text = format_plan_state(c);
	ck_assert_string_eq(text, "omru-plan-state 1\nbudget_s 1234.5\norder 2\nmoved 17:4 23:2\n");
	auto back = parse_plan_state(text, "f");
	ck_assert(back.ok());
	ck_assert_double_eq(back.value().budget_s, 1234.5);
	ck_assert_int_eq(back.value().order, 2);
	ck_assert_int_eq(back.value().moved.size(), 2);
	ck_assert(back.value().valid);
}
END_TEST

START_TEST(test_plan_state_rejects_garbage_with_the_line)
{
	auto r = parse_plan_state("omru-plan-state 1\nbudget_s -3\norder 1\nmoved\n", "s");
	ck_assert(!r.ok());
	ck_assert_string_eq(r.error(), "s:2: budget_s must be a finite number >= 0");
	r = parse_plan_state("hello\n", "s");
	ck_assert_string_eq(r.error(), "s:1: not an omru plan state file");
	r = parse_plan_state("omru-plan-state 9\n", "s");
	ck_assert_string_eq(r.error(), "s:1: version 9 (this build reads 1)");
	r = parse_plan_state("omru-plan-state 1\nbudget_s 1\norder 1\nmoved 5:2 3:1\n", "s");
	ck_assert_string_eq(r.error(), "s:4: moved entries must ascend by job id");
}
END_TEST

START_TEST(test_plan_state_saves_atomically_and_loads)
{
	char dir[] = "/tmp/omru-state-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	std::string sub = std::string(dir) + "/omru";
	planner::PlanChoice c;
	c.budget_s = 10;
	c.order = 1;
	c.valid = true;
	ck_assert_string_eq(save_plan_state(sub, c), "");
	auto back = load_plan_state(sub);
	ck_assert(back.ok());
	ck_assert(back.value().valid);
	ck_assert_double_eq(back.value().budget_s, 10);
	ck_assert_int_eq(access((sub + "/plan_state.new").c_str(), F_OK), -1);
	// A missing file is a fresh start, not an error.
	auto none = load_plan_state(std::string(dir) + "/nothing");
	ck_assert(none.ok());
	ck_assert(!none.value().valid);
	std::remove((sub + "/plan_state").c_str());
	rmdir(sub.c_str());
	rmdir(dir);
}
END_TEST

START_TEST(test_site_profiles_merge_first_file_wins)
{
	char a[] = "/tmp/omru-prof-a-XXXXXX", b[] = "/tmp/omru-prof-b-XXXXXX";
	int fa = mkstemp(a), fb = mkstemp(b);
	ck_assert(fa >= 0 && fb >= 0);
	close(fa);
	close(fb);
	std::ofstream(a) << "model,gpus,epoch_s\nresnet,1,100\n";
	std::ofstream(b) << "model,gpus,epoch_s,nodes\nresnet,1,50\nvgg,2,30,1\n";
	auto p = load_site_profiles({ a, b });
	ck_assert(p.ok());
	ck_assert_int_eq(p.value().rows, 2);
	ck_assert_int_eq(p.value().warnings.size(), 1);
	const ProfileTable &t = *p.value().table;
	ck_assert_double_eq(*t.epoch_s(t.model_id("resnet"), 1, 1), 100);
	ck_assert_double_eq(*t.epoch_s(t.model_id("vgg"), 2, 1), 30);
	std::remove(a);
	std::remove(b);
}
END_TEST

START_TEST(test_site_profiles_report_the_bad_file_and_line)
{
	char a[] = "/tmp/omru-prof-c-XXXXXX";
	int fa = mkstemp(a);
	close(fa);
	std::ofstream(a) << "model,gpus,epoch_s\nresnet,1,-5\n";
	auto p = load_site_profiles({ a });
	ck_assert(!p.ok());
	ck_assert(p.error().rfind(std::string(a) + ":2:", 0) == 0);
	std::remove(a);
}
END_TEST

START_TEST(test_c_api_plans_and_answers)
{
	omru_ctl_t *c = omru_ctl_create();
	ck_assert_ptr_nonnull(c);
	char err[256];
	ck_assert_int_eq(omru_ctl_configure(c, "/nonexistent/omru.conf", "/tmp", err, sizeof(err)), OMRU_OK);
	ck_assert_int_eq(omru_ctl_snapshot_begin(c, 100, 2), OMRU_OK);
	ck_assert_int_eq(omru_ctl_snapshot_node(c, 0, "n1", 4, 0, 1), OMRU_OK);
	ck_assert_int_eq(omru_ctl_snapshot_node(c, 1, "n2", 4, 0, 1), OMRU_OK);
	ck_assert_int_eq(omru_ctl_snapshot_node(c, 2, "n3", 4, 0, 1), OMRU_EINVAL);
	int elig[] = { 0, 1 };
	omru_ctl_job_t j = {};
	j.job_id = 42;
	j.submit_s = 90;
	j.time_limit_s = 600;
	j.gpus = 2;
	j.eligible = elig;
	j.eligible_count = 2;
	ck_assert_int_eq(omru_ctl_snapshot_job(c, &j, err, sizeof(err)), OMRU_OK);
	int bad_elig[] = { 1, 0 };
	omru_ctl_job_t bad = j;
	bad.job_id = 43;
	bad.eligible = bad_elig;
	ck_assert_int_eq(omru_ctl_snapshot_job(c, &bad, err, sizeof(err)), OMRU_EINVAL);
	ck_assert_str_eq(err, "eligible node indices must ascend within the cluster");
	ck_assert_int_eq(omru_ctl_plan(c, err, sizeof(err)), OMRU_OK);
	omru_ctl_decision_t d;
	ck_assert_int_eq(omru_ctl_lookup(c, 42, &d), 1);
	ck_assert_int_eq(d.kind, OMRU_DECIDE_START);
	ck_assert_int_eq(d.gpus, 2);
	ck_assert_int_eq(d.where_count, 1);
	int node = -1, gpus = -1;
	ck_assert_int_eq(omru_ctl_decision_where(&d, 0, &node, &gpus), OMRU_OK);
	ck_assert_int_eq(gpus, 2);
	ck_assert_int_eq(omru_ctl_lookup(c, 43, &d), 0);
	ck_assert_int_eq(d.kind, OMRU_DECIDE_PASS);
	// Both were offered to the plan (43 left to cons_tres on purpose); a
	// job submitted since was not, and the glue plans before it starts.
	ck_assert_int_eq(omru_ctl_offered(c, 42), 1);
	ck_assert_int_eq(omru_ctl_offered(c, 43), 1);
	ck_assert_int_eq(omru_ctl_offered(c, 44), 0);
	char line[512];
	omru_job_options_t o = {};
	o.set = OMRU_OPT_MODEL | OMRU_OPT_EPOCHS | OMRU_OPT_GPUS;
	std::snprintf(o.model, sizeof(o.model), "resnet");
	o.epochs = 90;
	o.gpus_min = 1;
	o.gpus_max = 4;
	ck_assert_int_eq(omru_ctl_admin_comment(c, 42, &o, "n1", 0, 0, line, sizeof(line)), OMRU_OK);
	std::string s = line;
	ck_assert(s.rfind("omru: gpus=2 nodes=n1 planned_start=", 0) == 0);
	ck_assert(s.find(" predicted_s=600 profile=default model=resnet epochs=90 range=1-4") != std::string::npos);
	// What backfill would have given it, from the plan that started it.
	ck_assert(s.find(" ref_end=") != std::string::npos);
	// A snapshot being filled changes nothing until its plan.
	ck_assert_int_eq(omru_ctl_snapshot_begin(c, 101, 2), OMRU_OK);
	j.job_id = 44;
	ck_assert_int_eq(omru_ctl_snapshot_job(c, &j, err, sizeof(err)), OMRU_OK);
	ck_assert_int_eq(omru_ctl_offered(c, 42), 1);
	ck_assert_int_eq(omru_ctl_offered(c, 44), 0);
	ck_assert_int_eq(omru_ctl_plan(c, err, sizeof(err)), OMRU_OK);
	ck_assert_int_eq(omru_ctl_offered(c, 42), 0);
	ck_assert_int_eq(omru_ctl_offered(c, 44), 1);
	omru_ctl_destroy(c);
}
END_TEST

// ---- loader demand: learned at job end, sizes the next jobs' CPUs --------

START_TEST(test_job_end_learns_the_loader_need_from_its_report)
{
	Controller c(profiles(kResnet), {});
	std::string log = c.job_ended(ended(7, 1000, "resnet", kNeeds4), 5000);
	ck_assert_string_eq(log, "model resnet of uid 1000: loader demand 4 worker(s) per "
				 "task (1 worker(s) gave 200 samples/s, waiting for data 75% "
				 "of the time)");
	ck_assert_int_eq(c.store().loader_need(1000, "resnet"), 4);
	ck_assert_int_eq(c.store().loader_need_when(1000, "resnet"), 5000);
	ck_assert_int_eq(c.store().loader_need(1001, "resnet"), 0);
	ck_assert(!c.store().knows(1000, "resnet")); // still profiles its epochs
	std::vector<profiler::StoreOp> ops = c.take_unsaved();
	ck_assert_int_eq(ops.size(), 1);
	ck_assert(ops[0].kind == profiler::StoreOp::Kind::SetLoaderNeed);
	ck_assert_int_eq(ops[0].need, 4);
}
END_TEST

START_TEST(test_job_end_without_a_loader_report_learns_no_need)
{
	Controller c(profiles(kResnet), {});
	ck_assert_string_eq(c.job_ended(ended(7, 1000, "resnet", ""), 5000), "");
	ck_assert_int_eq(c.store().loader_need(1000, "resnet"), 0);
	ck_assert(!c.has_unsaved());
}
END_TEST

START_TEST(test_job_end_ignores_a_malformed_loader_report_whole)
{
	Controller c(profiles(kResnet), {});
	// 2 workers, 100/s, half the time waiting: peak 200/s, 2 workers.
	c.job_ended(ended(1, 1000, "resnet", "2:100:0.5:100"), 10);
	ck_assert_int_eq(c.store().loader_need(1000, "resnet"), 2);
	c.take_unsaved();
	const char *bad[] = {
		"1:200:0.75",       "1:200:0.75:200:9", ":200:0.75:200",
		"1:200:0.75:",      "1;200;0.75;200",   "-1:200:0.75:200",
		"0:200:0.75:200",   "1:-200:0.75:200",  "1:0:0.75:200",
		"1:200:-0.1:200",   "1:200:1:200",      "1:200:1.5:200",
		"1:200:0.75:-200",  "1:200:0.75:0",     "1:nan:0.75:200",
		"1:200:nan:200",    "1:200:0.75:nan",   "1:inf:0.75:200",
		"1:200:0.75:1e999", "one:200:0.75:200", "1.5:200:0.75:200",
		"1:200:0.75:fast",  " 1:200:0.75:200",  "+1:200:0.75:200",
		"1:2e3:0.75:200", // 2000/s from 1 worker of 200/s: not one job
	};
	for (const char *f : bad) {
		std::string log = c.job_ended(ended(2, 1000, "resnet", f), 20);
		ck_assert_msg(log.rfind("model resnet of uid 1000: loader report ignored (", 0) == 0,
			      "%s: %s", f, log.c_str());
		ck_assert_msg(c.store().loader_need(1000, "resnet") == 2, "%s learned", f);
		ck_assert_msg(!c.has_unsaved(), "%s changed the store", f);
	}
}
END_TEST

START_TEST(test_learned_need_gives_one_cpu_per_gpu_plus_the_workers)
{
	Controller c(profiles(kResnet), cpus(2, true));
	c.job_ended(ended(9, 1000, "resnet", kNeeds4), 500);
	c.plan(resnet_of_two_users_and_a_plain_job());
	ck_assert_int_eq(c.lookup(1)->cpus_per_gpu, 5);
	ck_assert_int_eq(c.lookup(1)->loader_need, 4);
	// Another user's job of the same model: only CpusPerGpu.
	ck_assert_int_eq(c.lookup(2)->cpus_per_gpu, 2);
	ck_assert_int_eq(c.lookup(2)->loader_need, 0);
	// A plain job: its CPUs are left alone.
	ck_assert_int_eq(c.lookup(3)->cpus_per_gpu, 0);
}
END_TEST

START_TEST(test_without_loader_cpus_the_need_is_not_used)
{
	Controller c(profiles(kResnet), cpus(2, false));
	c.job_ended(ended(9, 1000, "resnet", kNeeds4), 500);
	c.plan(resnet_of_two_users_and_a_plain_job());
	ck_assert_int_eq(c.lookup(1)->cpus_per_gpu, 2);
	ck_assert_int_eq(c.lookup(1)->loader_need, 0);
	ck_assert_int_eq(c.lookup(2)->cpus_per_gpu, 2);
	ck_assert_int_eq(c.store().loader_need(1000, "resnet"), 4); // still learned
}
END_TEST

START_TEST(test_cpus_per_gpu_above_the_need_stands)
{
	Controller c(profiles(kResnet), cpus(8, true));
	c.job_ended(ended(9, 1000, "resnet", kNeeds4), 500);
	c.plan(resnet_of_two_users_and_a_plain_job());
	ck_assert_int_eq(c.lookup(1)->cpus_per_gpu, 8);
	ck_assert_int_eq(c.lookup(1)->loader_need, 4);
}
END_TEST

START_TEST(test_no_cpus_per_gpu_and_no_need_leaves_cpus_alone)
{
	Controller c(profiles(kResnet), cpus(0, true));
	c.plan(resnet_of_two_users_and_a_plain_job());
	for (uint32_t id = 1; id <= 3; id++)
		ck_assert_int_eq(c.lookup(id)->cpus_per_gpu, 0);
	c.job_ended(ended(9, 1000, "resnet", kNeeds4), 500);
	c.plan(resnet_of_two_users_and_a_plain_job());
	ck_assert_int_eq(c.lookup(1)->cpus_per_gpu, 5);
	ck_assert_int_eq(c.lookup(2)->cpus_per_gpu, 0);
}
END_TEST

START_TEST(test_c_api_learns_the_loader_need_and_writes_the_cpus)
{
	char conf[] = "/tmp/omru-conf-XXXXXX";
	int fd = mkstemp(conf);
	ck_assert(fd >= 0);
	close(fd);
	std::ofstream(conf) << "LoaderCpus=yes\nCpusPerGpu=2\n";
	omru_ctl_t *c = omru_ctl_create();
	char err[256], log[512];
	ck_assert_int_eq(omru_ctl_configure(c, conf, "/tmp", err, sizeof(err)), OMRU_OK);
	omru_job_options_t o = {};
	o.set = OMRU_OPT_MODEL;
	std::snprintf(o.model, sizeof(o.model), "resnet");
	ck_assert_int_eq(omru_ctl_job_end(c, 7, 1000, 0, &o, 1, 1, 600,
					  "omru: gpus=1 model=resnet loader=1:200:0.75:200",
					  log, sizeof(log)),
			 OMRU_OK);
	ck_assert_msg(std::strstr(log, "loader demand 4 worker(s) per task"), "%s", log);
	ck_assert_int_eq(omru_ctl_snapshot_begin(c, 100, 1), OMRU_OK);
	ck_assert_int_eq(omru_ctl_snapshot_node(c, 0, "n1", 4, 0, 1), OMRU_OK);
	int elig[] = { 0 };
	omru_ctl_job_t j = {};
	j.job_id = 42;
	j.submit_s = 90;
	j.time_limit_s = 600;
	j.gpus = 1;
	j.uid = 1000;
	j.opts = &o;
	j.eligible = elig;
	j.eligible_count = 1;
	ck_assert_int_eq(omru_ctl_snapshot_job(c, &j, err, sizeof(err)), OMRU_OK);
	ck_assert_int_eq(omru_ctl_plan(c, err, sizeof(err)), OMRU_OK);
	omru_ctl_decision_t d;
	ck_assert_int_eq(omru_ctl_lookup(c, 42, &d), 1);
	ck_assert_int_eq(d.kind, OMRU_DECIDE_START);
	ck_assert_int_eq(d.cpus_per_gpu, 5);
	ck_assert_int_eq(d.loader_need, 4);
	char line[512];
	ck_assert_int_eq(omru_ctl_admin_comment(c, 42, &o, "n1", 0, 5, line, sizeof(line)),
			 OMRU_OK);
	ck_assert_msg(std::strstr(line, " model=resnet cpus_per_gpu=5"), "%s", line);
	// Its own --cpus-per-gpu won: nothing of ours to record.
	ck_assert_int_eq(omru_ctl_admin_comment(c, 42, &o, "n1", 0, 0, line, sizeof(line)),
			 OMRU_OK);
	ck_assert_msg(!std::strstr(line, "cpus_per_gpu"), "%s", line);
	omru_ctl_destroy(c);
	std::remove(conf);
}
END_TEST

// LayerProfileDir=: a model whose data-parallel epochs do not get shorter
// with GPUs (1 GB of parameters to allreduce) runs on one GPU; with its
// layer profile a two-stage split pays for more GPUs, and the plan gives
// them.  A profile that does not parse refuses the configuration.
// One plan of job 42 (flat, 1 to node_gpus GPUs) on one idle node.
static int plan_once(omru_ctl_t *c, int node_gpus, const int *links)
{
	char err[256];
	omru_job_options_t o = {};
	o.set = OMRU_OPT_MODEL | OMRU_OPT_EPOCHS | OMRU_OPT_GPUS;
	std::snprintf(o.model, sizeof(o.model), "flat");
	o.epochs = 10;
	o.gpus_min = 1;
	o.gpus_max = node_gpus;
	ck_assert_int_eq(omru_ctl_snapshot_begin(c, 100, 1), OMRU_OK);
	ck_assert_int_eq(omru_ctl_snapshot_node(c, 0, "n1", node_gpus, 0, 1), OMRU_OK);
	if (links)
		ck_assert_int_eq(omru_ctl_snapshot_links(c, links, node_gpus), OMRU_OK);
	int elig[] = { 0 };
	omru_ctl_job_t j = {};
	j.job_id = 42;
	j.submit_s = 90;
	j.gpus = 1;
	j.opts = &o;
	j.eligible = elig;
	j.eligible_count = 1;
	ck_assert_int_eq(omru_ctl_snapshot_job(c, &j, err, sizeof(err)), OMRU_OK);
	ck_assert_int_eq(omru_ctl_plan(c, err, sizeof(err)), OMRU_OK);
	omru_ctl_decision_t d;
	ck_assert_int_eq(omru_ctl_lookup(c, 42, &d), 1);
	ck_assert_int_eq(d.kind, OMRU_DECIDE_START);
	return d.gpus;
}

// What the glue's thread does: compute the factors plans missed.  RET how
// many were installed.
static int compute_gains(omru_ctl_t *c)
{
	int n = 0;
	while (omru_gain_batch_t *b = omru_ctl_gains_take(c)) {
		omru_gain_batch_compute(b);
		n += omru_ctl_gains_install(c, b);
	}
	return n;
}

// The plan once the factors the first plan missed are known.
static int planned_gpus(omru_ctl_t *c, int node_gpus = 4, const int *links = nullptr)
{
	plan_once(c, node_gpus, links);
	compute_gains(c);
	return plan_once(c, node_gpus, links);
}

START_TEST(test_c_api_counts_on_pipeline_splits_of_profiled_models)
{
	char dir[] = "/tmp/omru-layers-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	std::string d = dir, conf = d + "/omru.conf", layers = d + "/layers";
	ck_assert_int_eq(mkdir(layers.c_str(), 0700), 0);
	std::ofstream(d + "/p.csv") << "model,gpus,epoch_s\nflat,1,100\nflat,2,100\nflat,4,100\n";
	// (flat,2 is also the two-GPU node's whole curve below.)
	// One job alone on the node: ArrivalGuard=yes would run it at its
	// ask (the first of a stream, as far as the plan can tell).
	std::ofstream(conf) << "ArrivalGuard=no\nProfileFile=" << d << "/p.csv\n";
	omru_ctl_t *c = omru_ctl_create();
	char err[256], said[1024];
	ck_assert_int_eq(omru_ctl_configure(c, conf.c_str(), "/tmp", err, sizeof(err)), OMRU_OK);
	ck_assert_int_eq(planned_gpus(c), 1);
	std::ofstream(layers + "/flat.csv")
		<< "layer,batch,fwd_ms,bwd_ms,out_bytes,stash_bytes,param_bytes\n"
		   "a,1,1,2,1000,0,500000000\nb,1,1,2,1000,0,500000000\n";
	std::ofstream(conf) << "ArrivalGuard=no\nProfileFile=" << d << "/p.csv\nLayerProfileDir=" << layers
			    << "\nPipelineBatch=1\n";
	ck_assert_int_eq(omru_ctl_configure(c, conf.c_str(), "/tmp", err, sizeof(err)), OMRU_OK);
	omru_ctl_describe(c, said, sizeof(said));
	ck_assert_msg(std::strstr(said, "; pipeline splits for flat)"), "%s", said);
	// The first plan does not wait for the partitioner: data parallelism
	// until the factors are computed (2, 3 and 4 GPUs on the node).
	ck_assert_int_eq(plan_once(c, 4, nullptr), 1);
	ck_assert_int_eq(compute_gains(c), 3);
	ck_assert_ptr_null(omru_ctl_gains_take(c));
	ck_assert_int_gt(plan_once(c, 4, nullptr), 1);
	std::ofstream(layers + "/bad.csv") << "layer,batch,fwd_ms\n";
	ck_assert_int_eq(omru_ctl_configure(c, conf.c_str(), "/tmp", err, sizeof(err)), OMRU_EINVAL);
	ck_assert_msg(std::strstr(err, "/layers/bad.csv:1:"), "%s", err);
	ck_assert_int_gt(planned_gpus(c), 1); // the last good configuration stays
	std::remove((layers + "/bad.csv").c_str());
	// The nodes' links: 1 GB of parameters between two GPUs; over PCIe a
	// two-stage split beats the allreduce (619 vs 683 ms per iteration),
	// over 4 NVLinks it does not (610 vs 610): 2 GPUs, then 1.
	std::ofstream(layers + "/flat.csv")
		<< "layer,batch,fwd_ms,bwd_ms,out_bytes,stash_bytes,param_bytes\n"
		   "conv1,8,40,80,131072,400000,500000000\npool1,8,10,20,32768,200000,0\n"
		   "conv2,8,40,80,4096,100000,500000000\nfc,8,10,20,320,400,0\n";
	std::ofstream(conf) << "ArrivalGuard=no\nProfileFile=" << d << "/p.csv\nLayerProfileDir=" << layers
			    << "\nPipelineBatch=16\n";
	ck_assert_int_eq(omru_ctl_configure(c, conf.c_str(), "/tmp", err, sizeof(err)), OMRU_OK);
	// Factors asked of one configuration are not installed in the next.
	plan_once(c, 2, nullptr);
	omru_gain_batch_t *stale = omru_ctl_gains_take(c);
	ck_assert_ptr_nonnull(stale);
	ck_assert_int_eq(omru_ctl_configure(c, conf.c_str(), "/tmp", err, sizeof(err)), OMRU_OK);
	omru_gain_batch_compute(stale);
	ck_assert_int_eq(omru_ctl_gains_install(c, stale), 0);
	ck_assert_int_eq(planned_gpus(c, 2), 2);
	const int nvlinked[] = { -1, 4, 4, -1 }, asymmetric[] = { -1, 4, 0, -1 };
	ck_assert_int_eq(planned_gpus(c, 2, nvlinked), 1);
	ck_assert_int_eq(planned_gpus(c, 2), 2); // links gone: PCIe again
	ck_assert_int_eq(omru_ctl_snapshot_links(c, asymmetric, 2), OMRU_EINVAL);
	omru_ctl_destroy(c);
	std::remove((layers + "/flat.csv").c_str());
	rmdir(layers.c_str());
	std::remove(conf.c_str());
	std::remove((d + "/p.csv").c_str());
	rmdir(dir);
}
END_TEST

START_TEST(test_select_gpus_prefers_the_nvlinked_pair)
{
	// GPUs 0-1 and 2-3 NVLinked; 1 is busy: the pair is 2,3, not 0,2.
	int links[16] = { -1, 1, 0, 0, 1, -1, 0, 0, 0, 0, -1, 1, 0, 0, 1, -1 };
	unsigned char free_map[4] = { 1, 0, 1, 1 };
	int slots[2];
	ck_assert_int_eq(omru_select_gpus(links, 4, free_map, 2, slots), OMRU_OK);
	ck_assert_int_eq(slots[0], 2);
	ck_assert_int_eq(slots[1], 3);
	ck_assert_int_eq(omru_select_gpus(links, 4, free_map, 4, slots), OMRU_EINVAL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("controller");
	TCase *tc = tcase_create("controller");
	tcase_add_test(tc, test_known_model_gets_every_count_of_its_range);
	tcase_add_test(tc, test_c_api_counts_on_pipeline_splits_of_profiled_models);
	tcase_add_test(tc, test_a_users_unpriceable_rows_change_only_that_users_plan);
	tcase_add_test(tc, test_pricing_is_bounded_per_user_and_plan);
	tcase_add_test(tc, test_stats_name_the_reference_ends_that_moved);
	tcase_add_test(tc, test_unknown_model_runs_its_minimum_for_its_time_limit);
	tcase_add_test(tc, test_plain_job_is_rigid_and_priced_at_its_time_limit);
	tcase_add_test(tc, test_plain_job_without_limit_uses_the_default_runtime);
	tcase_add_test(tc, test_eligible_subset_becomes_a_node_set);
	tcase_add_test(tc, test_unusable_node_offers_no_free_gpus);
	tcase_add_test(tc, test_running_job_past_its_prediction_still_holds_its_gpus);
	tcase_add_test(tc, test_running_job_on_time_keeps_its_end);
	tcase_add_test(tc, test_pending_beyond_the_cap_are_left_out_by_priority);
	tcase_add_test(tc, test_pending_job_gets_only_counts_that_end_within_its_limit);
	tcase_add_test(tc, test_the_margin_counts_against_the_limit);
	tcase_add_test(tc, test_job_no_count_fits_is_planned_at_the_count_it_asked);
	tcase_add_test(tc, test_a_spread_past_the_limit_is_not_offered);
	tcase_add_test(tc, test_jobs_whose_limits_keep_the_same_spreads_share_a_curve);
	tcase_add_test(tc, test_controller_waits_for_a_packed_start_within_the_limit);
	tcase_add_test(tc, test_running_job_keeps_its_count_past_its_limit);
	tcase_add_test(tc, test_elastic_job_is_resized_only_within_its_limit);
	tcase_add_test(tc, test_job_without_profile_pays_the_spread_cost_per_node);
	tcase_add_test(tc, test_controller_prices_spreads_at_the_configured_cost);
	tcase_add_test(tc, test_controller_learns_each_users_launch);
	tcase_add_test(tc, test_job_that_cannot_fit_is_unmodelled);
	tcase_add_test(tc, test_controller_starts_what_fits_and_dates_the_rest);
	tcase_add_test(tc, test_controller_plan_is_stable_when_nothing_changes);
	tcase_add_test(tc, test_estimated_count_is_marked_estimated);
	tcase_add_test(tc, test_plan_state_round_trips);
	tcase_add_test(tc, test_plan_state_rejects_garbage_with_the_line);
	tcase_add_test(tc, test_plan_state_saves_atomically_and_loads);
	tcase_add_test(tc, test_site_profiles_merge_first_file_wins);
	tcase_add_test(tc, test_site_profiles_report_the_bad_file_and_line);
	tcase_add_test(tc, test_c_api_plans_and_answers);
	tcase_add_test(tc, test_select_gpus_prefers_the_nvlinked_pair);
	tcase_add_test(tc, test_job_end_learns_the_loader_need_from_its_report);
	tcase_add_test(tc, test_job_end_without_a_loader_report_learns_no_need);
	tcase_add_test(tc, test_job_end_ignores_a_malformed_loader_report_whole);
	tcase_add_test(tc, test_learned_need_gives_one_cpu_per_gpu_plus_the_workers);
	tcase_add_test(tc, test_without_loader_cpus_the_need_is_not_used);
	tcase_add_test(tc, test_cpus_per_gpu_above_the_need_stands);
	tcase_add_test(tc, test_no_cpus_per_gpu_and_no_need_leaves_cpus_alone);
	tcase_add_test(tc, test_c_api_learns_the_loader_need_and_writes_the_cpus);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
