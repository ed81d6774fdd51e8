/*
 * spank_omru.c - the SPANK entry points of spank_omru.  Each hook switches
 * on spank_context() and calls the module that owns the behaviour; no logic
 * lives here.
 */
#include <slurm/spank.h>

#include "omru_spank.h"

SPANK_PLUGIN(spank_omru, 1);

omru_job_options_t omru_opts;
omru_spank_config_t omru_config;

/* plugstack.conf's arguments into `cfg`.  RET 0, or -1 (logged). */
static int read_config(int ac, char **av, omru_spank_config_t *cfg)
{
	char err[512];

	if (omru_spank_config_parse(ac, (const char *const *) av, cfg, err,
				    sizeof(err)) != OMRU_OK) {
		slurm_error("%s: %s", OMRU_SPANK_NAME, err);
		return -1;
	}
	return 0;
}

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	if (read_config(ac, av, &omru_config) != 0)
		return -1;
	/*
	 * Options must be registered here, not through a static
	 * spank_options[] table: sbatch and salloc ignore the table.
	 */
	switch (spank_context()) {
	case S_CTX_LOCAL:
	case S_CTX_ALLOCATOR:
	case S_CTX_REMOTE:
		return omru_options_register(sp);
	default:
		return 0;
	}
}

int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
	(void) ac;
	(void) av;
	switch (spank_context()) {
	case S_CTX_LOCAL:
	case S_CTX_ALLOCATOR:
		if (omru_options_check() != 0 ||
		    omru_gpu_request_check(spank_context() == S_CTX_ALLOCATOR) != 0)
			return -1;
		return omru_job_env_store(sp);
	case S_CTX_REMOTE:
		omru_job_dir_create(sp);
		if (omru_loader_step_join(sp) != 0)
			return -1;
		if (omru_opts.set & OMRU_OPT_MODEL)
			omru_job_record_merge_path();
		/* Here, not in user_init: from 24.11 slurmstepd runs
		 * user_init as the user holding its auth lock, and an RPC
		 * there aborts the step (step_env.c). */
		return omru_step_env_fix(sp);
	default:
		return 0;
	}
}

int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
	(void) ac;
	(void) av;
	if (spank_context() != S_CTX_REMOTE)
		return 0;
	omru_task_env_export(sp);
	return omru_loader_task_env(sp);
}

int slurm_spank_task_post_fork(spank_t sp, int ac, char **av)
{
	(void) ac;
	(void) av;
	if (spank_context() != S_CTX_REMOTE)
		return 0;
	omru_loader_watch_start();
	return omru_job_reporter_start(sp);
}

/*
 * slurmd's epilog, on every node of the job once all its steps ended there:
 * its directories under run_dir go, also those of a step whose slurmstepd
 * died before its exit hook could remove them (a tmpfs would stay mounted).
 */
int slurm_spank_job_epilog(spank_t sp, int ac, char **av)
{
	uint32_t job = 0;
	omru_spank_config_t cfg;

	/* slurm_spank_init is not called in this context: its own copy. */
	if (spank_context() != S_CTX_JOB_SCRIPT || read_config(ac, av, &cfg) != 0)
		return 0;
	if (spank_get_item(sp, S_JOB_ID, &job) != ESPANK_SUCCESS || !job) {
		slurm_error("%s: epilog: no job id", OMRU_SPANK_NAME);
		return 0;
	}
	if (omru_user_dirs_remove_job(cfg.run_dir, job) == 0)
		slurm_debug("%s: epilog: job %u: its directories under %s are gone",
			    OMRU_SPANK_NAME, job, cfg.run_dir);
	return 0;
}

int slurm_spank_exit(spank_t sp, int ac, char **av)
{
	(void) ac;
	(void) av;
	if (spank_context() != S_CTX_REMOTE)
		return 0;
	omru_loader_step_leave();
	return omru_job_record_finish(sp);
}
