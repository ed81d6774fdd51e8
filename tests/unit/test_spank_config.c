/*
 * test_spank_config.c - spank_omru's plugstack.conf arguments are parsed
 * strictly: unknown keys, bad values and repeats are errors.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "omru/omru.h"

static char err[512];

static int parse(int argc, const char **argv, omru_spank_config_t *cfg)
{
	return omru_spank_config_parse(argc, argv, cfg, err, sizeof(err));
}

START_TEST(test_no_arguments_gives_defaults)
{
	omru_spank_config_t cfg;
	ck_assert_int_eq(parse(0, NULL, &cfg), OMRU_OK);
	ck_assert_int_eq(cfg.default_profile, OMRU_PROFILE_AUTO);
	ck_assert_uint_eq(cfg.max_gpus, 1024);
	ck_assert_str_eq(cfg.run_dir, "/run/slurm-omru");
	ck_assert_uint_eq(cfg.report_interval_s, 15);
	ck_assert_int_eq(cfg.loader_share, OMRU_LOADER_SHARE_NODE);
	ck_assert_uint_eq(cfg.loader_cpus, 0);
	ck_assert_uint_eq(cfg.loader_max, 256);
	ck_assert_uint_eq(cfg.job_dir_mb, 16);
}
END_TEST

START_TEST(test_known_keys_are_applied)
{
	const char *argv[] = { "default_profile=off", "max_gpus=16",
			       "run_dir=/var/run/omru", "report_interval=2",
			       "loader_share=job", "loader_cpus=48", "loader_max=6",
			       "job_dir_mb=4096" };
	omru_spank_config_t cfg;
	ck_assert_int_eq(parse(8, argv, &cfg), OMRU_OK);
	ck_assert_uint_eq(cfg.job_dir_mb, 4096);
	ck_assert_int_eq(cfg.loader_share, OMRU_LOADER_SHARE_JOB);
	ck_assert_uint_eq(cfg.loader_cpus, 48);
	ck_assert_uint_eq(cfg.loader_max, 6);
	ck_assert_int_eq(cfg.default_profile, OMRU_PROFILE_OFF);
	ck_assert_uint_eq(cfg.max_gpus, 16);
	ck_assert_str_eq(cfg.run_dir, "/var/run/omru");
	ck_assert_uint_eq(cfg.report_interval_s, 2);
	const char *off[] = { "loader_share=off" };
	ck_assert_int_eq(parse(1, off, &cfg), OMRU_OK);
	ck_assert_int_eq(cfg.loader_share, OMRU_LOADER_SHARE_OFF);
}
END_TEST

START_TEST(test_unknown_key_is_an_error)
{
	const char *argv[] = { "max_gpu=16" };
	omru_spank_config_t cfg;
	ck_assert_int_eq(parse(1, argv, &cfg), OMRU_EINVAL);
	ck_assert_str_eq(err, "plugstack.conf: unknown key 'max_gpu' (keys: "
			      "default_profile, max_gpus, run_dir, report_interval, "
			      "loader_share, loader_cpus, loader_max, job_dir_mb)");
}
END_TEST

START_TEST(test_argument_without_value_is_an_error)
{
	const char *argv[][1] = { { "max_gpus" }, { "=3" } };
	omru_spank_config_t cfg;
	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(parse(1, argv[i], &cfg), OMRU_EINVAL);
		ck_assert_ptr_nonnull(strstr(err, "expected key=value"));
	}
}
END_TEST

START_TEST(test_bad_values_are_errors)
{
	const char *bad[] = { "max_gpus=0", "max_gpus=1025", "max_gpus=2-4",
			      "max_gpus=", "max_gpus=eight",
			      "default_profile=sometimes", "default_profile=",
			      "run_dir=relative/dir", "run_dir=", "run_dir=/a b",
			      "run_dir=/a/../etc", "report_interval=0",
			      "report_interval=3601", "report_interval=1s",
			      "loader_share=yes", "loader_share=", "loader_cpus=0",
			      "loader_cpus=4097", "loader_max=0", "loader_max=257",
			      "loader_max=2.5", "job_dir_mb=0", "job_dir_mb=4097",
			      "job_dir_mb=1M" };
	omru_spank_config_t cfg;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(parse(1, &bad[i], &cfg) == OMRU_EINVAL,
			      "accepted '%s'", bad[i]);
}
END_TEST

START_TEST(test_repeated_key_is_an_error)
{
	const char *argv[] = { "max_gpus=8", "max_gpus=16" };
	omru_spank_config_t cfg;
	ck_assert_int_eq(parse(2, argv, &cfg), OMRU_EINVAL);
	ck_assert_str_eq(err, "plugstack.conf: max_gpus given more than once");
}
END_TEST

START_TEST(test_null_argument_is_an_error_not_a_crash)
{
	const char *argv[] = { NULL };
	omru_spank_config_t cfg;
	ck_assert_int_eq(parse(1, argv, &cfg), OMRU_EINVAL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("spank_config");
	TCase *tc = tcase_create("plugstack");
	tcase_add_test(tc, test_no_arguments_gives_defaults);
	tcase_add_test(tc, test_known_keys_are_applied);
	tcase_add_test(tc, test_unknown_key_is_an_error);
	tcase_add_test(tc, test_argument_without_value_is_an_error);
	tcase_add_test(tc, test_bad_values_are_errors);
	tcase_add_test(tc, test_repeated_key_is_an_error);
	tcase_add_test(tc, test_null_argument_is_an_error_not_a_crash);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
