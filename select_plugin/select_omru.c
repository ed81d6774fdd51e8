/*
 * select_omru.c - select/omru_cons_tres: the OMRU select plugin.
 *
 * GPU jobs are scheduled by the OMRU plan (plan_glue.c); resource
 * bookkeeping, CPU-only jobs and everything else go to select/cons_tres
 * (cons_tres_delegate_22_05.c).  Its
 * type contains "cons_tres" on purpose: slurmctld enables heterogeneous GRES
 * per node, dynamic nodes and MaxNodeCount only when
 * strstr(SelectType, "cons_tres") matches (gres_ctld.c, job_scheduler.c,
 * node_mgr.c, read_config.c in 22.05).
 *
 * Slurm loads every select_*.so in PluginDir into every daemon and command,
 * so init() does only what all of them need and logs at debug level.
 */
#include "config.h"

/* Call libslurm's exported slurm_* names, as Slurm's own plugins do: they
 * exist in libslurm.so (API clients) as well as in libslurmfull. */
#include "src/common/slurm_xlator.h"

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "src/common/log.h"
#include "omru/omru.h"
#include "omru_select.h"

/* Identity read by Slurm's plugin loader. */
const char plugin_name[] = "OMRU makespan planner over cons_tres";
const char plugin_type[] = "select/omru_cons_tres";
/* Up to 24.11 its own (191), from 25.05 cons_tres's (slurm_compat.h). */
const uint32_t plugin_id = OMRU_SELECT_PLUGIN_ID;
/* A select plugin must match the running Slurm exactly (major.minor.micro). */
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

extern int init(void)
{
	if (omru_delegate_load() != SLURM_SUCCESS)
		return SLURM_ERROR;
	if (omru_plan_init() != SLURM_SUCCESS) {
		omru_delegate_unload();
		return SLURM_ERROR;
	}
#if !OMRU_SELECT_STATE_HOOKS
	omru_plan_state_restore(); /* slurmctld only: nothing elsewhere */
#endif
	debug("%s: slurm-omru %s (core %s, built for Slurm %s) wrapping %s "
	      "(plugin_id %u)", plugin_type, OMRU_VERSION,
	      omru_core_version(), SLURM_VERSION_STRING, OMRU_DELEGATE_TYPE,
	      omru_delegate_plugin_id());
	return SLURM_SUCCESS;
}

extern int fini(void)
{
#if !OMRU_SELECT_STATE_HOOKS
	omru_plan_state_save();
#endif
	omru_plan_fini();
	omru_delegate_unload();
	return SLURM_SUCCESS;
}
