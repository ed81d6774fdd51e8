/*
 * options.c - the --omru-* job options: one table, one callback per option,
 * validation by the core so sbatch refuses a bad value before anything is
 * submitted, with a message that names the option and what is allowed.
 */
#include <stdint.h>
#include <string.h>

#include "omru_spank.h"

enum omru_option_id {
	OPT_MODEL = 1,
	OPT_EPOCHS,
	OPT_GPUS,
	OPT_PROFILE,
	OPT_ELASTIC,
};

/* SPANK calls this for each option given, in every context. */
static int option_cb(int val, const char *optarg, int remote)
{
	char err[512];
	int rc = OMRU_EINVAL;
	const char *arg = optarg ? optarg : "";

	(void) remote;
	switch (val) {
	case OPT_MODEL:
		rc = omru_parse_model(arg, omru_opts.model, err, sizeof(err));
		if (rc == OMRU_OK)
			omru_opts.set |= OMRU_OPT_MODEL;
		break;
	case OPT_EPOCHS:
		rc = omru_parse_epochs(arg, &omru_opts.epochs, err,
				       sizeof(err));
		if (rc == OMRU_OK)
			omru_opts.set |= OMRU_OPT_EPOCHS;
		break;
	case OPT_GPUS:
		rc = omru_parse_gpus_range(arg, omru_config.max_gpus,
					   &omru_opts.gpus_min,
					   &omru_opts.gpus_max, err,
					   sizeof(err));
		if (rc == OMRU_OK)
			omru_opts.set |= OMRU_OPT_GPUS;
		break;
	case OPT_PROFILE:
		rc = omru_parse_profile_mode(arg, &omru_opts.profile, err,
					     sizeof(err));
		if (rc == OMRU_OK)
			omru_opts.set |= OMRU_OPT_PROFILE;
		break;
	case OPT_ELASTIC:
		omru_opts.set |= OMRU_OPT_ELASTIC;
		rc = OMRU_OK;
		break;
	default:
		strcpy(err, "unknown option");
		break;
	}
	if (rc != OMRU_OK) {
		slurm_error("%s: %s", OMRU_SPANK_NAME, err);
		return -1;
	}
	return 0;
}

static struct spank_option omru_option_table[] = {
	{ "omru-model", "NAME",
	  "OMRU: model the job trains (profiles are kept per model; "
	  "[A-Za-z0-9._+-], 1-64 characters)",
	  1, OPT_MODEL, option_cb },
	{ "omru-epochs", "N",
	  "OMRU: epochs the job trains (a positive number, e.g. 90)",
	  1, OPT_EPOCHS, option_cb },
	{ "omru-gpus", "MIN-MAX",
	  "OMRU: GPU counts the planner may give the job: MIN-MAX or N "
	  "(1 <= MIN <= MAX <= 1024)",
	  1, OPT_GPUS, option_cb },
	{ "omru-profile", "auto|off|force",
	  "OMRU: measure the epoch time on several GPU counts: auto (if "
	  "the model has no profile; default), off, force",
	  1, OPT_PROFILE, option_cb },
	{ "omru-elastic", NULL,
	  "OMRU: the plan may resize the running job: SIGUSR1 asks it to "
	  "checkpoint and exit 85, Slurm requeues it at the new GPU count "
	  "(needs --omru-epochs and --omru-gpus=MIN-MAX)",
	  0, OPT_ELASTIC, option_cb },
	SPANK_OPTIONS_TABLE_END
};

extern int omru_options_register(spank_t sp)
{
	for (struct spank_option *o = omru_option_table; o->name; o++) {
		spank_err_t rc = spank_option_register(sp, o);
		if (rc != ESPANK_SUCCESS) {
			slurm_error("%s: cannot register --%s: %s",
				    OMRU_SPANK_NAME, o->name,
				    spank_strerror(rc));
			return -1;
		}
	}
	return 0;
}

extern int omru_options_check(void)
{
	if (omru_opts.set && !(omru_opts.set & OMRU_OPT_MODEL)) {
		slurm_error("%s: --omru-model=NAME is required when other "
			    "--omru-* options are given (profiles and plans "
			    "are kept per model)", OMRU_SPANK_NAME);
		return -1;
	}
	char err[512];
	if (omru_job_options_check(&omru_opts, err, sizeof(err)) != OMRU_OK) {
		slurm_error("%s: %s", OMRU_SPANK_NAME, err);
		return -1;
	}
	return 0;
}

extern omru_profile_mode_t omru_options_profile(void)
{
	return (omru_opts.set & OMRU_OPT_PROFILE) ? omru_opts.profile :
						    omru_config.default_profile;
}
