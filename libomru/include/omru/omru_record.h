/*
 * omru_record.h - the job record in AdminComment (model/admin_comment.hpp)
 * and what a job measured (model/measured_rows.hpp), for spank_omru in
 * slurmstepd.  Nothing here throws; messages go into caller buffers
 * (NUL-terminated when errlen > 0).
 */
#ifndef OMRU_OMRU_RECORD_H
#define OMRU_OMRU_RECORD_H

#include <stddef.h>

#include "omru/omru.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * omru_record_get - the value of KEY in an AdminComment record.
 * RET 1 and the value in out (truncated to outlen), 0 when the record has
 * no such key or is not ours.
 */
int omru_record_get(const char *comment, const char *key, char *out,
		    size_t outlen);

/*
 * omru_record_merge - the AdminComment with n KEY=VALUE fields set (an
 * existing key keeps its place, a new one is appended); an admin's text
 * before "omru:" is kept.  A current text we cannot parse is kept as the
 * prefix.  The result is at most kMaxAdminComment characters.
 * RET OMRU_OK, or OMRU_EINVAL (bad key or value; out untouched).
 */
int omru_record_merge(const char *current, const char *const *keys,
		      const char *const *values, int n, char *out,
		      size_t outlen, char *err, size_t errlen);

/*
 * A record merge request: what a node sends as a job's AdminComment when
 * job_submit/omru runs in slurmctld ("omru-merge: KEY=VALUE ..."); the
 * plugin merges the fields into the current record under the job write
 * lock, so writers on several nodes never drop each other's fields.
 */
#define OMRU_RECORD_REQUEST_TAG "omru-merge:"

/*
 * omru_record_request - the request that merges n KEY=VALUE fields (the
 * same checks as omru_record_merge; at most kMaxAdminComment characters).
 * RET OMRU_OK, or OMRU_EINVAL (out untouched).
 */
int omru_record_request(const char *const *keys, const char *const *values,
			int n, char *out, size_t outlen, char *err,
			size_t errlen);

/* omru_record_is_request - 1 when TEXT is a merge request, else 0. */
int omru_record_is_request(const char *text);

/*
 * omru_record_merged_in_slurmctld - 1 when LIST (slurm.conf
 * JobSubmitPlugins, comma-separated, may be NULL) names job_submit/omru
 * ("omru" or "job_submit/omru"), else 0.  select/omru and spank_omru read
 * it the same way.
 */
int omru_record_merged_in_slurmctld(const char *list);

/*
 * omru_record_apply - CURRENT with the fields of REQUEST merged in, as
 * omru_record_merge would.  RET OMRU_OK, or OMRU_EINVAL (REQUEST is not a
 * request or carries anything but fields; out untouched).
 */
int omru_record_apply(const char *current, const char *request, char *out,
		      size_t outlen, char *err, size_t errlen);

/*
 * omru_record_replace - RECORD (a fresh "omru: ..." record) with the text
 * before "omru:" of CURRENT kept in front: what an admin or a job_submit
 * plugin wrote into the AdminComment stays when select/omru writes its
 * record at a job's start.  A CURRENT we cannot parse is kept whole.  The
 * result is at most kMaxAdminComment characters.
 * RET OMRU_OK, or OMRU_EINVAL (RECORD is not a record; out untouched).
 */
int omru_record_replace(const char *current, const char *record, char *out,
			size_t outlen, char *err, size_t errlen);

/*
 * omru_record_rows - the `rows` value ("4@1:12.5,...") for the profile CSV
 * a job wrote: rows of `model` only, counts within max_gpus / max_nodes.
 * RET OMRU_OK (out "" when the file has no row), or OMRU_EINVAL.
 */
int omru_record_rows(const char *csv, size_t len, const char *model,
		     int max_gpus, int max_nodes, char *out, size_t outlen,
		     char *err, size_t errlen);

/*
 * omru_record_phase - the `phase` value ("STEPS:FIRST:RECENT") for the
 * phase file omru-train keeps (one line "STEPS FIRST RECENT",
 * trainer/phase_tracker.hpp).  RET OMRU_OK, or OMRU_EINVAL (out untouched).
 */
int omru_record_phase(const char *text, size_t len, char *out, size_t outlen,
		      char *err, size_t errlen);

/*
 * omru_record_resumed - the `resumed_at` value (Unix seconds, whole) for
 * the resume file omru-train writes (one line: the Unix time its first
 * step after a resume ended).  RET OMRU_OK, or OMRU_EINVAL.
 */
int omru_record_resumed(const char *text, size_t len, char *out, size_t outlen,
			char *err, size_t errlen);

/*
 * omru_record_metrics - the end-of-job fields from omru-train's metrics
 * lines, as "epoch_s=.. epochs_done=.. samples_s=.. data_wait=.. workers=.."
 * (space separated KEY=VALUE, possibly empty).  RET OMRU_OK.
 */
int omru_record_metrics(const char *jsonl, size_t len, char *out,
			size_t outlen);

#ifdef __cplusplus
}
#endif

#endif /* OMRU_OMRU_RECORD_H */
