/*
 * omru_select.h - internal interface between the files of
 * select/omru_cons_tres.  select_omru.c is the version-independent part
 * (identity, start-up, what OMRU adds); a cons_tres_delegate_*.c per
 * Slurm release family (22.05, 23.02-24.11, 25.05+) is the only file that
 * knows that family's select interface.
 */
#ifndef OMRU_SELECT_H
#define OMRU_SELECT_H

#include "slurm_compat.h"

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

/* The plugin's type, for log lines ("select/omru_cons_tres"). */
extern const char plugin_type[];

/*
 * What slurmctld passes job_test after the preemption lists differs by
 * release (22.05: the cores reserved for others; 23.11: a resv_exc_t;
 * 24.11: and the window a WILL_RUN test may look in).  The delegate packs
 * it into its own struct omru_job_test_tail; the plan glue only hands it
 * back.
 */
struct omru_job_test_tail;

/* cons_tres's job_test (the delegate), for the plan glue. */
extern int omru_delegate_job_test(job_record_t *job_ptr, bitstr_t *node_bitmap,
				  uint32_t min_nodes, uint32_t max_nodes,
				  uint32_t req_nodes, uint16_t mode,
				  list_t *preemptee_candidates,
				  list_t **preemptee_job_list,
				  const struct omru_job_test_tail *tail);

/*
 * The plan glue (plan_glue.c).  omru_plan_init starts the planner in
 * slurmctld only (RET SLURM_ERROR on a bad omru.conf: slurmctld must not
 * start); every other function does nothing outside slurmctld.
 */
extern int omru_plan_init(void);
extern void omru_plan_fini(void);
extern void omru_plan_reconfigure(void);
extern void omru_plan_state_save(void);
extern void omru_plan_state_restore(void);
/* select_p_job_test with the plan in charge of GPU jobs. */
extern int omru_job_test(job_record_t *job_ptr, bitstr_t *node_bitmap,
			 uint32_t min_nodes, uint32_t max_nodes,
			 uint32_t req_nodes, uint16_t mode,
			 list_t *preemptee_candidates,
			 list_t **preemptee_job_list,
			 const struct omru_job_test_tail *tail);
/* Before cons_tres's job_begin: best-linked GPUs, AdminComment.  Never
 * fails the start. */
extern void omru_job_begin(job_record_t *job_ptr);
/* A job ended: the next job_test re-plans. */
extern void omru_job_fini(job_record_t *job_ptr);

/*
 * Elastic jobs (elastic_glue.c).  omru_elastic_check_config logs why
 * resizes cannot work with this slurm.conf (RequeueExit).  After a plan,
 * omru_elastic_after_plan sends the stops it decided (SIGUSR1 to each job's
 * steps) and logs its notes; call it without `lock`, with slurmctld's job
 * write lock held (job_test's callers hold it).
 */
struct omru_ctl;
/* RET whether slurm.conf lets a stopped elastic job be requeued. */
extern bool omru_elastic_check_config(void);
extern void omru_elastic_after_plan(struct omru_ctl *ctl, pthread_mutex_t *lock);

#endif
