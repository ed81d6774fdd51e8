/*
 * omru_ctl.h - the C API of the planner inside slurmctld (select/omru).
 *
 * The glue in select_plugin/ fills a snapshot of the nodes and GPU jobs,
 * asks for a plan, and answers every job_test from omru_ctl_lookup() until
 * the next plan.  Nothing here knows Slurm; nothing here throws; every
 * failure is a return code plus a message in a caller-supplied buffer
 * (always NUL-terminated when errlen > 0).  Not thread-safe: the glue calls
 * it under its own mutex.
 */
#ifndef OMRU_OMRU_CTL_H
#define OMRU_OMRU_CTL_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "omru/omru.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct omru_ctl omru_ctl_t;

/* omru_ctl_create - an empty controller with the default configuration
 * (no profiles).  RET NULL only when out of memory. */
omru_ctl_t *omru_ctl_create(void);
void omru_ctl_destroy(omru_ctl_t *ctl);

/*
 * omru_ctl_configure - read omru.conf (see omru.conf(5)) and the profile
 * files it names, and use them from the next plan on.
 * IN conf_path - omru.conf; a missing file means every default
 * IN state_save_location - slurm.conf's StateSaveLocation; StateDir
 *    defaults to STATE_SAVE_LOCATION/omru
 * RET OMRU_OK, or OMRU_EINVAL with the message (FILE:LINE: ...); the
 *    controller then keeps its previous configuration
 */
int omru_ctl_configure(omru_ctl_t *ctl, const char *conf_path,
		       const char *state_save_location, char *err,
		       size_t errlen);

/* What the glue needs of the configuration (omru.conf(5)). */
typedef struct {
	double plan_interval_min_s;
	double plan_interval_max_s;
	double plan_time_max_ms;
	int cpus_per_gpu; /* 0: leave the job's CPU request alone */
	int plan_rigid_jobs; /* plain GPU jobs are planned too */
	int log_plans;
	int elastic; /* Elastic=yes: --omru-elastic jobs are resized */
	int max_job_gpus; /* MaxJobGpus: the most --omru-gpus may ask; 0: none */
} omru_ctl_settings_t;
void omru_ctl_settings(const omru_ctl_t *ctl, omru_ctl_settings_t *out);

/* omru_ctl_describe - the configuration in one line, every key, and the
 * warnings of the last omru_ctl_configure (if any) after " ; ". */
void omru_ctl_describe(const omru_ctl_t *ctl, char *buf, size_t len);

/*
 * The snapshot: begin, one call per node (index 0..node_count-1, each
 * once), one per GPU job, then omru_ctl_plan().
 */
int omru_ctl_snapshot_begin(omru_ctl_t *ctl, double now_s, int node_count);
int omru_ctl_snapshot_node(omru_ctl_t *ctl, int index, const char *name,
			   int gpus, int gpus_alloc, int usable);
/* omru_ctl_snapshot_node_resources - node `index`'s CPUs and memory (MB)
 * for jobs and what jobs hold of them (after its omru_ctl_snapshot_node).
 * The plan then places jobs only where their CPUs and memory fit
 * (omru_ctl_job_t need_*); without a call for every node, GPUs only.
 * RET OMRU_OK, or OMRU_EINVAL (values out of range: not used). */
int omru_ctl_snapshot_node_resources(omru_ctl_t *ctl, int index, double cpus,
				     double cpus_alloc, double mem_mb,
				     double mem_alloc_mb);
/* omru_ctl_snapshot_pool - a limit shared by jobs that is not about nodes
 * (a user's or account's GPU limit: QOS MaxTRESPerUser, GrpTRES; a license),
 * named by `key` as the jobs' omru_ctl_pool_use_t name it: `room` is what
 * the limit leaves now (Slurm's running jobs counted).  The plan then starts
 * a job only while its pools have room, and orders a limited user's jobs
 * and a license's around each other.  A key no call names is no limit.
 * RET OMRU_OK, or OMRU_EINVAL (key empty or too long, room not finite). */
int omru_ctl_snapshot_pool(omru_ctl_t *ctl, const char *key, double room);

/* What a job takes of a pool: per_gpu x its GPUs + per_job. */
#define OMRU_POOL_KEY_MAX 64
typedef struct {
	char key[OMRU_POOL_KEY_MAX];
	double per_gpu, per_job;
} omru_ctl_pool_use_t;

/* omru_ctl_snapshot_links - the GPU links of the cluster's largest nodes
 * (gres.conf Links=, as slurmctld parsed them: n x n, row-major, links[a *
 * n + b] the NVLinks between GPUs a and b, <= 0 none), for the costs of
 * pipeline splits (LayerProfileDir=); nodes alike.  Without a call: PCIe.
 * RET OMRU_OK, or OMRU_EINVAL (not a symmetric matrix: no links used). */
int omru_ctl_snapshot_links(omru_ctl_t *ctl, const int *links, int n);

typedef struct {
	uint32_t job_id;
	int running;
	double submit_s;
	double start_s; /* running jobs */
	double time_limit_s; /* 0: none */
	uint32_t priority; /* Slurm's own (not the plan's band) */
	uint16_t tier; /* its partition's PriorityTier */
	const omru_job_options_t *opts; /* NULL or opts->set == 0: plain */
	int gpus; /* plain: its request; running: what it holds */
	/* Running: the count it asked before the plan rewrote its request
	 * (0: not known); what the reference bound may take back beyond. */
	int asked_gpus;
	int max_nodes; /* 0: any */
	/* Running: GPUs held per node (where_node ascending). */
	const int *where_node;
	const int *where_gpus;
	int where_count;
	/* Pending: node indices it may start on, ascending, usable only. */
	const int *eligible;
	int eligible_count;
	/* Pending but not free to start yet (a begin time ahead, such as
	 * Slurm's delay after a requeue; a hold; a dependency). */
	int held;
	uint32_t uid; /* the job's user: whose measured profiles price it */
	/* Its AdminComment (what its node reported; a requeued job's
	 * epochs_done), or NULL. */
	const char *admin_comment;
	/* What it takes of a node with g of its GPUs there, as cons_tres
	 * allocates: CPUs max(need_cpus_min, need_cpus_per_gpu * g); memory
	 * need_mem_min_mb + need_mem_per_gpu_mb * g + need_mem_per_cpu_mb *
	 * CPUs; need_all_mem: all of the node's memory (--mem=0);
	 * need_whole_node: an idle node, all of it (--exclusive).  All 0:
	 * GPUs only. */
	double need_cpus_min, need_cpus_per_gpu;
	double need_mem_min_mb, need_mem_per_gpu_mb, need_mem_per_cpu_mb;
	int need_all_mem, need_whole_node;
	/* Running: CPUs and memory (MB) held on each where_node, or NULL. */
	const double *where_cpus;
	const double *where_mem_mb;
	/* The pools it counts against (omru_ctl_snapshot_pool), or NULL. */
	const omru_ctl_pool_use_t *pools;
	int pool_count;
} omru_ctl_job_t;

/* RET OMRU_OK, or OMRU_EINVAL (the job is left out; message says why). */
int omru_ctl_snapshot_job(omru_ctl_t *ctl, const omru_ctl_job_t *job,
			  char *err, size_t errlen);

/* omru_ctl_plan - plan the snapshot.  On failure the previous answers are
 * dropped (every lookup then says OMRU_DECIDE_PASS). */
int omru_ctl_plan(omru_ctl_t *ctl, char *err, size_t errlen);

typedef enum {
	OMRU_DECIDE_PASS = 0, /* not planned: cons_tres decides */
	OMRU_DECIDE_START, /* start now (or: running) */
	OMRU_DECIDE_WAIT, /* planned later */
	OMRU_DECIDE_HOLD, /* beyond the planned queue: not now */
} omru_decision_kind_t;

typedef struct {
	omru_decision_kind_t kind;
	int gpus;
	int nodes;
	double start_s;
	double runtime_s;
	int moldable;
	const char *profile; /* "site", "estimated", "default", ... */
	/* OMRU jobs: CPUs per GPU for a job that did not ask --cpus-per-gpu
	 * (0: leave its CPUs alone): CpusPerGpu, or with LoaderCpus=yes at
	 * least one for the step plus loader_need, the loader workers per
	 * task its user's jobs of the model were measured to need (0:
	 * unknown, or LoaderCpus=no).  Other jobs: both 0. */
	int cpus_per_gpu;
	int loader_need;
	int where_count; /* START: entries for omru_ctl_decision_where() */
	const void *impl;
} omru_ctl_decision_t;

/* RET 1 if the last plan had the job (out filled), else 0 (out = PASS). */
int omru_ctl_lookup(const omru_ctl_t *ctl, uint32_t job_id,
		    omru_ctl_decision_t *out);
/*
 * omru_ctl_offered - RET 1 if the last plan's snapshot had the job
 * (planned, or left out with a message), else 0.  The interval between
 * plans must not let a job the planner never saw start as plain cons_tres:
 * the glue plans at once for a pending job this says 0 for.
 */
int omru_ctl_offered(const omru_ctl_t *ctl, uint32_t job_id);
/* The i-th (node index, GPUs) of a START decision; valid until the next
 * plan.  RET OMRU_OK or OMRU_EINVAL. */
int omru_ctl_decision_where(const omru_ctl_decision_t *d, int i, int *node,
			    int *gpus);

/* omru_ctl_plan_count - plans made so far. */
long omru_ctl_plan_count(const omru_ctl_t *ctl);
/* omru_ctl_stats - "plans=N last_ms=.. max_ms=.. mean_ms=.. jobs=..
 * pending=.. starts=.. candidates=.. ends_at=EPOCH_S" (ends_at: when the
 * last plan finishes its last job) */
void omru_ctl_stats(const omru_ctl_t *ctl, char *buf, size_t len);

/*
 * omru_ctl_admin_comment - the job's AdminComment line:
 * "omru: gpus=4 nodes=n[1-2] planned_start=2026-11-22T12:00:00
 *  predicted_s=812 profile=site model=resnet50 epochs=90 range=1-8
 *  cpus_per_gpu=4"
 * IN nodes - Slurm's node list of the allocation (or NULL)
 * IN opts - the job's options (or NULL)
 * IN cpus_per_gpu - the CPUs per GPU select/omru gave the job, written as
 *    cpus_per_gpu= when > 0 (0: it set none, the job's own request stood)
 * RET OMRU_OK, or OMRU_EINVAL when the last plan did not have the job or
 *    the line did not fit in buf
 */
int omru_ctl_admin_comment(const omru_ctl_t *ctl, uint32_t job_id,
			   const omru_job_options_t *opts, const char *nodes,
			   time_t start, int cpus_per_gpu, char *buf, size_t len);

/*
 * omru_ctl_job_end - a GPU job ended (job_fini): its last reported rows are
 * learned, its trainer's last loader report (loader=W:X:F:R) gives its
 * model's loader demand for its user (a malformed one is ignored), and a
 * completed OMRU job whose real epoch time is off the prediction by more
 * than CorrectionMargin corrects its model's curve.
 * IN comment - its AdminComment (rows=, loader=, profile_s=), or NULL
 * OUT log - what was learned, "" if nothing
 */
int omru_ctl_job_end(omru_ctl_t *ctl, uint32_t job_id, uint32_t uid,
		     int completed, const omru_job_options_t *opts, int gpus,
		     int nodes, double run_s, const char *comment, char *log,
		     size_t loglen);

/*
 * omru_ctl_job_rows - a running job's AdminComment: rows= its node reported
 * are learned (checked against its model, GPUs and nodes), once per change.
 * RET 1 when something new was learned, else 0.
 */
int omru_ctl_job_rows(omru_ctl_t *ctl, uint32_t job_id, uint32_t uid,
		      const omru_job_options_t *opts, int gpus, int nodes,
		      const char *comment);

/*
 * Elastic jobs (--omru-elastic; resize_book.hpp).  After a plan: pop the
 * stops it decided and send each job SIGUSR1 (its steps, not the batch
 * shell) outside the glue's lock; pop the notes (resizes given up) for the
 * log.  When a job ends, omru_ctl_job_stopped with its exit status (the
 * elastic exit code means Slurm requeues it to resume: RET 1); when a job
 * starts, omru_ctl_job_started with its previous AdminComment and the one
 * select/omru wrote for this start: RET 1 for a job resuming from a resize,
 * with `out` the record to set (earlier fields kept, resizes= added,
 * EPOCH_S:FROM>TO:COST_S) and `note` a line for the log.
 * omru_ctl_resuming: RET 1 while a requeued job waits to resume (the glue
 * keeps it in the plan through its requeue delay).
 */
int omru_ctl_pop_stop(omru_ctl_t *ctl, uint32_t *job_id, int *from_gpus, int *to_gpus);
/* No job is resized until the next omru_ctl_configure (the glue found
 * that Slurm would not requeue a stopped job). */
void omru_ctl_disable_resizing(omru_ctl_t *ctl);
int omru_ctl_pop_note(omru_ctl_t *ctl, char *buf, size_t len);
int omru_ctl_resuming(const omru_ctl_t *ctl, uint32_t job_id);
int omru_ctl_job_stopped(omru_ctl_t *ctl, uint32_t job_id, int exit_status, double now_s);
int omru_ctl_job_started(omru_ctl_t *ctl, uint32_t job_id, double now_s,
			 const char *previous, const char *comment, char *out,
			 size_t outlen, char *note, size_t notelen);

/*
 * The profile store in StateDir (profile/store_file.hpp), saved off
 * slurmctld's hot path: under the glue's lock take the unsaved changes
 * (omru_ctl_store_take: NULL only on failure; without changes the batch
 * just looks whether the file changed), write them without the lock
 * (omru_store_batch_save: merges with what omru-profile changed on disk,
 * or reads the file when omru-profile replaced it), and under the lock
 * again install the result (omru_ctl_store_install, which frees the batch
 * and RET 1 when the store the plans use changed, else 0).
 * omru_store_batch_from_disk RET 1 when the save found the file changed
 * by another writer (omru-profile) and the result holds that, else 0.
 */
typedef struct omru_store_batch omru_store_batch_t;
omru_store_batch_t *omru_ctl_store_take(omru_ctl_t *ctl);
int omru_store_batch_save(omru_store_batch_t *b, char *err, size_t errlen);
int omru_store_batch_from_disk(const omru_store_batch_t *b);
int omru_ctl_store_install(omru_ctl_t *ctl, omru_store_batch_t *b);
/*
 * Pipeline splits' factors (LayerProfileDir=) are computed off the lock:
 * under it take what plans missed (omru_ctl_gains_take: NULL when nothing
 * is wanted), compute without it (omru_gain_batch_compute: up to a second
 * per factor), and under it again install them (omru_ctl_gains_install:
 * frees the batch; RET how many the next plan can use, 0 when the
 * configuration or the links changed meanwhile).
 */
typedef struct omru_gain_batch omru_gain_batch_t;
omru_gain_batch_t *omru_ctl_gains_take(omru_ctl_t *ctl);
void omru_gain_batch_compute(omru_gain_batch_t *b);
int omru_ctl_gains_install(omru_ctl_t *ctl, omru_gain_batch_t *b);

/* omru_ctl_store_load - read the store at start (a corrupt file is
 * reported and ignored, planning goes on without it). */
int omru_ctl_store_load(omru_ctl_t *ctl, char *err, size_t errlen);

/* The plan choice and the resize book (resizes under way, measured restart
 * costs, jobs in their late phase) in StateDir (atomic writes; a corrupt
 * file is reported and ignored by load, each on its own). */
int omru_ctl_save_state(omru_ctl_t *ctl, char *err, size_t errlen);
/* now_s: slurmctld watches the resizes under way again from then (their
 * grace counts from then: what happened while it was down reaches it
 * late). */
int omru_ctl_load_state(omru_ctl_t *ctl, double now_s, char *err, size_t errlen);

/*
 * omru_select_gpus - the best-linked `count` free GPUs of one node
 * (policy/gpu_links.hpp select_gpus).
 * IN links - n x n row-major link counts (gres.conf Links=), or NULL
 * IN free - n flags, nonzero where the GPU is free
 * OUT slots - `count` slot numbers, ascending
 * RET OMRU_OK, or OMRU_EINVAL when fewer than `count` are free
 */
int omru_select_gpus(const int *links, int n, const unsigned char *free,
		     int count, int *slots);

#ifdef __cplusplus
}
#endif

#endif /* OMRU_OMRU_CTL_H */
