// test_phase_tracker.cpp - omru-train's training-phase signal: window means
// of 100 steps, the first fall and the latest, the file spank_omru reads
// (replaced whole), and what the controller's rule makes of them.
#include "check_cxx.hpp"

#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "policy/training_phase.hpp"
#include "trainer/metrics.hpp"
#include "trainer/phase_tracker.hpp"

using namespace omru;
using namespace omru::train;

START_TEST(test_windows_give_the_first_and_the_latest_fall)
{
	PhaseTracker t;
	// Window means 3.0, 2.0, 1.5, 1.4: falls 1.0, 0.5, 0.1.
	const double means[] = { 3.0, 2.0, 1.5, 1.4 };
	std::vector<CommentPhase> got;
	for (double m : means)
		for (int i = 0; i < 100; i++) {
			// +-0.5 around the mean: only the window's mean counts.
			auto p = t.add(m + (i % 2 ? 0.5 : -0.5));
			ck_assert(!p || i == 99);
			if (p)
				got.push_back(*p);
		}
	ck_assert_uint_eq(got.size(), 3); // from the second window on
	ck_assert_double_eq(got[0].steps, 200);
	ck_assert_double_eq_tol(got[0].first_drop, 1.0, 1e-9);
	ck_assert_double_eq_tol(got[0].recent_drop, 1.0, 1e-9);
	ck_assert_double_eq(got[2].steps, 400);
	ck_assert_double_eq_tol(got[2].first_drop, 1.0, 1e-9);
	ck_assert_double_eq_tol(got[2].recent_drop, 0.1, 1e-9);
	// The rule: late once the loss falls at less than the threshold of
	// its first rate, and never on too few steps or no first fall.
	ck_assert(!late_phase(got[0], 0.5)); // 200 steps: too early to say
	ck_assert(!late_phase(got[1], 0.5)); // 0.5 is not < 0.5
	ck_assert(late_phase(got[1], 0.6));
	ck_assert(late_phase(got[2], 0.5));
	CommentPhase rising{ 500, -0.2, -0.3 };
	ck_assert(!late_phase(rising, 0.5));
}
END_TEST

START_TEST(test_the_file_is_one_line_replaced_whole)
{
	char dir[] = "/tmp/omru-phase-test.XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	std::string path = std::string(dir) + "/phase";
	CommentPhase p{ 300, 0.75, 0.125 };
	std::string line = phase_line(p);
	ck_assert_str_eq(line.c_str(), "300 0.75 0.125");
	ck_assert(replace_line(path, phase_line(p)));
	p.steps = 400;
	ck_assert(replace_line(path, phase_line(p)));
	std::ifstream in(path);
	std::stringstream all;
	all << in.rdbuf();
	ck_assert_str_eq(all.str().c_str(), "400 0.75 0.125\n");
	ck_assert_int_ne(access((path + ".tmp").c_str(), F_OK), 0);
	ck_assert(!replace_line(std::string(dir) + "/no/such/dir/phase", "1 2 3"));
	unlink(path.c_str());
	rmdir(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("phase_tracker");
	TCase *t = tcase_create("phase");
	tcase_add_test(t, test_windows_give_the_first_and_the_latest_fall);
	tcase_add_test(t, test_the_file_is_one_line_replaced_whole);
	suite_add_tcase(s, t);
	return run_suite(s);
}
