/*
 * slurm_api_compat.h - the libslurm API names spank_omru uses that changed
 * between the releases it builds for (22.05 to 26.05).  SPANK itself did
 * not change for what this plugin uses; the client calls around it did.
 * Public headers only (spank_omru needs no Slurm source tree).
 */
#ifndef OMRU_SLURM_API_COMPAT_H
#define OMRU_SLURM_API_COMPAT_H

#include <stdint.h>

#include <slurm/slurm.h>
#include <slurm/slurm_version.h>

#define OMRU_SLURM_AT_LEAST(major, minor) \
	(SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(major, minor, 0))

/* 23.11 made hostlist_t the struct, no longer a pointer to it. */
#if OMRU_SLURM_AT_LEAST(23, 11)
typedef hostlist_t *omru_hostlist_t;
#else
typedef hostlist_t omru_hostlist_t;
#endif

/* 26.05 names a job by a slurm_step_id_t in slurm_load_job. */
static inline int omru_load_job(job_info_msg_t **msg, uint32_t job_id,
				uint16_t show_flags)
{
#if OMRU_SLURM_AT_LEAST(26, 5)
	slurm_step_id_t id = SLURM_STEP_ID_INITIALIZER;
	id.job_id = job_id;
	return slurm_load_job(msg, id, show_flags);
#else
	return slurm_load_job(msg, job_id, show_flags);
#endif
}

/* 25.11 moved job_desc_msg_t's job_id into a step id. */
static inline void omru_job_desc_set_job(job_desc_msg_t *d, uint32_t job_id)
{
#if OMRU_SLURM_AT_LEAST(25, 11)
	d->step_id.job_id = job_id;
#else
	d->job_id = job_id;
#endif
}

/* 26.05 renamed slurm_free_ctl_conf. */
static inline void omru_free_ctl_conf(slurm_conf_t *conf)
{
#if OMRU_SLURM_AT_LEAST(26, 5)
	slurm_free_conf(conf);
#else
	slurm_free_ctl_conf(conf);
#endif
}

#endif
