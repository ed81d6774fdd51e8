/*
 * step_env.c - remote context (slurmstepd), batch step: the environment a
 * batch script sees must describe the allocation the plan gave, not the
 * request the user typed.  sbatch exported the user's --gpus as SLURM_GPUS,
 * and an `srun` in the script would ask for that many GPUs again; when
 * select/omru changed the count, SLURM_GPUS is stale (Slurm does the same
 * after `scontrol update TresPerJob=`).  The real allocation is asked from
 * slurmctld once per batch job and exported.  One RPC, from slurmstepd in
 * init_post_opt, before it becomes the job's user: from 24.11 slurmstepd
 * holds its auth lock for writing while it runs as the user (user_init),
 * and an RPC there ends the step with "auth_g_create: ... Resource deadlock
 * avoided".  Exported:
 *   SLURM_GPUS  = the job's GPUs (what srun in the script will then use)
 *   OMRU_GPUS   = the same, for training scripts
 *   OMRU_NODES  = NODE:GPUS,... of the allocation, in node order
 *   OMRU_PROFILE, OMRU_PROFILE_GPUS, OMRU_PROFILE_OUT, OMRU_METRICS_FILE,
 *   OMRU_PHASE_FILE, OMRU_RESUME_FILE
 *               = what to measure and where (export_profiling below)
 * Steps started by srun inherit these from the batch script.  Jobs without
 * --omru-model are left alone; a failed RPC is logged and changes nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/slurm.h>

#include "slurm_api_compat.h"

#include "omru/omru_record.h"
#include "omru_spank.h"

/* "gpu:tesla:2(IDX:0-1)" or "gpu:2(IDX:...)" -> 2; -1 if not a gpu entry. */
static long gpus_in_detail(const char *s)
{
	const char *paren, *colon;
	long n = 0;

	if (!s || strncmp(s, "gpu", 3) != 0)
		return -1;
	paren = strchr(s, '(');
	if (!paren)
		paren = s + strlen(s);
	for (colon = paren; colon > s && colon[-1] != ':'; colon--)
		;
	if (colon == s)
		return -1;
	for (const char *p = colon; p < paren; p++) {
		if (*p < '0' || *p > '9' || n > 100000)
			return -1;
		n = n * 10 + (*p - '0');
	}
	return n;
}

static int export_var(spank_t sp, const char *name, const char *value)
{
	spank_err_t rc = spank_setenv(sp, name, value, 1);
	if (rc != ESPANK_SUCCESS)
		slurm_error("%s: cannot set %s: %s", OMRU_SPANK_NAME, name,
			    spank_strerror(rc));
	return rc == ESPANK_SUCCESS ? 0 : -1;
}

/*
 * What the job's tasks measure and where they write: the plan marks a job
 * for profiling in its AdminComment (`profiling=1,2,4`: counts within its
 * allocation); the rows go to OMRU_PROFILE_OUT, the training-phase signal
 * to OMRU_PHASE_FILE, when a resumed run trains again to OMRU_RESUME_FILE
 * and the epoch metrics to OMRU_METRICS_FILE in the job's directory
 * (job_record.c), unless the user named a metrics file.  Unmarked jobs get OMRU_PROFILE=off, except
 * --omru-profile=force, which profiles even where no plan marked it.
 */
static void export_profiling(spank_t sp, const char *counts)
{
	const char *dir = omru_job_dir();
	char path[OMRU_RUN_DIR_MAX + 64], cur[8];

	if (counts && dir) {
		export_var(sp, OMRU_ENV_PROFILE, "on");
		export_var(sp, "OMRU_PROFILE_GPUS", counts);
	} else if (omru_options_profile() != OMRU_PROFILE_FORCE) {
		export_var(sp, OMRU_ENV_PROFILE, "off");
	}
	if (!dir)
		return;
	snprintf(path, sizeof(path), "%s/profile.csv", dir);
	export_var(sp, "OMRU_PROFILE_OUT", path);
	snprintf(path, sizeof(path), "%s/phase", dir);
	export_var(sp, "OMRU_PHASE_FILE", path);
	snprintf(path, sizeof(path), "%s/resumed", dir);
	export_var(sp, "OMRU_RESUME_FILE", path);
	if (spank_getenv(sp, "OMRU_METRICS_FILE", cur, sizeof(cur)) == ESPANK_ENV_NOEXIST) {
		snprintf(path, sizeof(path), "%s/metrics.jsonl", dir);
		export_var(sp, "OMRU_METRICS_FILE", path);
	}
}

extern int omru_step_env_fix(spank_t sp)
{
	uint32_t job_id = 0, step_id = 0;
	job_info_msg_t *msg = NULL;
	omru_hostlist_t hl = NULL;
	char total_s[24], *nodes_s = NULL;
	size_t cap = 0, len = 0;
	long total = 0;
	int node_count = 0;

	if (!(omru_opts.set & OMRU_OPT_MODEL))
		return 0;
	if (spank_get_item(sp, S_JOB_ID, &job_id) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_STEPID, &step_id) != ESPANK_SUCCESS ||
	    step_id != SLURM_BATCH_SCRIPT)
		return 0;
	if (omru_load_job(&msg, job_id, SHOW_DETAIL) != SLURM_SUCCESS || !msg ||
	    msg->record_count < 1) {
		slurm_error("%s: job %u: cannot read the allocation from "
			    "slurmctld (%s); SLURM_GPUS left as submitted",
			    OMRU_SPANK_NAME, job_id, slurm_strerror(errno));
		if (msg)
			slurm_free_job_info_msg(msg);
		return 0;
	}
	slurm_job_info_t *j = &msg->job_array[0];
	hl = slurm_hostlist_create(j->nodes ? j->nodes : "");
	for (uint32_t i = 0; hl && i < j->gres_detail_cnt; i++) {
		char *host = slurm_hostlist_shift(hl);
		long n = gpus_in_detail(j->gres_detail_str ? j->gres_detail_str[i] : NULL);
		if (host && n > 0) {
			node_count++;
			size_t need = len + strlen(host) + 24;
			if (need > cap) {
				cap = need * 2;
				nodes_s = realloc(nodes_s, cap);
				if (!nodes_s)
					break;
			}
			len += snprintf(nodes_s + len, cap - len, "%s%s:%ld",
					len ? "," : "", host, n);
			total += n;
		}
		free(host);
	}
	if (hl)
		slurm_hostlist_destroy(hl);
	char profiling[256] = "";
	bool marked = omru_record_get(j->admin_comment, "profiling", profiling,
				      sizeof(profiling)) == 1;
	omru_job_record_alloc((int) total, node_count, j->start_time);
	slurm_free_job_info_msg(msg);
	if (total > 0 && nodes_s) {
		snprintf(total_s, sizeof(total_s), "%ld", total);
		export_var(sp, "SLURM_GPUS", total_s);
		export_var(sp, OMRU_ENV_GPUS, total_s);
		export_var(sp, OMRU_ENV_NODES, nodes_s);
	}
	free(nodes_s);
	export_profiling(sp, marked ? profiling : NULL);
	return 0;
}
