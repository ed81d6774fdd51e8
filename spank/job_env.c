/*
 * job_env.c - carries a job's OMRU options where they are needed:
 *  - allocator/local context: into the job's spank_job_env, which slurmctld
 *    keeps as job_ptr->spank_job_env (read by select/omru_cons_tres);
 *  - remote context: into every task's environment as OMRU_*.
 * Only jobs that gave --omru-model get variables; other jobs are untouched.
 */
#include <stdio.h>
#include <string.h>

#include "omru_spank.h"

typedef spank_err_t (*setenv_fn)(spank_t, const char *, const char *, int);

/* Calls set(name, value) for each OMRU_* variable of the job. RET 0 or -1 */
static int export_all(spank_t sp, setenv_fn set, const char *where)
{
	struct {
		const char *name;
		const char *value;
	} vars[6];
	int n = 0;

	if (!(omru_opts.set & OMRU_OPT_MODEL))
		return 0;
	vars[n].name = OMRU_ENV_MODEL;
	vars[n++].value = omru_opts.model;
	vars[n].name = OMRU_ENV_PROFILE;
	vars[n++].value = omru_profile_mode_name(omru_options_profile());

	char epochs[32], gmin[16], gmax[16];
	if (omru_opts.set & OMRU_OPT_EPOCHS) {
		snprintf(epochs, sizeof(epochs), "%g", omru_opts.epochs);
		vars[n].name = OMRU_ENV_EPOCHS;
		vars[n++].value = epochs;
	}
	if (omru_opts.set & OMRU_OPT_GPUS) {
		snprintf(gmin, sizeof(gmin), "%u", omru_opts.gpus_min);
		snprintf(gmax, sizeof(gmax), "%u", omru_opts.gpus_max);
		vars[n].name = OMRU_ENV_GPUS_MIN;
		vars[n++].value = gmin;
		vars[n].name = OMRU_ENV_GPUS_MAX;
		vars[n++].value = gmax;
	}
	if (omru_opts.set & OMRU_OPT_ELASTIC) {
		vars[n].name = OMRU_ENV_ELASTIC;
		vars[n++].value = "1";
	}
	for (int i = 0; i < n; i++) {
		/*
		 * In a task, OMRU_PROFILE already set (by step_env.c in the
		 * batch step, inherited by the script's sruns) is the plan's
		 * decision and stays; the option's mode is only the default.
		 */
		int overwrite = !(set == spank_setenv &&
				   strcmp(vars[i].name, OMRU_ENV_PROFILE) == 0);
		spank_err_t rc = set(sp, vars[i].name, vars[i].value, overwrite);
		if (rc != ESPANK_SUCCESS && !(rc == ESPANK_ENV_EXISTS && !overwrite)) {
			slurm_error("%s: cannot set %s in the %s: %s",
				    OMRU_SPANK_NAME, vars[i].name, where,
				    spank_strerror(rc));
			return -1;
		}
	}
	return 0;
}

extern int omru_job_env_store(spank_t sp)
{
	return export_all(sp, spank_job_control_setenv, "job's spank env");
}

extern int omru_task_env_export(spank_t sp)
{
	return export_all(sp, spank_setenv, "task environment");
}
