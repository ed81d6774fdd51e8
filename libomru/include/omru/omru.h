/*
 * omru.h - the C API of slurm-omru's Slurm-free core.
 *
 * Every Slurm entry point (select/omru_cons_tres, spank_omru) and every tool
 * calls the core through this header only.  Functions never throw, never
 * abort on bad input, and report failures as a return code plus a message
 * written into a caller-supplied buffer (always NUL-terminated when errlen>0).
 */
#ifndef OMRU_OMRU_H
#define OMRU_OMRU_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Return codes of every omru_* function that can fail. */
#define OMRU_OK 0
#define OMRU_EINVAL (-1) /* the input is not allowed; the message says why */
#define OMRU_EINTERNAL (-2) /* a bug or resource failure inside the core */

/* Limits of the user-facing job options (see spank_omru(8)). */
#define OMRU_MODEL_MAX_LEN 64
#define OMRU_GPUS_LIMIT 1024
#define OMRU_EPOCHS_LIMIT 1000000.0
/*
 * The exit status of an elastic job's tasks when they stopped for a resize
 * at select/omru's request (checkpoint written): slurm.conf must list it
 * in RequeueExit so Slurm requeues the job (select_omru_cons_tres(8)).
 */
#define OMRU_ELASTIC_EXIT_CODE 85

/* --omru-profile: whether the job measures its epoch time per GPU count. */
typedef enum {
	OMRU_PROFILE_AUTO = 0, /* profile only if the model has no profile */
	OMRU_PROFILE_OFF = 1, /* never profile */
	OMRU_PROFILE_FORCE = 2 /* profile even if a profile exists */
} omru_profile_mode_t;

/* Which fields of omru_job_options_t were given (bit mask). */
#define OMRU_OPT_MODEL 0x1u
#define OMRU_OPT_EPOCHS 0x2u
#define OMRU_OPT_GPUS 0x4u
#define OMRU_OPT_PROFILE 0x8u
/* --omru-elastic: the plan may resize the running job (stop, requeue) */
#define OMRU_OPT_ELASTIC 0x10u

/* A training job's OMRU options, validated. */
typedef struct {
	unsigned set; /* OMRU_OPT_* bits of the fields that were given */
	char model[OMRU_MODEL_MAX_LEN + 1];
	double epochs; /* > 0 */
	uint32_t gpus_min; /* 1 <= gpus_min <= gpus_max <= OMRU_GPUS_LIMIT */
	uint32_t gpus_max;
	omru_profile_mode_t profile;
} omru_job_options_t;

/*
 * omru_parse_model - validate a model name: [A-Za-z0-9._+-]{1,64}
 * IN  value - the text the user typed (may be NULL)
 * OUT model - receives the name, NUL-terminated (OMRU_MODEL_MAX_LEN+1 bytes)
 * OUT err/errlen - message on failure, e.g. "--omru-model=a/b: ..."
 * RET OMRU_OK or OMRU_EINVAL
 */
int omru_parse_model(const char *value, char model[OMRU_MODEL_MAX_LEN + 1],
		     char *err, size_t errlen);

/*
 * omru_parse_epochs - validate the work of a job in epochs: a decimal number
 * (digits, optional fraction) with 0 < value <= OMRU_EPOCHS_LIMIT.
 * OUT epochs - the value
 * RET OMRU_OK or OMRU_EINVAL
 */
int omru_parse_epochs(const char *value, double *epochs, char *err,
		      size_t errlen);

/*
 * omru_parse_gpus_range - validate "MIN-MAX" or "N" (= N-N) with
 * 1 <= MIN <= MAX <= max_allowed (max_allowed <= OMRU_GPUS_LIMIT; 0 means
 * OMRU_GPUS_LIMIT).
 * OUT gpus_min, gpus_max - the range
 * RET OMRU_OK or OMRU_EINVAL
 */
int omru_parse_gpus_range(const char *value, uint32_t max_allowed,
			  uint32_t *gpus_min, uint32_t *gpus_max, char *err,
			  size_t errlen);

/*
 * omru_parse_profile_mode - validate "auto", "off" or "force".
 * OUT mode - the mode
 * RET OMRU_OK or OMRU_EINVAL
 */
int omru_parse_profile_mode(const char *value, omru_profile_mode_t *mode,
			    char *err, size_t errlen);

/* omru_profile_mode_name - "auto", "off", "force" (or "invalid"). */
const char *omru_profile_mode_name(omru_profile_mode_t mode);

/*
 * Names of the variables that carry a job's options: in the job's
 * spank_job_env (read by slurmctld) and in every task's environment.
 */
#define OMRU_ENV_MODEL "OMRU_MODEL"
#define OMRU_ENV_EPOCHS "OMRU_EPOCHS"
#define OMRU_ENV_GPUS_MIN "OMRU_GPUS_MIN"
#define OMRU_ENV_GPUS_MAX "OMRU_GPUS_MAX"
#define OMRU_ENV_PROFILE "OMRU_PROFILE"
#define OMRU_ENV_ELASTIC "OMRU_ELASTIC" /* "1" */
/* Set by spank_omru in a batch job: the GPUs the plan gave the job and
 * where ("NODE:GPUS,..."). */
#define OMRU_ENV_GPUS "OMRU_GPUS"
#define OMRU_ENV_NODES "OMRU_NODES"

/*
 * omru_job_options_from_env - rebuild a job's options from "NAME=value"
 * strings (a job's spank_job_env), validating every value again: the strings
 * crossed a process boundary and are treated as untrusted.
 * IN  env, count - the strings (entries may be NULL; others are ignored)
 * OUT opts - the options; opts->set == 0 if the job has none
 * RET OMRU_OK (also when the job has no options) or OMRU_EINVAL
 */
int omru_job_options_from_env(const char *const *env, size_t count,
			      omru_job_options_t *opts, char *err,
			      size_t errlen);

/*
 * omru_job_options_check - the rules between options, once all are given:
 * --omru-elastic needs --omru-epochs and a GPU range MIN < MAX.
 * RET OMRU_OK or OMRU_EINVAL with the message in err
 */
int omru_job_options_check(const omru_job_options_t *opts, char *err,
			   size_t errlen);

/*
 * omru_job_options_format - one-line description for logs:
 * "model=resnet50 epochs=90 gpus=1-8 profile=auto" (fields not set omitted).
 * RET OMRU_OK, or OMRU_EINVAL if buf is too small (buf then truncated)
 */
int omru_job_options_format(const omru_job_options_t *opts, char *buf,
			    size_t len);

/* spank_omru's plugstack.conf arguments (see spank_omru(8)). */
#define OMRU_RUN_DIR_MAX 255
#define OMRU_LOADER_CPUS_LIMIT 4096
#define OMRU_LOADER_MAX_LIMIT 256 /* omru-train's most loader workers */
#define OMRU_JOB_DIR_MB_LIMIT 4096
/* loader_share=: who gets a node's data-loader CPUs */
typedef enum {
	OMRU_LOADER_SHARE_NODE = 0, /* the node's spare CPUs, re-shared */
	OMRU_LOADER_SHARE_JOB,      /* each job within its own CPUs */
	OMRU_LOADER_SHARE_OFF       /* nothing written: jobs keep theirs */
} omru_loader_share_t;
typedef struct {
	omru_profile_mode_t default_profile; /* default_profile=, "auto" */
	uint32_t max_gpus; /* max_gpus=, 1..1024, default 1024 */
	/* run_dir=: where a job's node-local files live (the rows it
	 * measured, its metrics), one directory per job; absolute, default
	 * /run/slurm-omru */
	char run_dir[OMRU_RUN_DIR_MAX + 1];
	/* report_interval=: seconds between two looks at what a running job
	 * measured, 1..3600, default 15 */
	uint32_t report_interval_s;
	omru_loader_share_t loader_share; /* loader_share=, default node */
	/* loader_cpus=: the node's CPUs for loaders and trainers (node
	 * mode), 1..4096; 0 (default): the CPUs online */
	unsigned loader_cpus;
	/* loader_max=: most workers per task, 1..256, default 256 */
	unsigned loader_max;
	/* job_dir_mb=: the size of each job's directory under run_dir (a
	 * tmpfs of its own), 1..OMRU_JOB_DIR_MB_LIMIT MiB, default 16 */
	unsigned job_dir_mb;
} omru_spank_config_t;

/*
 * omru_spank_config_parse - parse plugstack.conf arguments strictly: each
 * must be key=value with a known key and a valid value; a key given twice
 * is an error.
 * IN  argc, argv - as SPANK passes them
 * OUT cfg - defaults overridden by the arguments
 * RET OMRU_OK or OMRU_EINVAL
 */
int omru_spank_config_parse(int argc, const char *const *argv,
			    omru_spank_config_t *cfg, char *err, size_t errlen);

/* omru_core_version - the version of this core, e.g. "0.1.0". */
const char *omru_core_version(void);

#ifdef __cplusplus
}
#endif

#endif /* OMRU_OMRU_H */
