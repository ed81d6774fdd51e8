// test_omru_conf.cpp - omru.conf is parsed strictly: every key, comments,
// case rules, and an error that names FILE:LINE, key, value and what is
// allowed for everything else.
#include "check_cxx.hpp"

#include <cstdio>
#include <fstream>
#include <string>
#include <unistd.h>

#include "controller/omru_conf.hpp"

using namespace omru;
using namespace omru::controller;

namespace {
std::string error_of(const std::string &text)
{
	auto r = parse_omru_conf(text, "omru.conf");
	return r.ok() ? "(ok)" : r.error();
}
} // namespace

START_TEST(test_empty_text_gives_the_defaults)
{
	auto r = parse_omru_conf("", "omru.conf");
	ck_assert(r.ok());
	ck_assert_string_eq(format_omru_conf(r.value()),
			    "Objective=makespan FairnessFactor=0 StateDir=(default) "
			    "PlanIntervalMin=1 PlanIntervalMax=30 PlanTimeMax=200 "
			    "CpusPerGpu=0 PlanRigidJobs=yes MaxPendingPlanned=5000 LogPlans=no");
}
END_TEST

START_TEST(test_every_key_is_read)
{
	auto r = parse_omru_conf("Objective=jct\nFairnessFactor=2.5\n"
				 "ProfileFile=/a.csv\nProfileFile=/b.csv\n"
				 "StateDir=/var/omru\nPlanIntervalMin=0.5\n"
				 "PlanIntervalMax=10\nPlanTimeMax=50\nCpusPerGpu=4\n"
				 "PlanRigidJobs=no\nMaxPendingPlanned=100\nLogPlans=yes\n",
				 "f");
	ck_assert(r.ok());
	const OmruConf &c = r.value();
	ck_assert(c.objective == planner::Objective::MeanJct);
	ck_assert_double_eq(c.fairness_factor, 2.5);
	ck_assert_int_eq(c.profile_files.size(), 2);
	ck_assert_string_eq(c.profile_files[1], "/b.csv");
	ck_assert_string_eq(c.state_dir, "/var/omru");
	ck_assert_double_eq(c.plan_interval_min_s, 0.5);
	ck_assert_double_eq(c.plan_interval_max_s, 10);
	ck_assert_double_eq(c.plan_time_max_ms, 50);
	ck_assert_int_eq(c.cpus_per_gpu, 4);
	ck_assert(!c.plan_rigid_jobs);
	ck_assert_int_eq(c.max_pending_planned, 100);
	ck_assert(c.log_plans);
}
END_TEST

START_TEST(test_comments_blank_lines_and_whitespace_are_ignored)
{
	auto r = parse_omru_conf("# a comment\n\n  Objective = jct   # trailing\r\n", "f");
	ck_assert(r.ok());
	ck_assert(r.value().objective == planner::Objective::MeanJct);
}
END_TEST

START_TEST(test_keys_are_case_insensitive_words_too)
{
	auto r = parse_omru_conf("objective=MAKESPAN\nlogplans=True\n", "f");
	ck_assert(r.ok());
	ck_assert(r.value().objective == planner::Objective::Makespan);
	ck_assert(r.value().log_plans);
}
END_TEST

START_TEST(test_unknown_key_lists_the_known_ones)
{
	ck_assert_string_eq(error_of("\nObjectiv=jct\n"),
			    "omru.conf:2: unknown key 'Objectiv' (known: Objective, "
			    "FairnessFactor, ProfileFile, StateDir, PlanIntervalMin, "
			    "PlanIntervalMax, PlanTimeMax, CpusPerGpu, PlanRigidJobs, "
			    "MaxPendingPlanned, LogPlans)");
}
END_TEST

START_TEST(test_bad_values_say_what_is_allowed)
{
	ck_assert_string_eq(error_of("Objective=fast"),
			    "omru.conf:1: Objective=fast: must be makespan or jct");
	ck_assert_string_eq(error_of("FairnessFactor=0.5"),
			    "omru.conf:1: FairnessFactor=0.5: must be 0 (off) or a number from 1 to 1000");
	ck_assert_string_eq(error_of("FairnessFactor=-2"),
			    "omru.conf:1: FairnessFactor=-2: must be 0 (off) or a number from 1 to 1000");
	ck_assert_string_eq(error_of("PlanTimeMax=1e3"),
			    "omru.conf:1: PlanTimeMax=1e3: must be milliseconds from 1 to 60000");
	ck_assert_string_eq(error_of("PlanIntervalMin=nan"),
			    "omru.conf:1: PlanIntervalMin=nan: must be seconds from 0 to 3600");
	ck_assert_string_eq(error_of("CpusPerGpu=2.5"),
			    "omru.conf:1: CpusPerGpu=2.5: must be a whole number from 0 to 1024");
	ck_assert_string_eq(error_of("PlanRigidJobs=maybe"),
			    "omru.conf:1: PlanRigidJobs=maybe: must be yes or no");
	ck_assert_string_eq(error_of("ProfileFile=rel/path.csv"),
			    "omru.conf:1: ProfileFile=rel/path.csv: must be an absolute path");
	ck_assert_string_eq(error_of("MaxPendingPlanned=0"),
			    "omru.conf:1: MaxPendingPlanned=0: must be a whole number from 1 to 1000000");
}
END_TEST

START_TEST(test_line_without_equals_is_an_error)
{
	ck_assert_string_eq(error_of("Objective jct"),
			    "omru.conf:1: 'Objective jct': expected Key=Value");
}
END_TEST

START_TEST(test_key_given_twice_is_an_error_except_profile_file)
{
	ck_assert_string_eq(error_of("Objective=jct\nobjective=makespan"),
			    "omru.conf:2: Objective is given twice");
	ck_assert_string_eq(error_of("ProfileFile=/a\nProfileFile=/a"),
			    "omru.conf:2: ProfileFile=/a: is already listed");
}
END_TEST

START_TEST(test_interval_max_below_min_is_an_error)
{
	ck_assert_string_eq(error_of("PlanIntervalMin=20\nPlanIntervalMax=10"),
			    "omru.conf: PlanIntervalMax=10 must not be below PlanIntervalMin=20");
}
END_TEST

START_TEST(test_overlong_line_is_an_error)
{
	ck_assert_string_eq(error_of("StateDir=/" + std::string(5000, 'a')),
			    "omru.conf:1: line longer than 4096 bytes");
}
END_TEST

START_TEST(test_missing_file_is_defaults_only_when_allowed)
{
	auto ok = load_omru_conf("/nonexistent/omru.conf", true);
	ck_assert(ok.ok());
	ck_assert_int_eq(ok.value().max_pending_planned, 5000);
	auto bad = load_omru_conf("/nonexistent/omru.conf", false);
	ck_assert(!bad.ok());
	ck_assert_string_eq(bad.error(), "/nonexistent/omru.conf: cannot read: No such file or directory");
}
END_TEST

START_TEST(test_file_errors_name_the_file)
{
	char path[] = "/tmp/omru-conf-XXXXXX";
	int fd = mkstemp(path);
	ck_assert(fd >= 0);
	close(fd);
	std::ofstream(path) << "LogPlans=yes\nPlanTimeMax=0\n";
	auto r = load_omru_conf(path, false);
	ck_assert(!r.ok());
	ck_assert_string_eq(r.error(), std::string(path) +
			    ":2: PlanTimeMax=0: must be milliseconds from 1 to 60000");
	std::ofstream(path) << std::string(2u << 20, '#');
	r = load_omru_conf(path, false);
	ck_assert_string_eq(r.error(), std::string(path) + ": larger than 1 MiB");
	std::remove(path);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("omru_conf");
	TCase *tc = tcase_create("omru_conf");
	tcase_add_test(tc, test_empty_text_gives_the_defaults);
	tcase_add_test(tc, test_every_key_is_read);
	tcase_add_test(tc, test_comments_blank_lines_and_whitespace_are_ignored);
	tcase_add_test(tc, test_keys_are_case_insensitive_words_too);
	tcase_add_test(tc, test_unknown_key_lists_the_known_ones);
	tcase_add_test(tc, test_bad_values_say_what_is_allowed);
	tcase_add_test(tc, test_line_without_equals_is_an_error);
	tcase_add_test(tc, test_key_given_twice_is_an_error_except_profile_file);
	tcase_add_test(tc, test_interval_max_below_min_is_an_error);
	tcase_add_test(tc, test_overlong_line_is_an_error);
	tcase_add_test(tc, test_missing_file_is_defaults_only_when_allowed);
	tcase_add_test(tc, test_file_errors_name_the_file);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
