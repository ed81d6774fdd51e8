/*
 * omru_loader.h - data-loader CPU shares of a node (A-Dloader), for
 * spank_omru in slurmstepd.  State lives in RUN_DIR/loader (root, 0700);
 * every call takes the node's lock, applies its change, re-shares the node
 * and rewrites the share files of the steps on it (see
 * libomru/loader/node_loader_state.hpp).
 *
 * Every call fills `summary` with the decision ("job12.4:3 job13.0:1
 * (pool 6)", for an info log) when it changed a share file (else ""),
 * and `problems` with what it had to clean up
 * or could not do ("" when nothing; for an error log).
 * RET OMRU_OK, OMRU_EINVAL (bad report: `problems` says why) or
 * OMRU_EINTERNAL (the state directory or its lock cannot be used).
 */
#ifndef OMRU_OMRU_LOADER_H
#define OMRU_OMRU_LOADER_H

#include <stddef.h>
#include <stdint.h>

#include "omru/omru.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
	uint32_t job;
	uint32_t step;
	long pid;          /* the slurmstepd whose life the entry follows */
	uint32_t uid;      /* the job's user */
	int tasks;         /* the step's tasks on this node, >= 1 */
	int job_cpus;      /* the job's CPUs on this node, 0: unknown */
	const char *share_file; /* absolute; rewritten at each re-share */
} omru_loader_step_t;

typedef struct {
	char *summary;
	size_t summary_len;
	char *problems;
	size_t problems_len;
} omru_loader_out_t;

int omru_loader_join(const char *run_dir, const omru_spank_config_t *cfg,
		     const omru_loader_step_t *step, omru_loader_out_t *out);
/* report: the trainer's report file as read ("workers=W samples_s=X
 * wait=F rate=R"); refused with OMRU_EINVAL when it is not valid. */
int omru_loader_report(const char *run_dir, const omru_spank_config_t *cfg,
		       uint32_t job, uint32_t step, const char *report,
		       size_t len, omru_loader_out_t *out);
int omru_loader_leave(const char *run_dir, const omru_spank_config_t *cfg,
		      uint32_t job, uint32_t step, omru_loader_out_t *out);
int omru_loader_reshare(const char *run_dir, const omru_spank_config_t *cfg,
			omru_loader_out_t *out);
/* The trainer's report as the job record's `loader` value, "W:X:F:R", into
 * field[cap].  RET OMRU_OK, or OMRU_EINVAL (field says why) for a report
 * omru_loader_report would refuse. */
int omru_loader_report_field(const char *report, size_t len, char *field,
			     size_t cap);

#ifdef __cplusplus
}
#endif

#endif /* OMRU_OMRU_LOADER_H */
