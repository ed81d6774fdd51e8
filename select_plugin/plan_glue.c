/*
 * plan_glue.c - select/omru_cons_tres puts the OMRU plan in charge of
 * every GPU job in slurmctld (doc/select_omru_cons_tres.8): the planner's
 * start and stop, omru.conf, the state files.  The other roles have files
 * of their own (plan_glue.h lists them).
 *
 * Mechanics and why they work: doc/slurm-facts.md.  Everything read from
 * Slurm is checked; when the plugin's own data is bad or the planner
 * fails, the job is scheduled as plain cons_tres would, with an error()
 * line.
 */
#include "plan_glue.h"

#include "src/common/run_in_daemon.h"
#include "omru/omru_record.h"

pthread_mutex_t plan_lock = PTHREAD_MUTEX_INITIALIZER;
omru_ctl_t *ctl = NULL;
test_only_memo_t *memo = NULL;
omru_ctl_settings_t settings;
bool dirty = true;
bool gpus_freed = false;
bool replan_now = false;
bool plan_wanted = false;
bool planned_since_stops = false;
double last_plan_at = -1e300;
plan_cost_t cost;

extern double mono_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* omru.conf next to slurm.conf. */
static char *conf_path(void)
{
	char *path = xstrdup(slurm_conf.slurm_conf ? slurm_conf.slurm_conf :
						     "/etc/slurm/slurm.conf");
	char *slash = strrchr(path, '/');
	if (slash)
		slash[1] = '\0';
	else
		xfree(path);
	xstrcat(path, "omru.conf");
	return path;
}

static int configure(omru_ctl_t *c)
{
	char err[1024], desc[2048];
	char *path = conf_path();
	int rc = omru_ctl_configure(c, path, slurm_conf.state_save_location,
				    err, sizeof(err));
	if (rc != OMRU_OK) {
		error("%s: %s", plugin_type, err);
	} else {
		omru_ctl_describe(c, desc, sizeof(desc));
		info("%s: %s: %s", plugin_type, path, desc);
		omru_ctl_settings(c, &settings);
		/* Never stop a job Slurm would not requeue. */
		if (settings.elastic && !omru_elastic_check_config()) {
			omru_ctl_disable_resizing(c);
			settings.elastic = 0;
		}
	}
	xfree(path);
	return rc == OMRU_OK ? SLURM_SUCCESS : SLURM_ERROR;
}

/*
 * From 23.11 `scontrol reconfigure` starts a new slurmctld with the new
 * files.  Forked (daemonized or --systemd), the old one waits and resumes,
 * with its own configuration, when the new one fails: failing init on a
 * bad omru.conf is then right.  In the foreground (-D) the old one execs
 * the new one and nothing resumes (Slurm passes no SLURMCTLD_RECONF_PARENT_FD):
 * failing would take the controller down, so planning stops instead.
 */
static bool reconfigure_cannot_resume(void)
{
	return getenv("SLURMCTLD_RECONF") &&
	       !getenv("SLURMCTLD_RECONF_PARENT_FD");
}

/*
 * Up to 24.11 slurmctld loads every select plugin in PluginDir, the
 * configured one or not: only as SelectType does this one plan (its thread
 * would otherwise reorder and resize the jobs of a cons_tres cluster).
 */
static bool configured_select_type(void)
{
	return !xstrcmp(slurm_conf.select_type, plugin_type);
}

extern int omru_plan_init(void)
{
	if (!running_in_slurmctld() || !configured_select_type())
		return SLURM_SUCCESS;
	ctl = omru_ctl_create();
	memo = test_only_memo_create();
	if (!ctl) {
		error("%s: out of memory", plugin_type);
		return SLURM_ERROR;
	}
	if (configure(ctl) != SLURM_SUCCESS) {
		omru_ctl_destroy(ctl);
		ctl = NULL;
		if (reconfigure_cannot_resume()) {
			error("%s: omru.conf not applied; planning is off (GPU "
			      "jobs are placed by cons_tres) until a reconfigure "
			      "with a valid omru.conf", plugin_type);
			test_only_memo_destroy(memo);
			memo = NULL;
			return SLURM_SUCCESS;
		}
		/* slurmctld must not start on a bad omru.conf. */
		return SLURM_ERROR;
	}
	char err[1024];
	if (omru_ctl_store_load(ctl, err, sizeof(err)) != OMRU_OK)
		error("%s: profile store ignored, planning without what jobs "
		      "measured: %s", plugin_type, err);
	if (!omru_record_merged_in_slurmctld(slurm_conf.job_submit_plugins))
		info("%s: JobSubmitPlugins has no omru: the nodes merge the "
		     "fields they add to job records themselves and can lose "
		     "one when several write at once (job_submit_omru(8))",
		     plugin_type);
	omru_sync_start();
	return SLURM_SUCCESS;
}

extern void omru_plan_fini(void)
{
	omru_sync_stop();
	slurm_mutex_lock(&plan_lock);
	omru_ctl_destroy(ctl);
	ctl = NULL;
	refusals_fini();
	limit_blocked_fini();
	plan_pools_fini();
	asked_gpus_fini();
	plan_priority_fini();
	test_only_memo_destroy(memo);
	memo = NULL;
	slurm_mutex_unlock(&plan_lock);
}

extern void omru_plan_reconfigure(void)
{
	if (!ctl)
		return;
	slurm_mutex_lock(&plan_lock);
	if (configure(ctl) != SLURM_SUCCESS)
		error("%s: omru.conf not applied, the previous configuration "
		      "stays", plugin_type);
	dirty = true;
	slurm_mutex_unlock(&plan_lock);
}

extern void omru_plan_state_save(void)
{
	char err[512];
	if (!ctl)
		return;
	slurm_mutex_lock(&plan_lock);
	if (omru_ctl_save_state(ctl, err, sizeof(err)) != OMRU_OK)
		error("%s: cannot save the plan state: %s", plugin_type, err);
	slurm_mutex_unlock(&plan_lock);
}

extern void omru_plan_state_restore(void)
{
	char err[512];
	if (!ctl)
		return;
	slurm_mutex_lock(&plan_lock);
	if (omru_ctl_load_state(ctl, (double) time(NULL), err, sizeof(err)) != OMRU_OK)
		error("%s: ignoring the saved plan state: %s", plugin_type, err);
	dirty = true;
	slurm_mutex_unlock(&plan_lock);
}
