/*
 * job_submit_omru.c - job_submit/omru: the one writer of slurm-omru's job
 * records in AdminComment besides select/omru itself.
 *
 * The nodes of a job (spank_omru in every slurmstepd: the batch step's
 * reporter, each step's loader report) add fields to the job's record
 * while it runs.  Slurm replaces AdminComment whole on an update and has
 * no compare-and-swap, so writers that read, merge and write back from
 * different nodes drop each other's fields.  With this plugin a node sends
 * only its fields, as a merge request ("omru-merge: KEY=VALUE ...",
 * omru/omru_record.h), and job_modify() merges them into the record as it
 * is at that moment.  slurmctld calls job_modify() from update_job() with
 * the job write lock held (job_mgr.c, doc/slurm-facts.md), so merges are
 * serialised: no field is lost, and text an admin put in front is kept.
 *
 * Only an operator may change AdminComment: slurmctld refuses the update
 * before job_modify() runs for anyone else, so a user cannot send a
 * request.  A request that is not fields only is refused with an error
 * line; any other AdminComment passes through untouched, as do
 * submissions.
 */
#include "config.h"

#include "src/common/slurm_xlator.h"

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "slurm_compat.h"
#include "omru/omru_record.h"

/* Identity read by Slurm's plugin loader. */
const char plugin_name[] = "slurm-omru job records merged in slurmctld";
const char plugin_type[] = "job_submit/omru";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/* A record is at most 1,000 characters (kMaxAdminComment); room to spare. */
#define RECORD_OUT_MAX 1100

extern int init(void)
{
	debug("%s: slurm-omru %s: nodes' record fields are merged here",
	      plugin_type, OMRU_VERSION);
	return SLURM_SUCCESS;
}

extern int fini(void)
{
	return SLURM_SUCCESS;
}

extern int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid,
		      char **err_msg)
{
	(void) job_desc;
	(void) submit_uid;
	(void) err_msg;
	return SLURM_SUCCESS;
}

/* 23.02 gave job_modify the err_msg job_submit has (a refusal's text for
 * the user); the merge's refusals are for the admin's log either way. */
#if OMRU_SLURM_AT_LEAST(23, 2)
extern int job_modify(job_desc_msg_t *job_desc, job_record_t *job_ptr,
		      uint32_t submit_uid, char **err_msg)
#else
extern int job_modify(job_desc_msg_t *job_desc, job_record_t *job_ptr,
		      uint32_t submit_uid)
#endif
{
	if (!job_desc || !job_ptr || !omru_record_is_request(job_desc->admin_comment))
		return SLURM_SUCCESS;
	char merged[RECORD_OUT_MAX], err[256];
	if (omru_record_apply(job_ptr->admin_comment, job_desc->admin_comment,
			      merged, sizeof(merged), err,
			      sizeof(err)) != OMRU_OK) {
		error("%s: %pJ: record merge request from uid %u refused: %s",
		      plugin_type, job_ptr, submit_uid, err);
		return SLURM_ERROR;
	}
	xfree(job_desc->admin_comment);
	job_desc->admin_comment = xstrdup(merged);
	return SLURM_SUCCESS;
}
