// test_interference.cpp - co-location: the table's reader and its bounds,
// the predictor (measured pairs, the fit from solo signals, unknown
// models), the planner's placement and timing with a slowdown matrix, and
// the simulator's truth with it (omru vs omru-oblivious).
#include "check_cxx.hpp"

#include <cmath>
#include <memory>
#include <string>

#include "controller/colocation_book.hpp"
#include "controller/controller.hpp"
#include "controller/pair_prices.hpp"
#include "controller/plan_input.hpp"
#include "model/csv_table.hpp"
#include "plan_fixture.hpp"
#include "planner/planner.hpp"
#include "profile/colocation_table.hpp"
#include "profile/interference_model.hpp"
#include "sim/simulator.hpp"
#include "sim/validator.hpp"
#include "sim_fixture.hpp"

using namespace omru;
using namespace omru::planner;

namespace {

std::vector<ColocationPair> pairs(const char *csv)
{
	return colocation_pairs_from_csv(CsvTable::parse("pairs.csv", csv));
}

std::vector<SoloSignals> signals(const char *csv)
{
	return solo_signals_from_csv(CsvTable::parse("signals.csv", csv));
}

std::string pairs_error(const char *csv)
{
	try {
		pairs(csv);
	} catch (const InputError &e) {
		return e.what();
	}
	return "";
}

std::string signals_error(const char *csv)
{
	try {
		signals(csv);
	} catch (const InputError &e) {
		return e.what();
	}
	return "";
}

} // namespace

START_TEST(test_pairs_are_bounded_where_they_enter)
{
	auto p = pairs("model_a,model_b,slowdown_a,slowdown_b,samples\n"
		       "a,b,0.9,1.5,3\n"
		       "a,a,9,2\n");
	ck_assert_int_eq(p.size(), 2);
	ck_assert_double_eq(p[0].slowdown_a, 1.0); // noise: never faster
	ck_assert_double_eq(p[0].slowdown_b, 1.5);
	ck_assert_double_eq(p[0].samples, 3);
	ck_assert_double_eq(p[1].slowdown_a, kMaxSlowdown);
	ck_assert_double_eq(p[1].samples, 1);
	ck_assert(pairs_error("model_a,model_b,slowdown_a,slowdown_b\na,b,0,1\n")
			  .find("pairs.csv:2:") == 0);
	ck_assert(pairs_error("model_a,model_b,slowdown_a,slowdown_b\na,b,1,500\n")
			  .find("not a measurement") != std::string::npos);
	ck_assert(pairs_error("model_a,model_b,slowdown_a,slowdown_b\na b,b,1,1\n")
			  .find("not a model name") != std::string::npos);
	ck_assert(pairs_error("model_a,slowdown_a,slowdown_b\na,1,1\n")
			  .find("model_b") != std::string::npos);
}
END_TEST

START_TEST(test_signals_are_percentages_once_per_model)
{
	auto s = signals("model,gpu_util,mem_util\nx,99.5,60\ny,0,0\n");
	ck_assert_int_eq(s.size(), 2);
	ck_assert_double_eq(s[0].gpu_util, 99.5);
	ck_assert(signals_error("model,gpu_util,mem_util\nx,101,1\n")
			  .find("not a percentage") != std::string::npos);
	ck_assert(signals_error("model,gpu_util,mem_util\nx,1,1\nx,2,2\n")
			  .find("a second row for model x") != std::string::npos);
	ck_assert(signals_error("model,gpu_util,mem_util\nx,-1,1\n")
			  .find(">= 0") != std::string::npos);
}
END_TEST

START_TEST(test_measured_pairs_are_order_free_and_weighted)
{
	ColocationData d;
	d.pairs = pairs("model_a,model_b,slowdown_a,slowdown_b,samples\n"
			"a,b,1.2,1.6,1\n"
			"b,a,1.0,1.4,3\n"); // a next to b: (1.2 + 3 x 1.4) / 4
	InterferenceModel m(d);
	ck_assert_double_eq_tol(m.slowdown("a", "b"), (1.2 + 3 * 1.4) / 4, 1e-12);
	ck_assert_double_eq_tol(m.slowdown("b", "a"), (1.6 + 3 * 1.0) / 4, 1e-12);
	ck_assert(m.source("a", "b") == InterferenceModel::Source::Measured);
	// Neither measured nor signals: not priced.
	ck_assert_double_eq(m.slowdown("a", "c"), 1.0);
	ck_assert(m.source("a", "c") == InterferenceModel::Source::None);
	ck_assert(!m.fit().fitted);
	ck_assert_double_eq(combined_slowdown(0.25 + 0.5), 1.75);
	ck_assert_double_eq(combined_slowdown(10), kMaxSlowdown);
	ck_assert_double_eq(combined_slowdown(-1), 1.0);
}
END_TEST

// Pairs drawn from a known linear rule: the fit recovers it and prices an
// unmeasured pair from the two models' signals; a measured pair keeps its
// measurement even where the rule says otherwise.
namespace {

// A known rule on six models m0..m5 with signals (u, m as fractions).
const double kC[5] = { 0.02, 0.10, 0.30, 0.25, 0.40 };
const double kU[6] = { 0.95, 0.60, 0.30, 0.85, 0.15, 0.70 };
const double kM[6] = { 0.60, 0.20, 0.10, 0.45, 0.05, 0.35 };

double rule_of(double u_a, double m_a, double u_b, double m_b)
{
	return 1 + kC[0] + kC[1] * u_b + kC[2] * m_b + kC[3] * u_a * u_b + kC[4] * m_a * m_b;
}

double rule(int a, int b) { return rule_of(kU[a], kM[a], kU[b], kM[b]); }

// Every pair of m0..m5 measured by the rule but m0-m5, and the signals.
ColocationData rule_table()
{
	ColocationData d;
	for (int i = 0; i < 6; i++) {
		d.signals.push_back({ "m" + std::to_string(i), 100 * kU[i], 100 * kM[i] });
		for (int j = i; j < 6; j++) {
			if (i == 0 && j == 5)
				continue; // held out
			ColocationPair p;
			p.a = "m" + std::to_string(i);
			p.b = "m" + std::to_string(j);
			p.slowdown_a = rule(i, j);
			p.slowdown_b = rule(j, i);
			d.pairs.push_back(p);
		}
	}
	return d;
}

} // namespace

START_TEST(test_fit_prices_unmeasured_pairs_from_signals)
{
	ColocationData d = rule_table();
	d.pairs.push_back({ "m1", "m2", 3.0, 1.0, 1 }); // a second, odd row
	InterferenceModel m(d);
	ck_assert(m.fit().fitted);
	ck_assert_int_ge(m.fit().observations, 10);
	ck_assert(m.source("m0", "m5") == InterferenceModel::Source::Predicted);
	ck_assert_double_eq_tol(m.slowdown("m0", "m5"), rule(0, 5), 0.08);
	ck_assert_double_eq_tol(m.slowdown("m5", "m0"), rule(5, 0), 0.08);
	ck_assert_double_eq_tol(m.slowdown("m1", "m2"), (rule(1, 2) + 3.0) / 2, 1e-12);
	auto mat = m.matrix({ "m0", "m5", "unknown" });
	ck_assert_double_eq(mat[0][1], m.slowdown("m0", "m5"));
	ck_assert_double_eq(mat[2][0], 1.0);
	ck_assert_double_eq(mat[1][2], 1.0);
}
END_TEST

namespace {

// Two nodes of 4 GPUs; job 0 (kind 0) runs on node 0 with 2 GPUs, 10
// epochs of 100 s from time 0; job 1 (kind 1) waits for 2 GPUs, 5 epochs.
PlanInput two_nodes(double slowdown)
{
	PlanInput in;
	in.nodes = 2;
	in.gpus_per_node = 4;
	in.free_per_node = { 2, 4 };
	in.curves = { omru_test::rigid(2, 2) };
	PlanJob a;
	a.id = 1;
	a.curve = 0;
	a.remaining_epochs = 10;
	a.kind = slowdown > 0 ? 0 : -1;
	in.jobs.push_back(omru_test::running_on_node0(a, 2, 100, 10, false));
	PlanJob b;
	b.id = 2;
	b.curve = 0;
	b.remaining_epochs = 5;
	b.kind = slowdown > 0 ? 1 : -1;
	in.jobs.push_back(b);
	if (slowdown > 0)
		in.slowdown = { { 1, slowdown }, { slowdown, 1 } };
	return in;
}

} // namespace

START_TEST(test_interfering_job_goes_to_the_free_node)
{
	// Blind: best fit puts it beside job 0.
	Plan blind = make_plan(two_nodes(0));
	ck_assert_int_eq(blind.now.size(), 1);
	ck_assert_int_eq(blind.now[0].where[0].first, 0);
	// With a slowdown of 1.5 both ways it goes to node 1, and no one
	// is slowed.
	Plan p = make_plan(two_nodes(1.5));
	ck_assert_int_eq(p.now.size(), 1);
	ck_assert_int_eq(p.now[0].where.size(), 1);
	ck_assert_int_eq(p.now[0].where[0].first, 1);
	ck_assert_double_eq(p.jobs[0].end_s(), 1000);
	ck_assert_double_eq(p.jobs[1].end_s(), 500);
	// A table of pairs that do not interfere places as blind.
	Plan same = make_plan(two_nodes(1.0));
	ck_assert_int_eq(same.now[0].where[0].first, 0);
}
END_TEST

START_TEST(test_interfering_job_shares_when_nothing_else_fits)
{
	PlanInput in = two_nodes(1.5);
	// Node 1 is held by a job the plan does not price (kind -1).
	PlanJob c;
	c.id = 3;
	c.curve = 1;
	c.remaining_epochs = 30;
	PlanJob cr = omru_test::running_on_node0(c, 4, 100, 30, false);
	cr.where = { { 1, 4 } };
	in.curves.push_back(omru_test::rigid(4, 2));
	in.jobs.push_back(cr);
	in.free_per_node = { 2, 0 };
	Plan p = make_plan(in);
	ck_assert_int_eq(p.now.size(), 1);
	ck_assert_int_eq(p.now[0].where[0].first, 0);
	// Both run at 150 s per epoch while together: job 1's 5 epochs end
	// at 750; job 0 did 5 of its 10 by then (at 150 s each) and the last
	// 5 alone at 100 s each.
	ck_assert_double_eq_tol(p.jobs[1].end_s(), 750, 1e-9);
	ck_assert_double_eq_tol(p.jobs[0].end_s(), 1250, 1e-9);
	ck_assert_double_eq_tol(p.jobs[2].end_s(), 3000, 1e-9); // unpriced
}
END_TEST

START_TEST(test_plan_input_checks_the_matrix)
{
	PlanInput in = two_nodes(1.5);
	in.slowdown[0][1] = 0.5;
	ck_assert(omru_test::refusal(in).find("slowdowns") != std::string::npos);
	in = two_nodes(1.5);
	in.slowdown.pop_back();
	ck_assert(omru_test::refusal(in).find("square") != std::string::npos);
	in = two_nodes(1.5);
	in.jobs[1].kind = 2;
	ck_assert(omru_test::refusal(in).find("interference kind") != std::string::npos);
}
END_TEST

namespace {

// 2 nodes x 4 GPUs; a and b interfere (x 1.6 each way), c does not.
// Blind best fit puts b1 beside a1 (the fullest node that fits) and c1
// alone; aware, c1 goes beside a1 and b1 alone.
const char *kProfiles = "model,gpus,epoch_s\n"
			"a,1,100\na,2,50\n"
			"b,1,100\nb,2,50\n"
			"c,1,100\nc,2,50\n";
const char *kWorkload = "job_id,submit_s,model,epochs,gpus,gpus_min,gpus_max\n"
			"a1,0,a,20,2,2,2\n"
			"b1,0,b,20,2,2,2\n"
			"c1,0,c,20,2,2,2\n";

std::shared_ptr<const InterferenceModel> table(double s)
{
	ColocationData d;
	d.pairs.push_back({ "a", "b", s, s, 1 });
	d.pairs.push_back({ "b", "b", s, s, 1 });
	return std::make_shared<const InterferenceModel>(d);
}

Schedule simulate_with(const omru_test::Inputs &in, const char *policy,
		       std::shared_ptr<const InterferenceModel> truth)
{
	PolicyOptions o;
	o.omru_interference = truth;
	auto p = find_policy(policy)->make(o);
	SimOptions so;
	so.interference = truth.get();
	Schedule s = simulate(in.cluster, in.profiles, in.workload, *p, so).schedule;
	// Slower than the profiles, never faster: the validator's bound holds.
	ck_assert(validate_schedule(in.cluster, in.profiles, in.workload, s, 0).empty());
	return s;
}

double makespan(const Schedule &s)
{
	double m = 0;
	for (const Segment &g : s)
		m = std::max(m, g.end_s);
	return m;
}

} // namespace

START_TEST(test_sim_slows_co_located_jobs_and_omru_avoids_it)
{
	omru_test::Inputs in = omru_test::make_inputs("2x4", kProfiles, kWorkload);
	auto t = table(1.6);
	Schedule aware = simulate_with(in, "omru", t);
	Schedule blind = simulate_with(in, "omru-oblivious", t);
	// Blind, a1 and b1 share a node and run 1.6 x slower.
	ck_assert(makespan(blind) > 1000 + 1e-6);
	// Aware: the interfering jobs are kept apart where the GPUs allow.
	ck_assert(makespan(aware) < makespan(blind) - 1e-6);
	// No table: the same plan either way (and no slowdown).
	Schedule plain = simulate_with(in, "omru", nullptr);
	Schedule plain_blind = simulate_with(in, "omru-oblivious", nullptr);
	omru_test::ck_assert_same_schedule(plain, plain_blind);
	// A table whose pairs do not interfere changes nothing.
	Schedule neutral = simulate_with(in, "omru", table(1.0));
	omru_test::ck_assert_same_schedule(plain, neutral);
}
END_TEST

namespace {

controller::JobSnap running_job(uint32_t id, const char *model, int node)
{
	controller::JobSnap j;
	j.job_id = id;
	j.running = true;
	j.omru = true;
	j.model = model;
	j.gpus = 1;
	j.where = { { node, 1 } };
	return j;
}

} // namespace

// What its neighbours cost a running job, integrated between plans: the
// controller compares a finished job's real epoch time with its curve
// times this, so interference is not learned into the curve.
START_TEST(test_colocation_book_integrates_the_factor)
{
	ColocationData d;
	d.pairs.push_back({ "a", "b", 1.5, 1.2, 1 });
	InterferenceModel m(d);
	controller::ColocationBook book;
	controller::Snapshot s;
	s.now_s = 100;
	s.jobs = { running_job(1, "a", 0), running_job(2, "b", 0), running_job(3, "c", 1) };
	const controller::PairPrices prices(m, nullptr);
	book.observe(s, prices);
	s.now_s = 110; // b left: a alone
	s.jobs = { running_job(1, "a", 0), running_job(3, "c", 1) };
	book.observe(s, prices);
	controller::ColocationBook::Seen a = book.take(1, 130);
	ck_assert_double_eq_tol(a.mean_factor, (1.5 * 10 + 1 * 20) / 30, 1e-12);
	ck_assert_double_eq(a.seen_s, 30);
	ck_assert_string_eq(a.only_neighbour, ""); // alone once
	controller::ColocationBook::Seen b = book.take(2, 112);
	ck_assert_double_eq_tol(b.mean_factor, 1.2, 1e-12);
	ck_assert_string_eq(b.only_neighbour, "a");
	controller::ColocationBook::Seen c = book.take(3, 130);
	ck_assert_double_eq(c.mean_factor, 1.0);
	controller::ColocationBook::Seen none = book.take(42, 130);
	ck_assert_double_eq(none.mean_factor, 1.0);
	ck_assert_int_eq(book.size(), 0);
}
END_TEST

// The table (a beside b: 1.5) corrected by one user's measurements: the
// table weighs as one job, so one job at 2 makes 1.75 for that user; other
// users, the other direction and the site keep the table's price.
START_TEST(test_pair_prices_mix_a_users_measurements_into_the_table)
{
	ColocationData d;
	d.pairs.push_back({ "a", "b", 1.5, 1.2, 1 });
	InterferenceModel m(d);
	profiler::ProfileStore store;
	profiler::BesideRow b;
	b.neighbour = "b";
	b.slowdown = 2;
	b.when = 10;
	store.apply(profiler::StoreOp::add_beside(1000, "a", b));
	const controller::PairPrices p(m, &store);
	ck_assert_double_eq_tol(p.slowdown(1000, "a", "b"), 1.75, 1e-12);
	ck_assert_double_eq_tol(p.slowdown(1001, "a", "b"), 1.5, 1e-12);
	ck_assert_double_eq_tol(p.slowdown(profiler::kSiteUid, "a", "b"), 1.5, 1e-12);
	ck_assert_double_eq_tol(p.slowdown(1000, "b", "a"), 1.2, 1e-12);
	ck_assert(p.measured_by(1000, "a"));
	ck_assert(!p.measured_by(1000, "b"));
	ck_assert(!p.measured_by(1001, "a"));
	// Seven more jobs at 2: nearly all the user's (8 runs against 1).
	for (int i = 0; i < 7; i++)
		store.apply(profiler::StoreOp::add_beside(1000, "a", b));
	ck_assert_double_eq_tol(p.slowdown(1000, "a", "b"), (1.5 + 2 * 8) / 9, 1e-12);
	// A pair the table does not price starts from 1.
	b.neighbour = "c";
	store.apply(profiler::StoreOp::add_beside(1000, "a", b));
	ck_assert_double_eq_tol(p.slowdown(1000, "a", "c"), 1.5, 1e-12);
	ck_assert_double_eq_tol(controller::PairPrices(m, nullptr).slowdown(1000, "a", "b"), 1.5,
				1e-12);
}
END_TEST

// A model the table does not know ("x"), whose solo signals uid 1000's
// nodes sampled: priced for uid 1000's jobs by the table's fit from them;
// not for anyone else's (no signals: 1).  A measured pair stays measured.
START_TEST(test_pair_prices_use_a_users_own_solo_signals)
{
	InterferenceModel m(rule_table());
	profiler::ProfileStore store;
	profiler::SignalsRow sig;
	sig.gpu_pct = 80;
	sig.mem_pct = 50;
	sig.when = 1;
	store.apply(profiler::StoreOp::add_signals(1000, "x", sig));
	store.apply(profiler::StoreOp::add_signals(1000, "m1", sig));
	const controller::PairPrices p(m, &store);
	ck_assert(p.measured_by(1000, "x"));
	ck_assert_double_eq_tol(p.slowdown(1000, "x", "m5"), rule_of(0.8, 0.5, kU[5], kM[5]), 0.08);
	ck_assert_double_eq_tol(p.slowdown(1000, "x", "m2"), rule_of(0.8, 0.5, kU[2], kM[2]), 0.08);
	ck_assert_double_eq(p.slowdown(1001, "x", "m5"), 1);
	ck_assert_double_eq(p.slowdown(1000, "m5", "x"), 1); // x's signals are the user's
	ck_assert_double_eq_tol(p.slowdown(1000, "m1", "m2"), rule(1, 2), 1e-12);
	ck_assert_double_eq(p.slowdown(1000, "x", "unknown"), 1);
}
END_TEST

namespace {

controller::JobSnap user_job(uint32_t id, uint32_t uid, const char *model, bool running)
{
	controller::JobSnap j = running_job(id, model, 0);
	j.uid = uid;
	j.running = running;
	j.epochs = 1;
	j.gpus_min = j.gpus_max = 1;
	j.time_limit_s = 3600;
	if (!running) {
		j.where.clear();
		j.eligible = { 0, 1 };
	}
	return j;
}

controller::JobEnd completed(uint32_t id, uint32_t uid, const char *model, double run_s)
{
	controller::JobEnd e;
	e.job_id = id;
	e.uid = uid;
	e.completed = true;
	e.model = model;
	e.epochs = 1;
	e.gpus = e.nodes = 1;
	e.run_s = run_s;
	return e;
}

// Site rows a and b, 100 s per epoch on 1 GPU, as a ProfileFile= gives.
struct TwoModels {
	std::shared_ptr<const ProfileTable> profiles = std::make_shared<ProfileTable>(
		ProfileTable::from_csv(CsvTable::parse("p.csv", "model,gpus,epoch_s\n"
								 "a,1,100\nb,1,100\n")));
	controller::SiteProfiles site{ profiles, { { "a", 1, 0, 100 }, { "b", 1, 0, 100 } }, 2, {} };
	controller::PlanSettings settings;
	controller::Snapshot snap;
	TwoModels()
	{
		ColocationData d;
		d.pairs.push_back({ "a", "b", 1.5, 1.2, 1 });
		settings.interference = std::make_shared<InterferenceModel>(d);
		for (const char *name : { "n0", "n1" }) {
			controller::NodeSnap n;
			n.name = name;
			n.gpus = 2;
			snap.nodes.push_back(n);
		}
	}
};

} // namespace

// A job of uid 1000's model a beside b all along, 2 x its curve's time
// alone: a measurement of that pair for uid 1000 (the store's beside line,
// no runtime row, no curve correction), which then prices uid 1000's next
// job of a beside b at 1.75 and nobody else's.
START_TEST(test_a_job_beside_one_model_all_along_measures_the_pair_for_its_user)
{
	TwoModels t;
	controller::Controller c(t.site, t.settings);
	t.snap.jobs = { user_job(1, 1000, "a", true), user_job(2, 2000, "b", true) };
	t.snap.jobs[0].gpus = t.snap.jobs[1].gpus = 1;
	c.plan(t.snap);
	t.snap.now_s = 150;
	c.plan(t.snap);
	std::string log = c.job_ended(completed(1, 1000, "a", 200), 200);
	ck_assert_msg(log.find("model a of uid 1000: epoch 200 s at 1 GPU(s), 100 s alone by "
			       "its curve: beside model b all along, slowdown 2 measured, 1.5 "
			       "priced, 1.75 from now on for this user's jobs (co-location "
			       "table: 1.5)") == 0,
		      "%s", log.c_str());
	ck_assert_ptr_nonnull(c.store().beside(1000, "a", "b"));
	ck_assert_double_eq(c.store().beside(1000, "a", "b")->slowdown, 2);
	ck_assert(!c.store().knows(1000, "a"));
	ck_assert_double_eq(c.store().correction(1000, "a"), 1);
	// b's job was slowed by a as the table says (1.2): nothing to learn.
	ck_assert_string_eq(c.job_ended(completed(2, 2000, "b", 120), 200).substr(0, 60),
			    "model b of uid 2000: epoch 120 s at 1 GPU(s), 100 s alone by");
	ck_assert_double_eq_tol(c.store().beside(2000, "b", "a")->slowdown, 1.2, 1e-12);

	// The next plan: uid 1000's pending a and uid 3000's beside a running b.
	controller::Snapshot p = t.snap;
	p.jobs = { user_job(5, 2000, "b", true), user_job(3, 1000, "a", false),
		   user_job(4, 3000, "a", false) };
	p.jobs[0].gpus = 1;
	controller::PlanSettings st = t.settings;
	st.measured_pairs = std::make_shared<profiler::ProfileStore>(c.store());
	controller::SpeedBook book(t.profiles);
	controller::BuiltInput b = controller::build_plan_input(p, book, st);
	auto kind = [&](uint32_t id) {
		for (size_t i = 0; i < b.job_ids.size(); i++)
			if (b.job_ids[i] == id)
				return b.in.jobs[i].kind;
		ck_abort_msg("job %u not in the plan", id);
		return -1;
	};
	ck_assert_int_ne(kind(3), kind(4));
	ck_assert_double_eq_tol(b.in.slowdown[kind(3)][kind(5)], 1.75, 1e-12);
	ck_assert_double_eq_tol(b.in.slowdown[kind(4)][kind(5)], 1.5, 1e-12);
	// What a costs b is b's user's price (its measured 1.2), whoever owns a.
	ck_assert_double_eq_tol(b.in.slowdown[kind(5)][kind(3)], 1.2, 1e-12);
	ck_assert_double_eq_tol(b.in.slowdown[kind(5)][kind(4)], 1.2, 1e-12);
}
END_TEST

// Beside b all along but 10 x its curve: no pair costs that, the curve is
// wrong; the runtime correction learns it (priced by the table), no pair.
// A job alone measures no pair either.
START_TEST(test_a_job_far_off_its_curve_corrects_the_curve_not_the_pair)
{
	TwoModels t;
	controller::Controller c(t.site, t.settings);
	t.snap.jobs = { user_job(1, 1000, "a", true), user_job(2, 2000, "b", true),
			user_job(3, 1000, "b", true) };
	for (auto &j : t.snap.jobs)
		j.gpus = 1;
	t.snap.jobs[2].where = { { 1, 1 } };
	c.plan(t.snap);
	t.snap.now_s = 900;
	c.plan(t.snap);
	std::string log = c.job_ended(completed(1, 1000, "a", 1000), 1000);
	ck_assert_msg(log.find("curve corrected") != std::string::npos, "%s", log.c_str());
	ck_assert_ptr_null(c.store().beside(1000, "a", "b"));
	ck_assert(c.store().knows(1000, "a"));
	log = c.job_ended(completed(3, 1000, "b", 100), 1000);
	ck_assert_string_eq(log, "");
	ck_assert_int_eq(c.store().beside(1000, "b").size(), 0);
}
END_TEST

// A job that ran with no OMRU neighbour, its node's sampler's gpu_use in
// its record: its model's solo signals for its user.  Beside another, or
// with a malformed or too short sample, nothing is learned.
START_TEST(test_a_job_alone_teaches_its_models_solo_signals)
{
	TwoModels t;
	controller::Controller c(t.site, t.settings);
	t.snap.jobs = { user_job(1, 1000, "a", true), user_job(2, 2000, "b", true),
			user_job(3, 2000, "a", true), user_job(4, 3000, "a", true) };
	for (auto &j : t.snap.jobs)
		j.gpus = 1;
	t.snap.jobs[0].where = { { 1, 1 } }; // alone on n1; 2, 3, 4 share n0
	c.plan(t.snap);
	t.snap.now_s = 100;
	c.plan(t.snap);
	controller::JobEnd e = completed(1, 1000, "a", 100);
	e.gpu_use = "91.5:40.25:20";
	std::string log = c.job_ended(e, 100);
	ck_assert_msg(log.find("model a of uid 1000 ran alone: GPU 91.5%, memory 40.2% busy over "
			       "20 samples; its solo signals now 91.5% and 40.2% (1 job(s))") !=
			      std::string::npos,
		      "%s", log.c_str());
	ck_assert_ptr_nonnull(c.store().signals(1000, "a"));
	ck_assert_double_eq(c.store().signals(1000, "a")->mem_pct, 40.25);
	// Beside a and a: not alone.
	e = completed(2, 2000, "b", 100);
	e.gpu_use = "50:50:20";
	c.job_ended(e, 100);
	ck_assert_ptr_null(c.store().signals(2000, "b"));
	// Malformed, out of range, too few samples: ignored whole.
	t.snap.jobs = { user_job(5, 3000, "a", true) };
	t.snap.jobs[0].gpus = 1;
	auto ends_with = [&](const char *gpu_use) {
		t.snap.now_s += 10;
		c.plan(t.snap);
		t.snap.now_s += 10;
		c.plan(t.snap);
		e = completed(5, 3000, "a", 100);
		e.gpu_use = gpu_use;
		c.job_ended(e, t.snap.now_s);
	};
	for (const char *bad : { "50:50", "50:50:20x", "101:5:20", "5:-1:20", "50:50:2", "nan:5:9" }) {
		ends_with(bad);
		ck_assert_msg(!c.store().signals(3000, "a"), "learned from %s", bad);
	}
	ends_with("50:50:3"); // the same job, well formed: learned
	ck_assert_ptr_nonnull(c.store().signals(3000, "a"));
}
END_TEST

int main()
{
	Suite *s = suite_create("interference");
	TCase *t = tcase_create("core");
	tcase_add_test(t, test_pairs_are_bounded_where_they_enter);
	tcase_add_test(t, test_signals_are_percentages_once_per_model);
	tcase_add_test(t, test_measured_pairs_are_order_free_and_weighted);
	tcase_add_test(t, test_fit_prices_unmeasured_pairs_from_signals);
	tcase_add_test(t, test_interfering_job_goes_to_the_free_node);
	tcase_add_test(t, test_interfering_job_shares_when_nothing_else_fits);
	tcase_add_test(t, test_plan_input_checks_the_matrix);
	tcase_add_test(t, test_sim_slows_co_located_jobs_and_omru_avoids_it);
	tcase_add_test(t, test_colocation_book_integrates_the_factor);
	tcase_add_test(t, test_pair_prices_mix_a_users_measurements_into_the_table);
	tcase_add_test(t, test_pair_prices_use_a_users_own_solo_signals);
	tcase_add_test(t, test_a_job_alone_teaches_its_models_solo_signals);
	tcase_add_test(t, test_a_job_beside_one_model_all_along_measures_the_pair_for_its_user);
	tcase_add_test(t, test_a_job_far_off_its_curve_corrects_the_curve_not_the_pair);
	suite_add_tcase(s, t);
	return run_suite(s);
}
