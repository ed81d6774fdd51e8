// test_policy_omru.cpp - the OMRU planner: within 10% of the exact optimum
// (brute_force_optimum.hpp, independent code) on every small random batch and
// exactly optimal on the easy ones; reuse, the objective knob, the fairness
// guard, stable re-planning, determinism and input checks.
// Every schedule is validated (sim_fixture.hpp run_policy).
#include <cmath>
#include <cstdlib>
#include <random>
#include <sstream>

#include "brute_force_optimum.hpp"
#include "planner/planner.hpp"
#include "sim/lower_bound.hpp"
#include "sim_fixture.hpp"

using namespace omru;
using namespace omru_test;

static const char kHead[] = "job_id,submit_s,model,epochs,gpus,gpus_min,gpus_max\n";

static double makespan(const Schedule &s)
{
	double end = 0;
	for (const Segment &g : s)
		end = std::max(end, g.end_s);
	return end;
}

// A random batch of n jobs on one node of G GPUs: each job its own model
// with epoch time t1 / g^a (a in [0.3, 1], so speedups from poor to
// linear) measured at a random subset of 1..G; the planner and the brute
// force see the same runtimes.
struct SmallBatch {
	Inputs in;
	std::vector<test::BfJob> jobs;
};

static SmallBatch small_batch(std::mt19937_64 &rng, int n, int gpus)
{
	std::ostringstream prof, work;
	prof << "model,gpus,epoch_s\n";
	work << kHead;
	SmallBatch b;
	for (int j = 0; j < n; j++) {
		double t1 = 10 + static_cast<double>(rng() % 90);
		double a = 0.3 + 0.7 * static_cast<double>(rng() % 1000) / 1000;
		double epochs = 1 + static_cast<double>(rng() % 5);
		test::BfJob bf;
		for (int g = 1; g <= gpus; g++) {
			if (g > 1 && rng() % 2)
				continue; // not measured: not usable
			double e = t1 / std::pow(g, a);
			prof << "m" << j << "," << g << "," << e << "\n";
			bf.gpus.push_back(g);
			bf.runtime_s.push_back(epochs * e);
		}
		work << "j" << j << ",0,m" << j << "," << epochs << ",1,1," << gpus << "\n";
		b.jobs.push_back(bf);
	}
	std::string cluster = "1x" + std::to_string(gpus);
	b.in = make_inputs(cluster.c_str(), prof.str().c_str(), work.str().c_str());
	// The brute force must see exactly the times the simulator uses.
	for (int j = 0; j < n; j++)
		for (size_t i = 0; i < b.jobs[j].gpus.size(); i++)
			b.jobs[j].runtime_s[i] = b.in.workload.jobs[j].epochs *
						 *b.in.profiles.epoch_s(b.in.workload.jobs[j].model,
									b.jobs[j].gpus[i], 1);
	return b;
}

START_TEST(test_within_ten_percent_of_the_optimum)
{
	std::mt19937_64 rng(20261121);
	int cases = 0, optimal = 0;
	double worst = 0;
	for (int gpus : { 2, 4, 8 })
		for (int n = 1; n <= 6; n++)
			for (int rep = 0; rep < (n == 6 ? 4 : 10); rep++) {
				SmallBatch b = small_batch(rng, n, gpus);
				double opt = test::brute_force_optimum(gpus, b.jobs).makespan_s;
				double got = makespan(run_policy(b.in, "omru"));
				double ratio = got / opt;
				ck_assert_msg(ratio <= 1.10 + 1e-9,
					      "n=%d G=%d: omru %.4f vs optimum %.4f (%.3f)",
					      n, gpus, got, opt, ratio);
				worst = std::max(worst, ratio);
				optimal += ratio <= 1 + 1e-9;
				cases++;
			}
	// Most of them exactly: list scheduling over many allotments plus
	// reuse is not a heuristic that is usually "close".
	ck_assert_msg(optimal * 100 >= cases * 95, "optimal on %d of %d (worst %.3f)",
		      optimal, cases, worst);
}
END_TEST

START_TEST(test_exactly_optimal_on_easy_batches)
{
	// One job: its fastest count.
	Inputs one = make_inputs("1x4", "model,gpus,epoch_s\nm,1,40\nm,2,22\nm,4,15\n",
				 (std::string(kHead) + "a,0,m,2,1,1,4\n").c_str());
	ck_assert_double_eq_tol(makespan(run_policy(one, "omru")), 30, 1e-9);
	// As many 1-GPU-best jobs as GPUs: all at once.
	Inputs wide = make_inputs("1x4", "model,gpus,epoch_s\nm,1,10\nm,2,9\n",
				  (std::string(kHead) + "a,0,m,1,1,1,2\nb,0,m,1,1,1,2\n"
				   "c,0,m,1,1,1,2\nd,0,m,1,1,1,2\n").c_str());
	ck_assert_double_eq_tol(makespan(run_policy(wide, "omru")), 10, 1e-9);
	// Two jobs on 2 GPUs, r(1) = 10, r(2) = 6: side by side (10), not one
	// after the other wide (12).
	Inputs two = make_inputs("1x2", "model,gpus,epoch_s\nm,1,10\nm,2,6\n",
				 (std::string(kHead) + "a,0,m,1,1,1,2\nb,0,m,1,1,1,2\n").c_str());
	ck_assert_double_eq_tol(makespan(run_policy(two, "omru")), 10, 1e-9);
	// Linear speedup: the area bound, 3 jobs x 24 GPU-s on 4 GPUs = 18.
	Inputs lin = make_inputs("1x4", "model,gpus,epoch_s\nm,1,24\nm,2,12\nm,4,6\n",
				 (std::string(kHead) + "a,0,m,1,1,1,4\nb,0,m,1,1,1,4\n"
				  "c,0,m,1,1,1,4\n").c_str());
	ck_assert_double_eq_tol(makespan(run_policy(lin, "omru")), 18, 1e-9);
}
END_TEST

START_TEST(test_idle_gpus_are_reused_with_the_restart_overhead)
{
	// a: 10 epochs of 100 s on 1 GPU, 50 s on 2, 25 s on 4; b: one epoch
	// of 100 s, 1 GPU only.  Waiting for b and then running a on 4 GPUs
	// takes 100 + 250 = 350 s.  Better: a on 2 GPUs beside b, then grown
	// into the GPUs b leaves idle at 100, paying the 30 s overhead:
	// 100 + 30 + 8 x 25 = 330 s.
	Inputs in = make_inputs("1x4",
				"model,gpus,epoch_s\nm,1,100\nm,2,50\nm,4,25\nn,1,100\n",
				(std::string(kHead) + "a,0,m,10,1,1,4\nb,0,n,1,1,1,1\n").c_str());
	Schedule s = run_policy(in, "omru", 30);
	ck_assert_double_le_tol(makespan(s), 330, 1e-9);
	auto a = segments_of(in, s, "a");
	ck_assert_int_eq(a.size(), 2);
	ck_assert_int_eq(a[1].gpus(), 4);
	ck_assert_double_eq_tol(a[1].end_s - a[1].start_s, 30 + a[1].epochs * 25, 1e-6);
}
END_TEST

START_TEST(test_shared_batch_is_deterministic_and_near_the_bound)
{
	Inputs in = shared_inputs("4x4", "batch-32-1");
	Schedule s = run_policy(in, "omru", 30);
	ck_assert_same_schedule(s, run_policy(in, "omru", 30));
	double lb = makespan_lower_bound(in.cluster, in.profiles, in.workload);
	ck_assert_msg(makespan(s) <= 1.05 * lb, "makespan %.1f, bound %.1f",
		      makespan(s), lb);
}
END_TEST

// A 1-GPU cluster with a long job first and three short ones: shortest
// first finishes the long one at 130 instead of 100.
static planner::PlanInput one_gpu_queue(planner::Objective obj, double fairness)
{
	planner::PlanInput in;
	in.nodes = 1;
	in.gpus_per_node = 1;
	in.free_per_node = { 1 };
	planner::SpeedCurve cv;
	cv.gpus = { 1 };
	cv.epoch_s = { { planner::kNoRow, 10 } };
	in.curves = { cv };
	in.objective = obj;
	in.fairness_factor = fairness;
	for (double epochs : { 10.0, 1.0, 1.0, 1.0 }) {
		planner::PlanJob j;
		j.id = static_cast<long>(in.jobs.size());
		j.curve = 0;
		j.submit_s = static_cast<double>(in.jobs.size()) * 1e-3;
		j.remaining_epochs = epochs;
		in.jobs.push_back(j);
	}
	return in;
}

START_TEST(test_objective_and_fairness_guard)
{
	planner::Plan mk = planner::make_plan(one_gpu_queue(planner::Objective::Makespan, 0));
	planner::Plan jct = planner::make_plan(one_gpu_queue(planner::Objective::MeanJct, 0));
	ck_assert_double_eq_tol(mk.makespan_s, 130, 1e-9);
	ck_assert_double_eq_tol(jct.makespan_s, 130, 1e-9);
	// Shortest first: 10, 20, 30, 130 -> mean 47.5; the long job last.
	ck_assert_double_eq_tol(jct.jobs[0].end_s(), 130, 1e-9);
	ck_assert(jct.mean_jct_s < mk.mean_jct_s - 1);
	ck_assert_int_eq(jct.now.size(), 1);
	ck_assert_int_ne(jct.now[0].job, 0);
	// Guard 1.0: nobody later than under FIFO, so the long job first.
	planner::Plan fair = planner::make_plan(one_gpu_queue(planner::Objective::MeanJct, 1.0));
	ck_assert_double_le_tol(fair.jobs[0].end_s(), 100, 1e-9);
	ck_assert_int_eq(fair.now[0].job, 0);
	// Guard 1.3: 130 is allowed (130 <= 1.3 x 100), shortest first again.
	planner::Plan loose = planner::make_plan(one_gpu_queue(planner::Objective::MeanJct, 1.3));
	ck_assert_double_eq_tol(loose.jobs[0].end_s(), 130, 1e-9);
}
END_TEST

START_TEST(test_replanning_is_stable)
{
	planner::PlanInput in = one_gpu_queue(planner::Objective::Makespan, 0);
	planner::Plan a = planner::make_plan(in);
	planner::Plan b = planner::make_plan(in, a.choice);
	ck_assert_int_eq(a.now.size(), b.now.size());
	ck_assert_int_eq(a.now[0].job, b.now[0].job);
	ck_assert(a.choice.budget_s == b.choice.budget_s);
	ck_assert_int_eq(a.choice.order, b.choice.order);
	for (size_t j = 0; j < in.jobs.size(); j++)
		ck_assert(a.jobs[j].end_s() == b.jobs[j].end_s());
}
END_TEST

START_TEST(test_bad_plan_input_is_refused)
{
	planner::PlanInput in = one_gpu_queue(planner::Objective::Makespan, 0.5);
	ck_assert_msg(([&] {
			      try {
				      planner::make_plan(in);
			      } catch (const std::invalid_argument &e) {
				      return std::string(e.what()).find("fairness") !=
					     std::string::npos;
			      }
			      return false;
		      })(),
		      "fairness 0.5 accepted");
	in.fairness_factor = 0;
	in.jobs[1].running = true; // holds a GPU the node does not have free
	in.jobs[1].gpus = 1;
	in.jobs[1].where = { { 0, 1 } };
	in.jobs[1].epoch_s = 10;
	in.jobs[1].epochs_at_progress_start = 1;
	bool refused = false;
	try {
		planner::make_plan(in);
	} catch (const std::invalid_argument &e) {
		refused = std::string(e.what()).find("node 0") != std::string::npos;
	}
	ck_assert(refused);
	in.free_per_node = { 0 };
	ck_assert_int_eq(planner::make_plan(in).unplaced, 0);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("policy_omru");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_within_ten_percent_of_the_optimum);
	tcase_add_test(tc, test_exactly_optimal_on_easy_batches);
	tcase_add_test(tc, test_idle_gpus_are_reused_with_the_restart_overhead);
	tcase_add_test(tc, test_shared_batch_is_deterministic_and_near_the_bound);
	tcase_add_test(tc, test_objective_and_fairness_guard);
	tcase_add_test(tc, test_replanning_is_stable);
	tcase_add_test(tc, test_bad_plan_input_is_refused);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(suite());
}
