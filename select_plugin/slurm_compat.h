/*
 * slurm_compat.h - the names of Slurm's internals that changed between the
 * releases select/omru_cons_tres builds for (22.05, 23.02-24.11, 25.05+),
 * so that the plan glue is one source for all of them.  What differs in
 * the select interface itself lives in one delegate file per release
 * family (cons_tres_delegate_*.c); everything else that differs is here.
 * Include it after config.h and slurm_xlator.h, before any other Slurm
 * internal header.  (What changed when: doc/slurm-releases.md.)
 */
#ifndef OMRU_SLURM_COMPAT_H
#define OMRU_SLURM_COMPAT_H

#include <slurm/slurm.h>
#include <slurm/slurm_version.h>

#define OMRU_SLURM_AT_LEAST(major, minor) \
	(SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(major, minor, 0))

#if !OMRU_SLURM_AT_LEAST(22, 5)
#error "select/omru_cons_tres builds for Slurm 22.05 and later"
#endif

/* 23.02 moved the plugin interfaces to src/interfaces/. */
#if OMRU_SLURM_AT_LEAST(23, 2)
#include "src/interfaces/gres.h"
#include "src/interfaces/select.h"
#else
#include "src/common/gres.h"
#include "src/common/select.h"
#endif

#include "src/common/list.h"
#include "src/slurmctld/slurmctld.h"

/*
 * 23.02 added list_t/list_itr_t (24.05 and 24.11 dropped ListIterator and
 * List) and made struct job_details an anonymous job_details_t; the code
 * uses the new names, which 22.05 gets here.
 */
#if !OMRU_SLURM_AT_LEAST(23, 2)
typedef struct xlist list_t;
typedef struct listIterator list_itr_t;
typedef struct job_details job_details_t;
#endif

/*
 * The plugin_id select/omru_cons_tres declares.  Up to 24.11 slurmctld loads
 * every select plugin in PluginDir and refuses two with one id, so it is
 * its own (191).  From 25.05 only the configured plugin is loaded, and
 * slurmctld tells cons_tres by its id (running_cons_tres(): plugin_id ==
 * SELECT_PLUGIN_CONS_TRES), so it must be cons_tres's: with any other,
 * slurmctld refuses CR_Core/CR_CPU/CR_Socket at start.
 */
#if OMRU_SLURM_AT_LEAST(25, 5)
#define OMRU_SELECT_PLUGIN_ID SELECT_PLUGIN_CONS_TRES
#else
#define OMRU_SELECT_PLUGIN_ID 191
#endif

/* 24.05 renamed job_reason_string (the text squeue shows for a reason). */
#if OMRU_SLURM_AT_LEAST(24, 5)
#include "src/common/job_state_reason.h"
#define omru_job_reason_string job_state_reason_string
#else
#define omru_job_reason_string job_reason_string
#endif

/*
 * 25.05 dropped select_p_state_save/restore: select_omru.c reads the plan's
 * state when the plugin starts and writes it when it stops instead.
 */
#define OMRU_SELECT_STATE_HOOKS (!OMRU_SLURM_AT_LEAST(25, 5))

/* 25.11 made SelectTypeParameters' CR_* defines an enum, SELECT_*. */
#if OMRU_SLURM_AT_LEAST(25, 11)
#define OMRU_CR_MEMORY SELECT_MEMORY
#else
#define OMRU_CR_MEMORY CR_MEMORY
#endif

/*
 * job_test_resv's fifth argument (passed by address): the cores reserved
 * for others on the nodes it returns, a bitmap up to 23.02, a resv_exc_t
 * from 23.11.  Only the nodes are used here; OMRU_RESV_EXC_FREE releases
 * the rest.
 */
#if OMRU_SLURM_AT_LEAST(23, 11)
typedef resv_exc_t omru_resv_exc_t;
#define OMRU_RESV_EXC_INIT { 0 }
#define OMRU_RESV_EXC_FREE(x) reservation_delete_resv_exc_parts(&(x))
#else
typedef bitstr_t *omru_resv_exc_t;
#define OMRU_RESV_EXC_INIT NULL
#define OMRU_RESV_EXC_FREE(x) FREE_NULL_BITMAP(x)
#endif

/*
 * 23.02 stopped testing licenses before job_test: cons_tres tests them
 * itself and answers ESLURM_LICENSES_UNAVAILABLE, which is not a node
 * refusal (job_test_answers.c).
 */
#if OMRU_SLURM_AT_LEAST(23, 2)
#define OMRU_LICENSES_IN_JOB_TEST 1
#else
#define OMRU_LICENSES_IN_JOB_TEST 0
#endif

/*
 * A multi-partition job's priority in each partition: on the job up to
 * 23.11, in job_ptr->part_prio from 24.05, job_ptr->prio_mult from 25.05.
 */
#if OMRU_SLURM_AT_LEAST(25, 5)
#define OMRU_JOB_PRIORITY_ARRAY(job) \
	((job)->prio_mult ? (job)->prio_mult->priority_array : NULL)
#elif OMRU_SLURM_AT_LEAST(24, 5)
#define OMRU_JOB_PRIORITY_ARRAY(job) \
	((job)->part_prio ? (job)->part_prio->priority_array : NULL)
#else
#define OMRU_JOB_PRIORITY_ARRAY(job) ((job)->priority_array)
#endif

#endif
