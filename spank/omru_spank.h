/*
 * omru_spank.h - internal interface between the files of spank_omru.
 * spank_omru.c holds the SPANK hooks and dispatches on spank_context();
 * options.c owns the --omru-* options; job_env.c carries them to slurmctld
 * (allocator/local context) and to the tasks (remote context).
 */
#ifndef OMRU_SPANK_H
#define OMRU_SPANK_H

#include <stdbool.h>
#include <sys/types.h>
#include <time.h>

#include <slurm/spank.h>

#include "omru/omru.h"

#define OMRU_SPANK_NAME "spank_omru"

/* The options this invocation was given, validated (set == 0: none). */
extern omru_job_options_t omru_opts;
/* plugstack.conf settings. */
extern omru_spank_config_t omru_config;

/* options.c: register every --omru-* option with SPANK. RET 0 or -1 */
extern int omru_options_register(spank_t sp);

/* options.c: checks across options after all were parsed. RET 0 or -1 */
extern int omru_options_check(void);

/* options.c: the profile mode in force (given, else plugstack default). */
extern omru_profile_mode_t omru_options_profile(void);

/* job_env.c: store the options in the job's spank_job_env. RET 0 or -1 */
extern int omru_job_env_store(spank_t sp);

/* job_env.c: export OMRU_* into a task's environment. RET 0 or -1 */
extern int omru_task_env_export(spank_t sp);

/* gpu_request.c: --omru-gpus needs a --gpus=N request; given none, ask
 * --gpus=MIN when `may_set` (sbatch, salloc).  RET 0 or -1 (logged) */
extern int omru_gpu_request_check(bool may_set);

/* step_env.c: in the batch step, SLURM_GPUS, OMRU_GPUS and OMRU_NODES from
 * the job's real allocation.  RET 0 (failures are logged, not fatal) */
extern int omru_step_env_fix(spank_t sp);

/* user_dir.c (root): RUN/DIR as a 0700 directory of uid:gid holding at
 * most SIZE_MB MiB (a tmpfs of its own where the node allows mounts), RUN
 * made root-owned when missing (and refused unless root's, writable by
 * root alone).  RET 0 or -1 (logged) */
extern int omru_user_dir_make(const char *run, const char *dir, uid_t uid,
			      gid_t gid, unsigned size_mb);
/* user_dir.c (root): every directory of job JOB under RUN (its own and its
 * steps'), as omru_user_dir_remove.  RET 0 or -1 (logged) */
extern int omru_user_dirs_remove_job(const char *run, uint32_t job);
/* user_dir.c (root): RUN/DIR and all in it, never following a link.
 * RET 0 or -1 (logged) */
extern int omru_user_dir_remove(const char *run, const char *dir);

/* loader_share.c (each step of an OMRU job, root): join the node's loader
 * shares in init_post_opt (after omru_job_dir_create), tell the tasks their
 * share file, watch the trainer's report once tasks run, leave at exit
 * (before omru_job_record_finish).  All RET 0; failures are logged. */
extern int omru_loader_step_join(spank_t sp);
extern int omru_loader_task_env(spank_t sp);
extern int omru_loader_watch_start(void);
extern int omru_loader_step_leave(void);

/* job_record.c (batch step, root): the job's directory under run_dir,
 * made in init_post_opt.  RET 0 (failures logged: nothing is reported) */
extern int omru_job_dir_create(spank_t sp);
/* The directory, or NULL when the job has none. */
extern const char *omru_job_dir(void);
/* step_env.c tells what the job holds (rows are checked against it). */
extern void omru_job_record_alloc(int gpus, int nodes, time_t start);
/* task_post_fork: the thread that forwards new profile rows. RET 0 */
extern int omru_job_reporter_start(spank_t sp);
/* exit: last rows + summary into AdminComment, directory removed. RET 0 */
extern int omru_job_record_finish(spank_t sp);
/* record_merge.c: finds (once per step) whether slurmctld merges record
 * fields (job_submit/omru) or the node must; may ask slurmctld, so call it
 * when the step starts, not at its end. */
extern void omru_job_record_merge_path(void);
/* record_merge.c: merges KEYS=VALUES into job_id's AdminComment record
 * (any step, any node): a request job_submit/omru merges in slurmctld, or
 * without it a read-merge-write taking turns with the job's other writers
 * on the node and merging again when another node's writer wrote over
 * them; failures logged. */
extern void omru_job_record_merge(uint32_t job_id, int n,
				  const char *const *keys,
				  const char *const *values);

#endif
