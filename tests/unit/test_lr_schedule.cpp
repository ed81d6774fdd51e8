// test_lr_schedule.cpp - the linear scaling rule with warm-up on values
// worked out by hand: base 0.1 for a reference batch of 256, 5 warm-up
// epochs, so a global batch of 1024 targets 0.4 and one of 512 targets 0.2.
#include <stdexcept>

#include "check_cxx.hpp"
#include "trainer/lr_schedule.hpp"

using omru::train::LrSchedule;

static const double kTol = 1e-12;

START_TEST(test_lr_is_base_lr_before_any_global_batch)
{
	LrSchedule s(0.1, 256, 5);
	ck_assert_double_eq_tol(s.lr(0), 0.1, kTol);
	ck_assert_double_eq_tol(s.lr(10), 0.1, kTol);
}
END_TEST

START_TEST(test_first_batch_warms_up_linearly_from_base_lr)
{
	LrSchedule s(0.1, 256, 5);
	s.set_global_batch(1024, 0);
	ck_assert_double_eq_tol(s.target(), 0.4, kTol);
	ck_assert_double_eq_tol(s.lr(0), 0.1, kTol);
	ck_assert_double_eq_tol(s.lr(2.5), 0.25, kTol);
	ck_assert_double_eq_tol(s.lr(5), 0.4, kTol);
	ck_assert_double_eq_tol(s.lr(7), 0.4, kTol);
}
END_TEST

START_TEST(test_first_batch_set_late_warms_up_from_that_epoch)
{
	LrSchedule s(0.1, 256, 5);
	s.set_global_batch(1024, 3);
	ck_assert_double_eq_tol(s.lr(2), 0.1, kTol); // before the start
	ck_assert_double_eq_tol(s.lr(3), 0.1, kTol);
	ck_assert_double_eq_tol(s.lr(5.5), 0.25, kTol);
	ck_assert_double_eq_tol(s.lr(8), 0.4, kTol);
}
END_TEST

START_TEST(test_resize_warms_from_current_lr_to_new_target)
{
	LrSchedule s(0.1, 256, 5);
	s.set_global_batch(1024, 0);
	s.set_global_batch(512, 7);
	ck_assert_double_eq_tol(s.target(), 0.2, kTol);
	ck_assert_double_eq_tol(s.lr(7), 0.4, kTol);
	ck_assert_double_eq_tol(s.lr(9.5), 0.3, kTol);
	ck_assert_double_eq_tol(s.lr(12), 0.2, kTol);
	ck_assert_double_eq_tol(s.lr(20), 0.2, kTol);
}
END_TEST

START_TEST(test_resize_during_warmup_starts_from_the_rate_reached)
{
	// 1024 at 0, 256 at 2.5 (lr 0.25 then): 0.25 -> 0.1 over 2.5..7.5.
	LrSchedule s(0.1, 256, 5);
	s.set_global_batch(1024, 0);
	s.set_global_batch(256, 2.5);
	ck_assert_double_eq_tol(s.lr(2.5), 0.25, kTol);
	ck_assert_double_eq_tol(s.lr(5), 0.175, kTol);
	ck_assert_double_eq_tol(s.lr(7.5), 0.1, kTol);
}
END_TEST

START_TEST(test_same_batch_again_changes_nothing)
{
	LrSchedule s(0.1, 256, 5);
	s.set_global_batch(1024, 0);
	s.set_global_batch(1024, 2.5);
	ck_assert_double_eq_tol(s.lr(2.5), 0.25, kTol);
	ck_assert_double_eq_tol(s.lr(5), 0.4, kTol);
}
END_TEST

START_TEST(test_no_warmup_reaches_target_at_once)
{
	LrSchedule s(0.1, 256, 0);
	s.set_global_batch(1024, 0);
	ck_assert_double_eq_tol(s.lr(0), 0.4, kTol);
	s.set_global_batch(512, 7);
	ck_assert_double_eq_tol(s.lr(7), 0.2, kTol);
}
END_TEST

START_TEST(test_restored_state_reproduces_lr)
{
	LrSchedule a(0.1, 256, 5);
	a.set_global_batch(1024, 0);
	a.set_global_batch(512, 7);
	LrSchedule b(0.1, 256, 5);
	b.restore(a.state());
	for (double e : { 0.0, 7.0, 8.0, 9.5, 12.0, 30.0 })
		ck_assert_double_eq(b.lr(e), a.lr(e));
	ck_assert_int_eq(b.state().global_batch, 512);
	// The restored schedule knows its batch: setting it again is a no-op.
	b.set_global_batch(512, 8);
	ck_assert_double_eq(b.lr(9.5), a.lr(9.5));
}
END_TEST

START_TEST(test_state_records_the_current_warmup)
{
	LrSchedule s(0.1, 256, 5);
	s.set_global_batch(1024, 0);
	s.set_global_batch(512, 7);
	LrSchedule::State st = s.state();
	ck_assert_double_eq_tol(st.from_lr, 0.4, kTol);
	ck_assert_double_eq_tol(st.target_lr, 0.2, kTol);
	ck_assert_double_eq_tol(st.warmup_start_epoch, 7, kTol);
	ck_assert_int_eq(st.global_batch, 512);
}
END_TEST

static bool ctor_throws(double base, int ref, double warmup)
{
	try {
		LrSchedule s(base, ref, warmup);
	} catch (const std::invalid_argument &) {
		return true;
	}
	return false;
}

START_TEST(test_invalid_constructor_arguments_throw)
{
	ck_assert(ctor_throws(0, 256, 5));
	ck_assert(ctor_throws(-0.1, 256, 5));
	ck_assert(ctor_throws(0.1, 0, 5));
	ck_assert(ctor_throws(0.1, -1, 5));
	ck_assert(ctor_throws(0.1, 256, -1));
	ck_assert(!ctor_throws(0.1, 256, 0));
}
END_TEST

START_TEST(test_non_positive_global_batch_throws)
{
	LrSchedule s(0.1, 256, 5);
	for (int b : { 0, -64 }) {
		bool threw = false;
		try {
			s.set_global_batch(b, 0);
		} catch (const std::invalid_argument &) {
			threw = true;
		}
		ck_assert(threw);
	}
	ck_assert_double_eq_tol(s.lr(0), 0.1, kTol); // unchanged
}
END_TEST

int main(void)
{
	Suite *s = suite_create("lr_schedule");
	TCase *tc = tcase_create("schedule");
	tcase_add_test(tc, test_lr_is_base_lr_before_any_global_batch);
	tcase_add_test(tc, test_first_batch_warms_up_linearly_from_base_lr);
	tcase_add_test(tc, test_first_batch_set_late_warms_up_from_that_epoch);
	tcase_add_test(tc, test_resize_warms_from_current_lr_to_new_target);
	tcase_add_test(tc, test_resize_during_warmup_starts_from_the_rate_reached);
	tcase_add_test(tc, test_same_batch_again_changes_nothing);
	tcase_add_test(tc, test_no_warmup_reaches_target_at_once);
	tcase_add_test(tc, test_restored_state_reproduces_lr);
	tcase_add_test(tc, test_state_records_the_current_warmup);
	tcase_add_test(tc, test_invalid_constructor_arguments_throw);
	tcase_add_test(tc, test_non_positive_global_batch_throws);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
