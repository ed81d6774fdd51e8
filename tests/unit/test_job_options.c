/*
 * test_job_options.c - the --omru-* option parsers and the spank_job_env
 * reader, through the core's C API (the boundary the plugins use).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "omru/omru.h"

static char err[512];

/* ---- --omru-model ---------------------------------------------------- */

START_TEST(test_model_accepts_allowed_characters)
{
	char model[OMRU_MODEL_MAX_LEN + 1];
	ck_assert_int_eq(omru_parse_model("resnet-50_v1.5+x", model, err,
					  sizeof(err)), OMRU_OK);
	ck_assert_str_eq(model, "resnet-50_v1.5+x");
}
END_TEST

START_TEST(test_model_accepts_64_characters)
{
	char model[OMRU_MODEL_MAX_LEN + 1], in[65];
	memset(in, 'a', 64);
	in[64] = '\0';
	ck_assert_int_eq(omru_parse_model(in, model, err, sizeof(err)),
			 OMRU_OK);
	ck_assert_uint_eq(strlen(model), 64);
}
END_TEST

START_TEST(test_model_rejects_65_characters)
{
	char model[OMRU_MODEL_MAX_LEN + 1], in[66];
	memset(in, 'a', 65);
	in[65] = '\0';
	ck_assert_int_eq(omru_parse_model(in, model, err, sizeof(err)),
			 OMRU_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "65 characters"));
}
END_TEST

START_TEST(test_model_rejects_empty)
{
	char model[OMRU_MODEL_MAX_LEN + 1];
	ck_assert_int_eq(omru_parse_model("", model, err, sizeof(err)),
			 OMRU_EINVAL);
	ck_assert_str_eq(err, "--omru-model=: empty model name (allowed: 1 to "
			      "64 characters from A-Z a-z 0-9 . _ + -)");
}
END_TEST

START_TEST(test_model_rejects_slash_space_and_shell_characters)
{
	const char *bad[] = { "a/b", "a b", "x;rm", "$(id)", "m\n", "é" };
	char model[OMRU_MODEL_MAX_LEN + 1];
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_eq(omru_parse_model(bad[i], model, err,
						  sizeof(err)), OMRU_EINVAL);
		ck_assert_ptr_nonnull(strstr(err, "invalid character"));
	}
}
END_TEST

START_TEST(test_model_null_is_rejected_not_crashing)
{
	char model[OMRU_MODEL_MAX_LEN + 1];
	ck_assert_int_eq(omru_parse_model(NULL, model, err, sizeof(err)),
			 OMRU_EINVAL);
}
END_TEST

/* ---- --omru-epochs --------------------------------------------------- */

START_TEST(test_epochs_accepts_integer_and_fraction)
{
	double e = 0;
	ck_assert_int_eq(omru_parse_epochs("90", &e, err, sizeof(err)),
			 OMRU_OK);
	ck_assert_double_eq(e, 90.0);
	ck_assert_int_eq(omru_parse_epochs("2.5", &e, err, sizeof(err)),
			 OMRU_OK);
	ck_assert_double_eq(e, 2.5);
	ck_assert_int_eq(omru_parse_epochs("1000000", &e, err, sizeof(err)),
			 OMRU_OK);
}
END_TEST

START_TEST(test_epochs_rejects_zero_and_negative)
{
	double e = 0;
	ck_assert_int_eq(omru_parse_epochs("0", &e, err, sizeof(err)),
			 OMRU_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "must be positive"));
	ck_assert_int_eq(omru_parse_epochs("0.0", &e, err, sizeof(err)),
			 OMRU_EINVAL);
	ck_assert_int_eq(omru_parse_epochs("-3", &e, err, sizeof(err)),
			 OMRU_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "--omru-epochs=-3: not a number"));
}
END_TEST

START_TEST(test_epochs_rejects_what_strtod_would_accept)
{
	const char *bad[] = { "1e3", "inf", "nan", "0x10", " 5", "5 ", "+5",
			      "5.", ".5", "", "1,5", "abc" };
	double e = 0;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(omru_parse_epochs(bad[i], &e, err, sizeof(err)) ==
				      OMRU_EINVAL,
			      "accepted '%s'", bad[i]);
}
END_TEST

START_TEST(test_epochs_rejects_above_limit)
{
	double e = 0;
	ck_assert_int_eq(omru_parse_epochs("1000000.5", &e, err, sizeof(err)),
			 OMRU_EINVAL);
	ck_assert_int_eq(omru_parse_epochs("99999999999999999999", &e, err,
					   sizeof(err)), OMRU_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "too many epochs"));
}
END_TEST

/* ---- --omru-gpus ----------------------------------------------------- */

START_TEST(test_gpus_range_accepts_min_max)
{
	uint32_t lo = 0, hi = 0;
	ck_assert_int_eq(omru_parse_gpus_range("1-8", 0, &lo, &hi, err,
					       sizeof(err)), OMRU_OK);
	ck_assert_uint_eq(lo, 1);
	ck_assert_uint_eq(hi, 8);
}
END_TEST

START_TEST(test_gpus_single_count_means_fixed)
{
	uint32_t lo = 0, hi = 0;
	ck_assert_int_eq(omru_parse_gpus_range("4", 0, &lo, &hi, err,
					       sizeof(err)), OMRU_OK);
	ck_assert_uint_eq(lo, 4);
	ck_assert_uint_eq(hi, 4);
}
END_TEST

START_TEST(test_gpus_range_accepts_edges)
{
	uint32_t lo = 0, hi = 0;
	ck_assert_int_eq(omru_parse_gpus_range("1-1024", 0, &lo, &hi, err,
					       sizeof(err)), OMRU_OK);
	ck_assert_uint_eq(hi, 1024);
	ck_assert_int_eq(omru_parse_gpus_range("1024", 0, &lo, &hi, err,
					       sizeof(err)), OMRU_OK);
	ck_assert_int_eq(omru_parse_gpus_range("3-3", 0, &lo, &hi, err,
					       sizeof(err)), OMRU_OK);
}
END_TEST

START_TEST(test_gpus_range_rejects_min_above_max)
{
	uint32_t lo = 0, hi = 0;
	ck_assert_int_eq(omru_parse_gpus_range("8-2", 0, &lo, &hi, err,
					       sizeof(err)), OMRU_EINVAL);
	ck_assert_str_eq(err, "--omru-gpus=8-2: MIN must not exceed MAX "
			      "(1 <= MIN <= MAX <= 1024)");
}
END_TEST

START_TEST(test_gpus_range_rejects_zero)
{
	uint32_t lo = 0, hi = 0;
	ck_assert_int_eq(omru_parse_gpus_range("0-4", 0, &lo, &hi, err,
					       sizeof(err)), OMRU_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "at least 1"));
	ck_assert_int_eq(omru_parse_gpus_range("0", 0, &lo, &hi, err,
					       sizeof(err)), OMRU_EINVAL);
}
END_TEST

START_TEST(test_gpus_range_rejects_above_1024_and_overflow)
{
	uint32_t lo = 0, hi = 0;
	ck_assert_int_eq(omru_parse_gpus_range("1-1025", 0, &lo, &hi, err,
					       sizeof(err)), OMRU_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "above 1024"));
	ck_assert_int_eq(omru_parse_gpus_range("4294967297", 0, &lo, &hi, err,
					       sizeof(err)), OMRU_EINVAL);
	ck_assert_int_eq(omru_parse_gpus_range(
				 "1-99999999999999999999999999", 0, &lo, &hi,
				 err, sizeof(err)), OMRU_EINVAL);
}
END_TEST

START_TEST(test_gpus_range_rejects_malformed)
{
	const char *bad[] = { "", "-", "1-", "-4", "1-2-3", "a-b", "1..4",
			      " 1-4", "1 - 4", "+1-4", "1-4x", "0x4" };
	uint32_t lo = 0, hi = 0;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(omru_parse_gpus_range(bad[i], 0, &lo, &hi, err,
						    sizeof(err)) ==
				      OMRU_EINVAL,
			      "accepted '%s'", bad[i]);
}
END_TEST

START_TEST(test_gpus_range_honours_site_cap)
{
	uint32_t lo = 0, hi = 0;
	ck_assert_int_eq(omru_parse_gpus_range("1-16", 8, &lo, &hi, err,
					       sizeof(err)), OMRU_EINVAL);
	ck_assert_str_eq(err, "--omru-gpus=1-16: GPU count above 8 "
			      "(1 <= MIN <= MAX <= 8)");
	ck_assert_int_eq(omru_parse_gpus_range("1-8", 8, &lo, &hi, err,
					       sizeof(err)), OMRU_OK);
}
END_TEST

/* ---- --omru-profile -------------------------------------------------- */

START_TEST(test_profile_accepts_the_three_modes)
{
	omru_profile_mode_t m;
	ck_assert_int_eq(omru_parse_profile_mode("auto", &m, err, sizeof(err)),
			 OMRU_OK);
	ck_assert_int_eq(m, OMRU_PROFILE_AUTO);
	ck_assert_int_eq(omru_parse_profile_mode("off", &m, err, sizeof(err)),
			 OMRU_OK);
	ck_assert_int_eq(m, OMRU_PROFILE_OFF);
	ck_assert_int_eq(omru_parse_profile_mode("force", &m, err,
						 sizeof(err)), OMRU_OK);
	ck_assert_int_eq(m, OMRU_PROFILE_FORCE);
	ck_assert_str_eq(omru_profile_mode_name(OMRU_PROFILE_FORCE), "force");
}
END_TEST

START_TEST(test_profile_rejects_other_words_and_case)
{
	omru_profile_mode_t m;
	ck_assert_int_eq(omru_parse_profile_mode("AUTO", &m, err, sizeof(err)),
			 OMRU_EINVAL);
	ck_assert_str_eq(err, "--omru-profile=AUTO: unknown mode (allowed: "
			      "auto, off, force)");
	ck_assert_int_eq(omru_parse_profile_mode("on", &m, err, sizeof(err)),
			 OMRU_EINVAL);
	ck_assert_int_eq(omru_parse_profile_mode("", &m, err, sizeof(err)),
			 OMRU_EINVAL);
}
END_TEST

/* ---- errors never overflow the caller's buffer ------------------------ */

START_TEST(test_error_message_is_truncated_to_buffer)
{
	char small[8];
	uint32_t lo, hi;
	memset(small, 'x', sizeof(small));
	ck_assert_int_eq(omru_parse_gpus_range("8-2", 0, &lo, &hi, small,
					       sizeof(small)), OMRU_EINVAL);
	ck_assert_uint_eq(strlen(small), 7);
	ck_assert_int_eq(omru_parse_gpus_range("8-2", 0, &lo, &hi, NULL, 0),
			 OMRU_EINVAL);
}
END_TEST

/* ---- spank_job_env reader --------------------------------------------- */

START_TEST(test_env_reads_all_options)
{
	const char *env[] = { "_SLURM_SPANK_OPTION_spank_omru_model=resnet50",
			      "OMRU_MODEL=resnet50", "OMRU_EPOCHS=90",
			      "OMRU_GPUS_MIN=2", "OMRU_GPUS_MAX=8",
			      "OMRU_PROFILE=force", "OTHER=1", NULL };
	omru_job_options_t o;
	char desc[128];
	ck_assert_int_eq(omru_job_options_from_env(env, 8, &o, err,
						   sizeof(err)), OMRU_OK);
	ck_assert_uint_eq(o.set, OMRU_OPT_MODEL | OMRU_OPT_EPOCHS |
					 OMRU_OPT_GPUS | OMRU_OPT_PROFILE);
	ck_assert_str_eq(o.model, "resnet50");
	ck_assert_uint_eq(o.gpus_min, 2);
	ck_assert_uint_eq(o.gpus_max, 8);
	ck_assert_int_eq(o.profile, OMRU_PROFILE_FORCE);
	ck_assert_int_eq(omru_job_options_format(&o, desc, sizeof(desc)),
			 OMRU_OK);
	ck_assert_str_eq(desc, "model=resnet50 epochs=90 gpus=2-8 "
			       "profile=force");
}
END_TEST

START_TEST(test_env_without_options_is_empty_not_an_error)
{
	const char *env[] = { "FOO=bar", "novalue" };
	omru_job_options_t o;
	ck_assert_int_eq(omru_job_options_from_env(env, 2, &o, err,
						   sizeof(err)), OMRU_OK);
	ck_assert_uint_eq(o.set, 0);
	ck_assert_int_eq(omru_job_options_from_env(NULL, 0, &o, err,
						   sizeof(err)), OMRU_OK);
	ck_assert_uint_eq(o.set, 0);
}
END_TEST

START_TEST(test_env_revalidates_values)
{
	const char *bad_model[] = { "OMRU_MODEL=a/b" };
	const char *bad_range[] = { "OMRU_GPUS_MIN=9", "OMRU_GPUS_MAX=3" };
	const char *half_range[] = { "OMRU_GPUS_MIN=2" };
	omru_job_options_t o;
	ck_assert_int_eq(omru_job_options_from_env(bad_model, 1, &o, err,
						   sizeof(err)), OMRU_EINVAL);
	ck_assert_int_eq(omru_job_options_from_env(bad_range, 2, &o, err,
						   sizeof(err)), OMRU_EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "MIN must not exceed MAX"));
	ck_assert_int_eq(omru_job_options_from_env(half_range, 1, &o, err,
						   sizeof(err)), OMRU_EINVAL);
	ck_assert_str_eq(err, "OMRU_GPUS_MIN and OMRU_GPUS_MAX must be given "
			      "together");
}
END_TEST

START_TEST(test_format_reports_small_buffer)
{
	omru_job_options_t o = { .set = OMRU_OPT_MODEL };
	char tiny[4];
	strcpy(o.model, "resnet50");
	ck_assert_int_eq(omru_job_options_format(&o, tiny, sizeof(tiny)),
			 OMRU_EINVAL);
	ck_assert_str_eq(tiny, "mod");
}
END_TEST

static Suite *job_options_suite(void)
{
	Suite *s = suite_create("job_options");
	TCase *model = tcase_create("model");
	tcase_add_test(model, test_model_accepts_allowed_characters);
	tcase_add_test(model, test_model_accepts_64_characters);
	tcase_add_test(model, test_model_rejects_65_characters);
	tcase_add_test(model, test_model_rejects_empty);
	tcase_add_test(model, test_model_rejects_slash_space_and_shell_characters);
	tcase_add_test(model, test_model_null_is_rejected_not_crashing);
	suite_add_tcase(s, model);

	TCase *epochs = tcase_create("epochs");
	tcase_add_test(epochs, test_epochs_accepts_integer_and_fraction);
	tcase_add_test(epochs, test_epochs_rejects_zero_and_negative);
	tcase_add_test(epochs, test_epochs_rejects_what_strtod_would_accept);
	tcase_add_test(epochs, test_epochs_rejects_above_limit);
	suite_add_tcase(s, epochs);

	TCase *gpus = tcase_create("gpus");
	tcase_add_test(gpus, test_gpus_range_accepts_min_max);
	tcase_add_test(gpus, test_gpus_single_count_means_fixed);
	tcase_add_test(gpus, test_gpus_range_accepts_edges);
	tcase_add_test(gpus, test_gpus_range_rejects_min_above_max);
	tcase_add_test(gpus, test_gpus_range_rejects_zero);
	tcase_add_test(gpus, test_gpus_range_rejects_above_1024_and_overflow);
	tcase_add_test(gpus, test_gpus_range_rejects_malformed);
	tcase_add_test(gpus, test_gpus_range_honours_site_cap);
	suite_add_tcase(s, gpus);

	TCase *profile = tcase_create("profile");
	tcase_add_test(profile, test_profile_accepts_the_three_modes);
	tcase_add_test(profile, test_profile_rejects_other_words_and_case);
	tcase_add_test(profile, test_error_message_is_truncated_to_buffer);
	suite_add_tcase(s, profile);

	TCase *env = tcase_create("spank_job_env");
	tcase_add_test(env, test_env_reads_all_options);
	tcase_add_test(env, test_env_without_options_is_empty_not_an_error);
	tcase_add_test(env, test_env_revalidates_values);
	tcase_add_test(env, test_format_reports_small_buffer);
	suite_add_tcase(s, env);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(job_options_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
