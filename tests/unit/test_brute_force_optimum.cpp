// test_brute_force_optimum.cpp - the exhaustive makespan solver that the
// OMRU planner is measured against must itself be right: hand-checked
// cases, the SGS placing into gaps, every returned schedule feasible, bad
// input refused, and agreement with a second, cruder solver (every integer
// start time for every job) on small random instances.
#include "check_cxx.hpp"

#include "brute_force_optimum.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

using namespace omru::test;

static bool near(double a, double b)
{
	return std::fabs(a - b) <= 1e-9 * std::max(1.0, std::fabs(b));
}

// RET "" when `s` is a feasible schedule of `jobs` on `gpus_total` GPUs whose
// makespan is the one reported, else what is wrong.  Use only rises at a
// start, so checking the GPUs in use at every start covers all times.
static std::string infeasibility(int gpus_total, const std::vector<BfJob> &jobs,
				 const BfSchedule &s)
{
	const size_t n = jobs.size();
	if (s.gpus.size() != n || s.start_s.size() != n)
		return "schedule has the wrong number of jobs";
	std::vector<double> end(n);
	double makespan = 0;
	for (size_t j = 0; j < n; j++) {
		// The solver drops slower duplicates of a GPU count, so the
		// runtime of a count is its fastest.
		double r = INFINITY;
		for (size_t k = 0; k < jobs[j].gpus.size(); k++)
			if (jobs[j].gpus[k] == s.gpus[j])
				r = std::min(r, jobs[j].runtime_s[k]);
		if (std::isinf(r))
			return "job " + std::to_string(j) + " on " + std::to_string(s.gpus[j]) +
			       " GPUs, not one of its options";
		if (s.start_s[j] < 0)
			return "job " + std::to_string(j) + " starts before 0";
		end[j] = s.start_s[j] + r;
		makespan = std::max(makespan, end[j]);
	}
	for (size_t i = 0; i < n; i++) {
		int used = 0;
		for (size_t j = 0; j < n; j++)
			if (s.start_s[j] <= s.start_s[i] && s.start_s[i] < end[j])
				used += s.gpus[j];
		if (used > gpus_total)
			return std::to_string(used) + " GPUs in use at " +
			       std::to_string(s.start_s[i]);
	}
	if (!near(makespan, s.makespan_s))
		return "makespan reported " + std::to_string(s.makespan_s) + ", schedule ends at " +
		       std::to_string(makespan);
	return "";
}

// Solves and checks the schedule that comes back, so every case below also
// tests feasibility.
static BfSchedule solve(int gpus_total, const std::vector<BfJob> &jobs)
{
	BfSchedule s = brute_force_optimum(gpus_total, jobs);
	std::string err = infeasibility(gpus_total, jobs, s);
	ck_assert_msg(err.empty(), "infeasible: %s", err.c_str());
	return s;
}

#define ck_assert_near(X, Y)                                                   \
	do {                                                                   \
		const double ck_x_ = (X), ck_y_ = (Y);                         \
		ck_assert_msg(near(ck_x_, ck_y_), "%s == %s: %.12g != %.12g",  \
			      #X, #Y, ck_x_, ck_y_);                           \
	} while (0)

START_TEST(test_one_job_takes_its_fastest_option)
{
	BfSchedule s = solve(8, { { { 1, 2, 4, 8 }, { 100, 60, 40, 35 } } });
	ck_assert_near(s.makespan_s, 35);
	ck_assert_int_eq(s.gpus[0], 8);
	ck_assert_near(s.start_s[0], 0);
	// 4 GPUs are no faster than 2: the smaller count is the one kept.
	s = solve(8, { { { 4, 2 }, { 50, 50 } } });
	ck_assert_near(s.makespan_s, 50);
	ck_assert_int_eq(s.gpus[0], 2);
}
END_TEST

START_TEST(test_one_gpu_jobs_on_one_gpu_run_back_to_back)
{
	BfSchedule s = solve(1, { { { 1 }, { 10 } }, { { 1 }, { 7 } } });
	ck_assert_near(s.makespan_s, 17);
	ck_assert_near(std::min(s.start_s[0], s.start_s[1]), 0);
}
END_TEST

START_TEST(test_linear_speedup_packs_to_area_over_gpus)
{
	// 6 jobs of 24 GPU-seconds on 8 GPUs: 144 / 8 = 18, reached by four
	// jobs on 2 GPUs for 12 s and then two on 4 GPUs for 6 s.
	BfJob linear{ { 1, 2, 4, 8 }, { 24, 12, 6, 3 } };
	BfSchedule s = solve(8, std::vector<BfJob>(6, linear));
	ck_assert_near(s.makespan_s, 18);
	// Three jobs of 12 GPU-seconds on 4 GPUs: 36 / 4 = 9.
	BfJob small{ { 1, 2, 4 }, { 12, 6, 3 } };
	ck_assert_near(solve(4, std::vector<BfJob>(3, small)).makespan_s, 9);
}
END_TEST

START_TEST(test_optimum_can_need_a_slower_allotment)
{
	// Both on 2 GPUs one after the other: 12.  Side by side on 1: 10.
	BfJob j{ { 1, 2 }, { 10, 6 } };
	BfSchedule s = solve(2, { j, j });
	ck_assert_near(s.makespan_s, 10);
	ck_assert_int_eq(s.gpus[0], 1);
	ck_assert_int_eq(s.gpus[1], 1);
}
END_TEST

START_TEST(test_sgs_places_a_job_in_a_gap_before_earlier_ones)
{
	// A (1 GPU, 3 s) at 0; B (2 GPUs, 5 s) must wait for A: 3..8; C (1
	// GPU, 3 s) fits beside A at 0, before B.  Appending C after B would
	// give 11.
	BfSchedule s = serial_sgs(2, { 1, 2, 1 }, { 3, 5, 3 }, { 0, 1, 2 });
	ck_assert_near(s.start_s[0], 0);
	ck_assert_near(s.start_s[1], 3);
	ck_assert_near(s.start_s[2], 0);
	ck_assert_near(s.makespan_s, 8);
	// A 4 s C would overlap B in the gap, so it goes after B.
	s = serial_sgs(2, { 1, 2, 1 }, { 3, 5, 4 }, { 0, 1, 2 });
	ck_assert_near(s.start_s[2], 8);
	ck_assert_near(s.makespan_s, 12);
	// A gap that opens only at the end of a job placed after the one
	// behind it.  G = 2: job 0 (1 GPU, 4 s) at 0..4; job 1 (2 GPUs, 2 s)
	// waits for it: 4..6; job 2 (1 GPU, 2 s) beside job 0: 0..2; job 3
	// (1 GPU, 2 s) in what is left beside job 0: 2..4.
	s = serial_sgs(2, { 1, 2, 1, 1 }, { 4, 2, 2, 2 }, { 0, 1, 2, 3 });
	ck_assert_near(s.start_s[1], 4);
	ck_assert_near(s.start_s[2], 0);
	ck_assert_near(s.start_s[3], 2);
	ck_assert_near(s.makespan_s, 6);
}
END_TEST

START_TEST(test_three_jobs_by_hand)
{
	// G = 4.  A: 1 GPU 12 s, 2 GPUs 7 s, 4 GPUs 4 s.  B: 1 GPU 8 s, 2 GPUs
	// 5 s.  C: 2 GPUs 6 s, 4 GPUs 3.5 s.
	// A on 1 GPU already takes 12.  A on 2 GPUs: C on 4 cannot overlap it
	// (>= 3.5 + 7 = 10.5); C on 2 beside A fills the node until 6, and B
	// then ends at 11 (2 GPUs) or 14 (1 GPU).  A on 4 GPUs holds the node
	// for 4 s, so the rest runs before or after it: B and C both on 2
	// GPUs side by side take 6 -> 10; anything else is longer (C on 4
	// then B: 12.5; B on 1 beside C on 2: 12).  Optimum 10, and it needs C
	// on its slower option.
	std::vector<BfJob> jobs = {
		{ { 1, 2, 4 }, { 12, 7, 4 } },
		{ { 1, 2 }, { 8, 5 } },
		{ { 2, 4 }, { 6, 3.5 } },
	};
	BfSchedule s = solve(4, jobs);
	ck_assert_near(s.makespan_s, 10);
	ck_assert_int_eq(s.gpus[0], 4);
	ck_assert_int_eq(s.gpus[1], 2);
	ck_assert_int_eq(s.gpus[2], 2);
}
END_TEST

START_TEST(test_no_jobs_take_no_time)
{
	BfSchedule s = solve(4, {});
	ck_assert_near(s.makespan_s, 0);
}
END_TEST

// Fails, naming `what`, unless f() throws std::invalid_argument.
template <typename F> static void expect_invalid(F f, const char *what)
{
	try {
		f();
	} catch (const std::invalid_argument &) {
		return;
	}
	ck_abort_msg("no std::invalid_argument for %s", what);
}

START_TEST(test_invalid_input_throws)
{
	BfJob ok{ { 1 }, { 1 } };
	expect_invalid([&] { brute_force_optimum(4, std::vector<BfJob>(9, ok)); }, "9 jobs");
	expect_invalid([&] { brute_force_optimum(17, { ok }); }, "17 GPUs");
	expect_invalid([&] { brute_force_optimum(0, { ok }); }, "0 GPUs");
	expect_invalid([&] { brute_force_optimum(4, { { { 5 }, { 1 } } }); }, "gpus > G");
	expect_invalid([&] { brute_force_optimum(4, { { { 0 }, { 1 } } }); }, "0 gpus");
	expect_invalid([&] { brute_force_optimum(4, { { {}, {} } }); }, "no options");
	expect_invalid([&] { brute_force_optimum(4, { { { 1, 2 }, { 1 } } }); }, "length mismatch");
	expect_invalid([&] { brute_force_optimum(4, { { { 1 }, { 0 } } }); }, "zero runtime");
	expect_invalid([&] { brute_force_optimum(4, { { { 1 }, { -3 } } }); }, "negative runtime");
	expect_invalid([&] { brute_force_optimum(4, { { { 1 }, { NAN } } }); }, "NaN runtime");
	expect_invalid([&] { brute_force_optimum(4, { { { 1 }, { INFINITY } } }); }, "inf runtime");
	expect_invalid([&] { serial_sgs(4, { 1, 1 }, { 1, 1 }, { 0, 0 }); }, "order not a permutation");
	expect_invalid([&] { serial_sgs(4, { 1, 1 }, { 1, 1 }, { 0 }); }, "order too short");
	// 8 jobs are still accepted.
	ck_assert_near(brute_force_optimum(8, std::vector<BfJob>(8, ok)).makespan_s, 1);
}
END_TEST

// The cruder solver: integer runtimes, and every job in turn tried at every
// integer start (which suffices: shifting jobs left until they hit 0 or an
// end keeps starts integral) with every option, dominated ones included.
// Only the makespan so far bounds it.
struct TimeIndexed {
	int gpus_total;
	const std::vector<BfJob> &jobs;
	int best;
	std::vector<int> used; // GPUs in use per 1 s slot

	void go(size_t j, int makespan)
	{
		if (makespan >= best)
			return;
		if (j == jobs.size()) {
			best = makespan;
			return;
		}
		for (size_t k = 0; k < jobs[j].gpus.size(); k++) {
			const int g = jobs[j].gpus[k], r = static_cast<int>(jobs[j].runtime_s[k]);
			for (int s = 0; s + r < best; s++) {
				bool room = true;
				for (int t = s; t < s + r && room; t++)
					room = used[t] + g <= gpus_total;
				if (!room)
					continue;
				for (int t = s; t < s + r; t++)
					used[t] += g;
				go(j + 1, std::max(makespan, s + r));
				for (int t = s; t < s + r; t++)
					used[t] -= g;
			}
		}
	}
};

static int time_indexed_optimum(int gpus_total, const std::vector<BfJob> &jobs)
{
	// Back to back on the fastest options is feasible: a horizon.
	int horizon = 0;
	for (const BfJob &job : jobs)
		horizon += static_cast<int>(*std::min_element(job.runtime_s.begin(), job.runtime_s.end()));
	TimeIndexed t{ gpus_total, jobs, horizon + 1, std::vector<int>(horizon + 1, 0) };
	t.go(0, 0);
	return t.best;
}

START_TEST(test_agrees_with_time_indexed_enumeration)
{
	std::mt19937 rng(20240611); // fixed: a failure must reproduce
	auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
	for (int round = 0; round < 1000; round++) {
		const int gpus_total = pick(1, 4);
		std::vector<BfJob> jobs(pick(1, 4));
		for (BfJob &job : jobs) {
			// Distinct counts in random order, runtimes unrelated to
			// the count, so dominated options turn up too.
			std::vector<int> counts;
			for (int g = 1; g <= gpus_total; g++)
				counts.push_back(g);
			std::shuffle(counts.begin(), counts.end(), rng);
			counts.resize(pick(1, std::min(3, gpus_total)));
			for (int g : counts) {
				job.gpus.push_back(g);
				job.runtime_s.push_back(pick(1, 8));
			}
		}
		BfSchedule s = solve(gpus_total, jobs);
		int want = time_indexed_optimum(gpus_total, jobs);
		ck_assert_msg(near(s.makespan_s, want), "round %d: G=%d n=%zu: %g, time-indexed %d",
			      round, gpus_total, jobs.size(), s.makespan_s, want);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("brute_force_optimum");
	TCase *tc = tcase_create("brute_force_optimum");
	tcase_add_test(tc, test_one_job_takes_its_fastest_option);
	tcase_add_test(tc, test_one_gpu_jobs_on_one_gpu_run_back_to_back);
	tcase_add_test(tc, test_linear_speedup_packs_to_area_over_gpus);
	tcase_add_test(tc, test_optimum_can_need_a_slower_allotment);
	tcase_add_test(tc, test_sgs_places_a_job_in_a_gap_before_earlier_ones);
	tcase_add_test(tc, test_three_jobs_by_hand);
	tcase_add_test(tc, test_no_jobs_take_no_time);
	tcase_add_test(tc, test_invalid_input_throws);
	tcase_add_test(tc, test_agrees_with_time_indexed_enumeration);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
