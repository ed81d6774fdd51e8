/*
 * elastic_glue.c - select/omru_cons_tres resizes running --omru-elastic
 * jobs when the plan says so: SIGUSR1 to the job's steps (omru-train then
 * writes a checkpoint at its next step and exits OMRU_ELASTIC_EXIT_CODE),
 * Slurm requeues the job because slurm.conf's RequeueExit lists that code,
 * and the plan starts it again first, on the GPUs it held for it
 * (libomru/controller/resize_book.hpp).  The batch shell is not signalled:
 * it must hand the tasks' exit status back (`exec srun ...`).
 */
#include "config.h"

#include "src/common/slurm_xlator.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/slurm.h>

#include "src/common/log.h"
#include "src/common/read_config.h"
#include "src/slurmctld/slurmctld.h"
#include "omru/omru.h"
#include "omru/omru_ctl.h"
#include "omru_select.h"

/* slurmctld's own functions: weak, since every Slurm command loads us. */
#pragma weak find_job_record
#pragma weak job_signal

/* Whether `code` is in a RequeueExit list ("85", "1,85-90"). */
static bool exit_listed(const char *list, int code)
{
	const char *p = list;

	while (p && *p) {
		char *end;
		long lo = strtol(p, &end, 10), hi = lo;
		if (end == p)
			return false; /* not a list we can read */
		if (*end == '-') {
			p = end + 1;
			hi = strtol(p, &end, 10);
			if (end == p)
				return false;
		}
		if (code >= lo && code <= hi)
			return true;
		p = (*end == ',') ? end + 1 : NULL;
	}
	return false;
}

extern bool omru_elastic_check_config(void)
{
	if (exit_listed(slurm_conf.requeue_exit, OMRU_ELASTIC_EXIT_CODE))
		return true;
	error("%s: slurm.conf RequeueExit (%s) does not list %d: a job "
	      "stopped for a resize would end instead of being requeued, so "
	      "no job is resized (set RequeueExit=%d, or Elastic=no in "
	      "omru.conf)", plugin_type,
	      slurm_conf.requeue_exit ? slurm_conf.requeue_exit : "unset",
	      OMRU_ELASTIC_EXIT_CODE, OMRU_ELASTIC_EXIT_CODE);
	return false;
}

#define STOPS_PER_PLAN 64

extern void omru_elastic_after_plan(struct omru_ctl *ctl, pthread_mutex_t *lock)
{
	uint32_t ids[STOPS_PER_PLAN];
	int from[STOPS_PER_PLAN], to[STOPS_PER_PLAN], n = 0;
	char note[512];

	if (!ctl || !find_job_record || !job_signal)
		return;
	slurm_mutex_lock(lock);
	while (n < STOPS_PER_PLAN &&
	       omru_ctl_pop_stop(ctl, &ids[n], &from[n], &to[n]))
		n++;
	while (omru_ctl_pop_note(ctl, note, sizeof(note)))
		info("%s: %s", plugin_type, note);
	slurm_mutex_unlock(lock);

	for (int i = 0; i < n; i++) {
		job_record_t *job_ptr = find_job_record(ids[i]);
		if (!job_ptr || !IS_JOB_RUNNING(job_ptr))
			continue; /* ended meanwhile: the book forgets it */
		/* Its steps, not the batch shell (KILL_STEPS_ONLY). */
		int rc = job_signal(job_ptr, SIGUSR1, KILL_STEPS_ONLY, 0, false);
		if (rc == SLURM_SUCCESS)
			info("%s: %pJ resized by the plan from %d to %d GPUs: "
			     "asked to stop at its next step (SIGUSR1)",
			     plugin_type, job_ptr, from[i], to[i]);
		else
			error("%s: %pJ: cannot signal it for its resize: %s",
			      plugin_type, job_ptr, slurm_strerror(rc));
	}
}
