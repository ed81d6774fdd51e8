// test_loader_allocator.cpp - A-Dloader's per-job throughput model (fitted
// from one window of a job's own measurements) and the node allocator:
// the exact optimum (checked against enumerating every allocation), the
// floor of one worker, fewest CPUs among optima then headroom, one job,
// more jobs than CPUs, caps, and the even split it is measured against.
#include "check_cxx.hpp"

#include <cmath>
#include <functional>
#include <vector>

#include "policy/loader_allocator.hpp"
#include "profile/loader_model.hpp"

using namespace omru;

namespace {

LoaderJob job(double compute_s, double rate, int tasks = 1, int cap = 64)
{
	LoaderJob j;
	j.model = LoaderModel(compute_s, rate);
	j.tasks = tasks;
	j.max_workers = cap;
	return j;
}

// The best objective over every allocation within the CPUs (floors 1).
double brute_force(const std::vector<LoaderJob> &jobs, int cpus)
{
	double best = -1;
	std::vector<int> w(jobs.size(), 1);
	std::function<void(size_t, int)> go = [&](size_t i, int left) {
		if (i == jobs.size()) {
			double v = 0;
			for (size_t k = 0; k < jobs.size(); k++)
				v += jobs[k].model.normalised(w[k]);
			best = std::max(best, v);
			return;
		}
		for (int x = 1; x <= jobs[i].max_workers && x * jobs[i].tasks <= left; x++) {
			w[i] = x;
			go(i + 1, left - x * jobs[i].tasks);
		}
	};
	go(0, cpus);
	return best;
}

} // namespace

START_TEST(test_model_is_fitted_from_one_window)
{
	// 2 workers, 100 samples/s, waiting 40% of the time: the step needs
	// 6 ms a sample (166.7/s at most), each worker makes 50/s.
	LoaderSample s{ 2, 100, 0.4, 50 };
	auto m = LoaderModel::fit(s);
	ck_assert(m.has_value());
	ck_assert_double_eq_tol(m->compute_s_per_sample(), 0.006, 1e-12);
	ck_assert_double_eq_tol(m->peak_samples_s(), 1 / 0.006, 1e-9);
	ck_assert_double_eq_tol(m->samples_s(1), 50, 1e-12);
	ck_assert_double_eq_tol(m->samples_s(3), 150, 1e-12);
	ck_assert_double_eq_tol(m->samples_s(4), 1 / 0.006, 1e-9);
	ck_assert_int_eq(m->saturation_workers(), 4);
	ck_assert_double_eq_tol(m->normalised(2), 100 * 0.006, 1e-12);
	// A job that never waited is compute-bound at what it ran.
	auto c = LoaderModel::fit({ 3, 90, 0, 40 });
	ck_assert_double_eq_tol(c->peak_samples_s(), 90, 1e-9);
	ck_assert_int_eq(c->saturation_workers(), 3);
	// Saturation lands exactly on an integer without rounding up.
	ck_assert_int_eq(LoaderModel(0.01, 25).saturation_workers(), 4);
	ck_assert_int_eq(loader_prior(3).saturation_workers(), 3);
}
END_TEST

START_TEST(test_implausible_windows_are_refused_with_a_reason)
{
	std::string why;
	ck_assert(!LoaderModel::fit({ 0, 100, 0.1, 50 }, &why));
	ck_assert(why.find("workers") != std::string::npos);
	ck_assert(!LoaderModel::fit({ 2, -1, 0.1, 50 }, &why));
	ck_assert(!LoaderModel::fit({ 2, NAN, 0.1, 50 }, &why));
	ck_assert(!LoaderModel::fit({ 2, 100, 0.1, 0 }, &why));
	ck_assert(!LoaderModel::fit({ 2, 100, 1.0, 50 }, &why));
	ck_assert(why.find("wait") != std::string::npos);
	ck_assert(!LoaderModel::fit({ 2, 100, -0.1, 50 }, &why));
	// Waiting, yet four times faster than its workers can load.
	ck_assert(!LoaderModel::fit({ 1, 400, 0.5, 100 }, &why));
}
END_TEST

START_TEST(test_the_allocator_finds_the_optimum)
{
	// A decode-heavy light model next to a compute-heavy one: the even
	// split starves the first and wastes CPUs on the second.
	std::vector<LoaderJob> jobs = { job(1.0 / 400, 100), job(1.0 / 200, 400) };
	LoaderShares s = allocate_loader_workers(jobs, 6);
	ck_assert_int_eq(s.workers[0], 5); // 4 reach its peak, 1 headroom
	ck_assert_int_eq(s.workers[1], 1);
	ck_assert_double_eq_tol(s.objective, 2.0, 1e-12);
	ck_assert(!s.oversubscribed);
	LoaderShares even = even_loader_workers(jobs, 6);
	ck_assert_int_eq(even.workers[0], 3);
	ck_assert_int_eq(even.workers[1], 3);
	ck_assert_double_eq_tol(even.objective, 1.75, 1e-12);

	// Against every allocation, over many small nodes and job mixes.
	uint64_t x = 12345;
	auto rnd = [&](int n) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		return static_cast<int>((x >> 33) % static_cast<uint64_t>(n));
	};
	for (int round = 0; round < 300; round++) {
		std::vector<LoaderJob> js;
		int n = 1 + rnd(4);
		for (int i = 0; i < n; i++)
			js.push_back(job(1.0 / (50 + rnd(400)), 10 + rnd(200),
					 1 + rnd(2), 1 + rnd(8)));
		int cpus = rnd(16);
		LoaderShares got = allocate_loader_workers(js, cpus);
		ck_assert_uint_eq(got.workers.size(), js.size());
		int floors = 0;
		for (const LoaderJob &j : js)
			floors += j.tasks;
		if (floors > cpus) {
			ck_assert(got.oversubscribed);
			continue;
		}
		ck_assert_msg(std::fabs(got.objective - brute_force(js, cpus)) < 1e-9,
			      "round %d: %f vs %f", round, got.objective,
			      brute_force(js, cpus));
		ck_assert_int_le(got.cpus_used, cpus);
		for (size_t i = 0; i < js.size(); i++) {
			ck_assert_int_ge(got.workers[i], 1);
			ck_assert_int_le(got.workers[i], js[i].max_workers);
		}
	}
}
END_TEST

START_TEST(test_floors_one_job_and_oversubscription)
{
	// One job takes the node, up to its cap.
	LoaderShares one = allocate_loader_workers({ job(0.01, 10) }, 6);
	ck_assert_int_eq(one.workers[0], 6);
	one = allocate_loader_workers({ job(0.01, 10, 1, 4) }, 6);
	ck_assert_int_eq(one.workers[0], 4);
	// A two-task job pays two CPUs a worker.
	one = allocate_loader_workers({ job(0.01, 10, 2) }, 7);
	ck_assert_int_eq(one.workers[0], 3);
	ck_assert_int_eq(one.cpus_used, 6);
	// More jobs than CPUs: one each, said.
	LoaderShares over = allocate_loader_workers(
		{ job(0.01, 10), job(0.01, 10), job(0.01, 10) }, 2);
	ck_assert(over.oversubscribed);
	for (int w : over.workers)
		ck_assert_int_eq(w, 1);
	// Exactly enough for the floors is not oversubscribed.
	over = allocate_loader_workers({ job(0.01, 10), job(0.01, 10) }, 2);
	ck_assert(!over.oversubscribed);
	ck_assert(allocate_loader_workers({}, 8).workers.empty());
	ck_assert_int_eq(allocate_loader_workers({ job(0.01, 10) }, -3).workers[0], 1);
}
END_TEST

START_TEST(test_ties_take_fewest_cpus_then_spread_headroom)
{
	// Both saturate at 2 workers; 7 CPUs: the optimum needs 4, the 3
	// left go one at a time to the job with the least margin, the first
	// on a tie, so the answer is deterministic.
	std::vector<LoaderJob> jobs = { job(0.01, 50), job(0.01, 50) };
	LoaderShares s = allocate_loader_workers(jobs, 7);
	ck_assert_int_eq(s.workers[0], 4);
	ck_assert_int_eq(s.workers[1], 3);
	ck_assert_int_eq(s.cpus_used, 7);
	ck_assert_double_eq_tol(s.objective, 2.0, 1e-12);
	// Same again: same answer.
	LoaderShares again = allocate_loader_workers(jobs, 7);
	ck_assert(again.workers == s.workers);
	// Headroom goes to the tighter job first: job 0 saturates at 4
	// workers with no margin, job 1 at 1 worker with 4x margin.
	s = allocate_loader_workers({ job(1.0 / 400, 100), job(1.0 / 100, 400) }, 7);
	ck_assert_int_eq(s.workers[0], 6);
	ck_assert_int_eq(s.workers[1], 1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("loader_allocator");
	TCase *model = tcase_create("model");
	tcase_add_test(model, test_model_is_fitted_from_one_window);
	tcase_add_test(model, test_implausible_windows_are_refused_with_a_reason);
	suite_add_tcase(s, model);
	TCase *alloc = tcase_create("allocator");
	tcase_add_test(alloc, test_the_allocator_finds_the_optimum);
	tcase_add_test(alloc, test_floors_one_job_and_oversubscription);
	tcase_add_test(alloc, test_ties_take_fewest_cpus_then_spread_headroom);
	suite_add_tcase(s, alloc);
	return run_suite(s);
}
