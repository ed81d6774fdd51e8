// check_cxx.hpp - Check for C++ tests.  check.h defines a function-like
// macro `fail` (a deprecated alias of ck_abort_msg) that would rewrite every
// later `fail(` - the core's Parsed::fail, CsvRow::fail, std::ios::fail.
#ifndef OMRU_TESTS_CHECK_CXX_HPP
#define OMRU_TESTS_CHECK_CXX_HPP

#include <check.h>
#undef fail

#include <cstdlib>
#include <string>

// Runs every test of `s` and RET the process exit status.
inline int run_suite(Suite *s)
{
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

// ck_assert_str_eq keeps a `const char *` to its argument past the end of the
// full expression, so `f().c_str()` dangles; this one keeps the strings.
#define ck_assert_string_eq(X, Y)                                             \
	do {                                                                  \
		const std::string ck_x_ = (X), ck_y_ = (Y);                   \
		ck_assert_msg(ck_x_ == ck_y_, "%s == %s: '%s' != '%s'", #X,   \
			      #Y, ck_x_.c_str(), ck_y_.c_str());              \
	} while (0)

#endif
