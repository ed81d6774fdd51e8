/*
 * select_omru.c - select/omru_cons_tres: the OMRU select plugin.
 *
 * For now it passes every call through to select/cons_tres, so a cluster on
 * it behaves exactly like cons_tres; the planner will give it a policy.  Its
 * type contains "cons_tres" on purpose: slurmctld enables heterogeneous GRES
 * per node, dynamic nodes and MaxNodeCount only when
 * strstr(SelectType, "cons_tres") matches (gres_ctld.c, job_scheduler.c,
 * node_mgr.c, read_config.c in 22.05).
 *
 * Slurm loads every select_*.so in PluginDir into every daemon and command,
 * so init() does only what all of them need and logs at debug level.
 */
#include "config.h"

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "src/common/log.h"
#include "omru/omru.h"
#include "omru_select.h"

/* Identity read by Slurm's plugin loader. */
const char plugin_name[] = "OMRU makespan planner over cons_tres";
const char plugin_type[] = "select/omru_cons_tres";
/* >= 100, clear of Slurm's own ids (101-110); unique among select plugins. */
const uint32_t plugin_id = 191;
/* A select plugin must match the running Slurm exactly (major.minor.micro). */
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

extern int init(void)
{
	if (omru_delegate_load() != SLURM_SUCCESS)
		return SLURM_ERROR;
	debug("%s: slurm-omru %s (core %s, built for Slurm %s) wrapping %s "
	      "(plugin_id %u)", plugin_type, OMRU_VERSION,
	      omru_core_version(), SLURM_VERSION_STRING, OMRU_DELEGATE_TYPE,
	      omru_delegate_plugin_id());
	return SLURM_SUCCESS;
}

extern int fini(void)
{
	omru_delegate_unload();
	return SLURM_SUCCESS;
}

extern void omru_job_starting(job_record_t *job_ptr)
{
	omru_job_options_t opts;
	char err[256], desc[256];

	if (!job_ptr || !job_ptr->spank_job_env_size)
		return;
	if (omru_job_options_from_env(
		    (const char *const *) job_ptr->spank_job_env,
		    job_ptr->spank_job_env_size, &opts, err, sizeof(err))
	    != OMRU_OK) {
		error("%s: %pJ: ignoring invalid OMRU options in spank_job_env: "
		      "%s", plugin_type, job_ptr, err);
		return;
	}
	if (!opts.set)
		return;
	omru_job_options_format(&opts, desc, sizeof(desc));
	debug("%s: %pJ starts, OMRU options: %s", plugin_type, job_ptr, desc);
}
