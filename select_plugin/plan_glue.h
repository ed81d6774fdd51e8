/*
 * plan_glue.h - what the files of select/omru_cons_tres's plan glue share
 * (doc/select_omru_cons_tres.8; the Slurm facts they rely on:
 * doc/slurm-facts.md).  A file per role:
 *   plan_glue.c         start, stop, omru.conf, state files
 *   job_request.c       what a job asks (GPUs, CPUs, OMRU options) and how
 *                       select/omru rewrites it
 *   node_state.c        what the nodes hold and offer
 *   plan_snapshot.c     Slurm's jobs and nodes into the planner, and a plan
 *   job_test_answers.c  job_test: the plan's answers to slurmctld
 *   job_begin_fini.c    a job's start (GPUs, AdminComment) and end
 *   start_refusals.c    planned starts cons_tres refused
 *   asked_gpus.c        what a moldable job asked before it was rewritten
 *   node_features.c     --constraint against a node's features
 *   plan_priority.c     the plan's order as the jobs' priorities
 *   background_sync.c   the thread: the plans and their priorities,
 *                       profile store, splits, elastic stops
 * Everything runs inside slurmctld only (the other Slurm commands that
 * load the plugin never start the planner).
 */
#ifndef OMRU_PLAN_GLUE_H
#define OMRU_PLAN_GLUE_H

#include "config.h"

/* Call libslurm's exported slurm_* names, as Slurm's own plugins do: they
 * exist in libslurm.so (API clients) as well as in libslurmfull. */
#include "src/common/slurm_xlator.h"
#include "omru_select.h" /* slurm_compat.h: first of Slurm's internals */

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "src/common/bitstring.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/reservation.h"
#include "omru/omru.h"
#include "omru/omru_ctl.h"
#include "test_only_memo.h"

/*
 * slurmctld's own data and functions: weak, because every Slurm command
 * loads this plugin too (they resolve to NULL there, and the planner is
 * never started outside slurmctld).
 */
extern list_t *job_list __attribute__((weak));
/* In libslurmfull, but not in libslurm.so (API clients load us too). */
extern node_record_t **node_record_table_ptr __attribute__((weak));
extern int node_record_count __attribute__((weak));
extern time_t last_node_update __attribute__((weak));
#pragma weak lock_slurmctld
#pragma weak unlock_slurmctld
#pragma weak job_set_req_tres
#pragma weak job_test_resv
#if OMRU_SLURM_AT_LEAST(23, 11)
#pragma weak reservation_delete_resv_exc_parts
#endif
#pragma weak find_job_record

/* plan_glue.c: the planner and what goes with it, under plan_lock. */
extern pthread_mutex_t plan_lock;
extern omru_ctl_t *ctl;
extern test_only_memo_t *memo; /* held jobs' TEST_ONLY answers */
extern omru_ctl_settings_t settings;
extern bool dirty; /* something changed since the last plan */
/* A GPU job ended since the last plan: its GPUs are free now, and the
 * plan that gives them out is due sooner than PlanIntervalMin
 * (plan_due, plan_snapshot.c). */
extern bool gpus_freed;
/* A plan at once, whatever PlanIntervalMin says: the last one counted on
 * a start Slurm did not make. */
extern bool replan_now;
/* A job new to the plans waits for one: the next plan comes within
 * plan_forced_gap_s. */
extern bool plan_wanted;
/* Pending jobs slurmctld asked about although no plan had them: Slurm's
 * own checks passed, so the next plan takes them in whatever their
 * state_reason still says (plan_snapshot.c; caller holds plan_lock). */
extern void admitted_note(uint32_t job_id);
extern bool planned_since_stops; /* stops to send (elastic_glue.c) */
extern double last_plan_at; /* monotonic seconds */
/* A re-plan as slurmctld pays for it: reading its jobs and nodes (the
 * snapshot) and planning, under its locks. */
typedef struct {
	long tests[3]; /* job_test calls by mode: RUN_NOW, TEST_ONLY, WILL_RUN */
	long replans;
	double snapshot_ms, snapshot_max_ms, total_ms, total_max_ms;
} plan_cost_t;
extern plan_cost_t cost;
extern double mono_now(void);

/* job_request.c */
/* What select/omru needs to know of a job's GPU request. */
typedef struct {
	int gpus; /* per job, or per node x min nodes */
	bool per_job; /* --gpus=N: the count can be rewritten */
	omru_job_options_t opts;
	bool opts_ok;
} job_gpus_t;
extern bool is_gpu(gres_state_t *gs);
/* The next GPU entry of an iterator over a job's gres_list_req, or NULL. */
extern gres_job_state_t *next_gpu_entry(list_itr_t *it);
extern bool job_gpu_request(job_record_t *job_ptr, job_gpus_t *out);
extern void job_options(job_record_t *job_ptr, job_gpus_t *g);
extern void set_job_gpus(job_record_t *job_ptr, int gpus);
extern bool job_asked_cpus_per_gpu(job_record_t *job_ptr);
extern int job_cpus_per_gpu(job_record_t *job_ptr, const omru_ctl_decision_t *d,
			    bitstr_t *nodes);
extern void job_task_shape(const job_details_t *d, uint64_t *tasks,
			   uint64_t *per_task);
extern int job_task_cpus_per_gpu(job_record_t *job_ptr);
extern void set_job_cpus(job_record_t *job_ptr, int cpus);
extern int job_cpus_per_gres(job_record_t *job_ptr);

/* node_state.c */
extern bool node_usable(int i);
extern bool node_startable(int i);
extern void node_gpus(node_record_t *n, int *gpus, int *alloc);
extern gres_node_state_t *node_gpu_state(node_record_t *n);
extern int node_cpus_per_gpu(bitstr_t *nodes);
/* Whether the node has GPUs of every type the job asks. */
extern bool node_has_gpu_types(node_record_t *n, job_record_t *job_ptr);
/* The node's first n GPUs' links (gres.conf Links=) as an n x n row-major
 * matrix to xfree, or NULL when it has none. */
extern int *node_gpu_links(gres_node_state_t *ns, int n);
extern uint64_t node_config_stamp(void);

/* job_limits.c, read under one assoc_mgr lock (each output NULL: not read):
 * *per_job the most GPUs its QOS, partition QOS and association let the job
 * have (MaxTRESPerJob=gres/gpu=N), 0: no limit; *room_now the GPUs its QOS
 * (per user, group) and association (group) limits let its user start now,
 * -1: no limit; *which names the tightest as Slurm's reasons do
 * ("QOSMaxGRESPerUser"). */
extern void job_gpu_limits(job_record_t *job_ptr, int *per_job, int *room_now,
			   const char **which);
/* The job's shared GPU limits as pool uses (keys, one per GPU), each
 * limit's room given to the plan (omru_ctl_snapshot_pool); *room_now (if
 * not NULL) as job_gpu_limits gives it, under the same one lock.  RET how
 * many uses. */
extern int job_gpu_pools(job_record_t *job_ptr, omru_ctl_pool_use_t *uses, int max,
			 int *room_now);
/* Pending jobs their user's GPU limits leave too few GPUs now (the reason
 * job_test gives them): cleared and noted by replan (caller holds
 * plan_lock), sorted by _done. */
extern void limit_blocked_clear(void);
extern void limit_blocked_note(uint32_t job_id);
extern void limit_blocked_done(void);
extern bool limit_blocked_has(uint32_t job_id);
extern void limit_blocked_fini(void);

/* plan_pools.c: shared limits as the plan's pools, per replan: _begin,
 * _count_running for every running job, job_pools for every planned job
 * (its GPU limits' pools and room: job_gpu_pools; its licenses), _done
 * before the plan. */
extern void plan_pools_begin(void);
extern void plan_pools_count_running(job_record_t *job_ptr);
extern int job_pools(job_record_t *job_ptr, omru_ctl_pool_use_t *uses, int max,
		     int *room_now);
extern void plan_pools_done(void);
/* Whether Slurm keeps the job waiting for a limit the plan models (a GPU
 * limit or a license), and the last plan did not plan its start. */
extern bool pool_wait_modelled(job_record_t *job_ptr);
extern void plan_pools_fini(void);

/* node_resources.c: CPUs and memory besides GPUs. */
/* What the node has for jobs: CPUs, memory (MB; 1 when not consumable). */
extern void node_capacity(node_record_t *n, double *cpus, double *mem_mb);
/* Adds a running job's CPUs and memory per node index to cpus[], mem_mb[]
 * (node_record_count entries each). */
extern void job_add_holdings(job_record_t *job_ptr, double *cpus, double *mem_mb);
/* A running job's CPUs and memory on node index i (0 if none). */
extern void job_holding_on(job_record_t *job_ptr, int i, double *cpus,
			   double *mem_mb);
/* Fills j's need_* fields: what the job takes of a node per GPU count. */
extern void job_node_need(job_record_t *job_ptr, const job_gpus_t *g,
			  omru_ctl_job_t *j);

/* node_features.c: whether a node has what a --constraint asks. */
extern bool node_has_features(node_record_t *n, const char *features);

/* plan_snapshot.c (callers hold plan_lock and slurmctld's job and node
 * locks) */
extern bool plan_due(double t);
/* Whether the thread makes a plan now (caller holds plan_lock). */
extern bool plan_wanted_now(double t);
/* Seconds until a plan is wanted if nothing happens (caller holds
 * plan_lock). */
extern double plan_wait_s(double t);
extern double plan_forced_gap_s(void);
/* A plan from a fresh snapshot; RET how many pending jobs it starts now. */
extern int replan(time_t now);
/* Whether Slurm keeps the pending job waiting for a reason of its own (a
 * limit, license, reservation, partition state): no plan counts on it. */
extern bool job_blocked_by_slurm(job_record_t *job_ptr);
/* Whether a pending job the last plan starts now is one Slurm keeps
 * waiting (the plan's GPUs for it would idle). */
extern bool planned_start_blocked(uint32_t testing);

/* start_refusals.c (callers hold plan_lock) */
/* cons_tres refused the job's planned start on `planned`. */
extern void refusals_note(uint32_t job_id, bitstr_t *planned);
/* `eligible` less the nodes that refused the job since nothing changed
 * there.  RET the count kept (in place). */
extern int refusals_filter(uint32_t job_id, int *eligible, int count);
/* A job ended on `nodes`: what they refused may fit now. */
/* Whether the job was refused since nothing changed where it was. */
extern bool refusals_has(uint32_t job_id);
extern void refusals_nodes_freed(bitstr_t *nodes);
/* Records of jobs for which still_waits says false go. */
extern void refusals_sweep(bool (*still_waits)(uint32_t job_id));
extern void refusals_forget_all(void);
extern void refusals_fini(void);

/* asked_gpus.c (callers hold plan_lock) */
/* The job's --gpus before select/omru's first rewrite of it. */
extern void asked_gpus_note(uint32_t job_id, int gpus);
/* What the job asked, or `fallback` when not known. */
extern int asked_gpus_get(uint32_t job_id, int fallback);
extern void asked_gpus_sweep(bool (*still_waits)(uint32_t job_id));
extern void asked_gpus_fini(void);

/* background_sync.c */
extern void omru_sync_start(void);
extern void omru_sync_stop(void);
/* Wake the thread now (caller holds plan_lock). */
extern void omru_sync_wake(void);

/* plan_priority.c: the plan's order as priorities.  _update after each
 * plan (job lock and plan_lock held); _write with the job write lock
 * outside slurmctld's cycles (and plan_lock): the thread's plan_tick. */
extern void plan_priority_update(void);
extern void plan_priority_write(void);
extern uint32_t job_own_priority(job_record_t *job_ptr);
extern void plan_priority_fini(void);

#endif
