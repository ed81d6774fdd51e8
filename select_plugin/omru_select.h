/*
 * omru_select.h - internal interface between the files of
 * select/omru_cons_tres.  select_omru.c is the version-independent part
 * (identity, start-up, what OMRU adds); cons_tres_delegate_22_05.c is the
 * only file that knows Slurm 22.05's select interface.
 */
#ifndef OMRU_SELECT_H
#define OMRU_SELECT_H

#include "src/slurmctld/slurmctld.h"

/* The select plugin this one wraps and delegates bookkeeping to. */
#define OMRU_DELEGATE_TYPE "select/cons_tres"

/*
 * omru_delegate_load - load select/cons_tres and resolve its select_p_*
 * entry points.
 * RET SLURM_SUCCESS or SLURM_ERROR (already logged)
 */
extern int omru_delegate_load(void);

/* omru_delegate_unload - release what omru_delegate_load took. */
extern void omru_delegate_unload(void);

/* omru_delegate_plugin_id - the delegate's plugin_id (0 if not loaded). */
extern uint32_t omru_delegate_plugin_id(void);

/*
 * omru_job_starting - called from select_p_job_begin before delegating:
 * reads the job's --omru-* options from its spank_job_env and logs them.
 * Never fails the start: bad data is logged and the job runs as a plain
 * cons_tres job.
 */
extern void omru_job_starting(job_record_t *job_ptr);

#endif
