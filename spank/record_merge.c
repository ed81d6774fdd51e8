/*
 * record_merge.c - remote context (slurmstepd, root): KEY=VALUE fields
 * merged into a job's AdminComment record without losing another writer's.
 *
 * Several writers share one job's record (libomru/model/admin_comment.hpp):
 * the batch step's reporter thread and its summary at the end, and every
 * step's loader report at its end, on every node of the step.  Slurm
 * replaces AdminComment whole on an update and has no compare-and-swap.
 *
 * When slurmctld runs job_submit/omru (JobSubmitPlugins has "omru"), a
 * writer sends only its fields, as a merge request, and the plugin merges
 * them under the job write lock: one RPC, nothing read, nothing lost.
 * slurmstepd's slurm.conf says whether it runs (find_merge_path).
 *
 * Without it each writer reads the line, merges its keys in and writes the
 * whole line back, so two writers that read the same line drop each
 * other's keys.  Seen: step 0's loader report, written 6 ms after the
 * batch step's summary (srun returns before its slurmstepd's spank exit
 * runs), put back the line without epochs_done.  So, as a fallback:
 *   - writers of one job on one node take turns: an OFD lock on byte
 *     JOB_ID of RUN_DIR/record.lock (per open file, so the threads of one
 *     slurmstepd exclude each other as well as other slurmstepds);
 *   - a writer reads the line again after writing and merges once more
 *     when its values are gone (a writer on another node wrote over them);
 *     merging is idempotent, so "nothing to change" is the check.
 *   Writers on different nodes can still lose a field when they overwrite
 *   each other more than WRITES_MAX times in a row; logged.
 */
#define _GNU_SOURCE /* F_OFD_SETLK */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <slurm/slurm.h>

#include "slurm_api_compat.h"

#include "omru/omru_record.h"
#include "omru_spank.h"

#define RECORD_LINE_MAX 1100
#define LOCK_WAIT_S 10     /* a writer stuck in an RPC holds it this long */
#define WRITES_MAX 3       /* one, and two more after other nodes' writes */

/* RET an fd holding the job's byte of the node's lock file, or -1. */
static int lock_job(uint32_t job_id)
{
	char path[OMRU_RUN_DIR_MAX + 32];
	snprintf(path, sizeof(path), "%s/record.lock", omru_config.run_dir);
	int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		slurm_error("%s: job %u: %s: %s; its record is written unlocked",
			    OMRU_SPANK_NAME, job_id, path, strerror(errno));
		return -1;
	}
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
			    .l_start = (off_t) job_id, .l_len = 1 };
	const struct timespec pause = { 0, 50 * 1000 * 1000 };
	for (int i = 0; i < LOCK_WAIT_S * 20; i++) {
		if (fcntl(fd, F_OFD_SETLK, &fl) == 0)
			return fd;
		if (errno != EAGAIN && errno != EACCES && errno != EINTR)
			break;
		nanosleep(&pause, NULL);
	}
	slurm_error("%s: job %u: no turn on %s (%s); its record is written "
		    "unlocked", OMRU_SPANK_NAME, job_id, path, strerror(errno));
	close(fd);
	return -1;
}

/*
 * One round: the current line, `keys` merged in, written back when that
 * changes it and `may_write`.  RET 1 written, 0 nothing to change, 2 a
 * change needed but not written, -1 failed (logged).
 */
static int merge_once(uint32_t job_id, int n, const char *const *keys,
		      const char *const *values, bool may_write)
{
	job_info_msg_t *msg = NULL;
	char merged[RECORD_LINE_MAX], err[256];

	if (omru_load_job(&msg, job_id, 0) != SLURM_SUCCESS || !msg ||
	    msg->record_count < 1) {
		slurm_error("%s: job %u: cannot read its record from slurmctld: %s",
			    OMRU_SPANK_NAME, job_id,
			    slurm_strerror(errno));
		if (msg)
			slurm_free_job_info_msg(msg);
		return -1;
	}
	const char *cur = msg->job_array[0].admin_comment;
	int rc = omru_record_merge(cur, keys, values, n, merged, sizeof(merged),
				   err, sizeof(err));
	bool same = rc == OMRU_OK && cur && strcmp(cur, merged) == 0;
	slurm_free_job_info_msg(msg);
	if (rc != OMRU_OK) {
		slurm_error("%s: job %u: %s", OMRU_SPANK_NAME, job_id, err);
		return -1;
	}
	if (same)
		return 0;
	if (!may_write)
		return 2;
	job_desc_msg_t d;
	slurm_init_job_desc_msg(&d);
	omru_job_desc_set_job(&d, job_id);
	d.admin_comment = merged;
	if (slurm_update_job(&d) != SLURM_SUCCESS) {
		slurm_error("%s: job %u: cannot update its AdminComment: %s",
			    OMRU_SPANK_NAME, job_id,
			    slurm_strerror(errno));
		return -1;
	}
	return 1;
}

/*
 * slurmstepd's own copy of slurm.conf: libslurmfull exports it, and this
 * plugin links no libslurm of its own, so the name is the host's.  Weak:
 * a host without it leaves the address NULL and slurmctld is asked (as
 * from 24.11, whose slurmstepd's copy lacks JobSubmitPlugins): once, when
 * the step starts (omru_job_record_merge_path).  No RPC at a step's end:
 * the steps' last fields must reach slurmctld before the job ends (a round
 * trip more lost them in CI, loader.test).
 */
extern slurm_conf_t slurm_conf __attribute__((weak));

/* Whether slurmctld merges requests (job_submit/omru), found once. */
static pthread_once_t merged_once = PTHREAD_ONCE_INIT;
static bool merged_in_slurmctld;

static void find_merge_path(void)
{
	slurm_conf_t *conf = NULL;
	const char *list;
	/* From 24.11 slurmd gives slurmstepd a slurm.conf without
	 * JobSubmitPlugins (slurmstepd_init.c packs what steps use). */
	if (&slurm_conf && slurm_conf.job_submit_plugins) {
		list = slurm_conf.job_submit_plugins;
	} else if (slurm_load_ctl_conf((time_t) 0, &conf) == SLURM_SUCCESS && conf) {
		list = conf->job_submit_plugins;
	} else {
		slurm_error("%s: cannot read slurmctld's configuration (%s); job "
			    "records are merged on the node", OMRU_SPANK_NAME,
			    slurm_strerror(errno));
		return;
	}
	merged_in_slurmctld = omru_record_merged_in_slurmctld(list);
	if (conf)
		omru_free_ctl_conf(conf);
	if (!merged_in_slurmctld)
		slurm_info("%s: JobSubmitPlugins has no omru: job records are "
			   "merged on the node (writers on other nodes may lose "
			   "a field; see job_submit_omru(8))", OMRU_SPANK_NAME);
}

extern void omru_job_record_merge_path(void)
{
	pthread_once(&merged_once, find_merge_path);
}

/* One request for slurmctld to merge; failures logged. */
static void send_request(uint32_t job_id, int n, const char *const *keys,
			 const char *const *values)
{
	char request[RECORD_LINE_MAX], err[256];
	if (omru_record_request(keys, values, n, request, sizeof(request), err,
				sizeof(err)) != OMRU_OK) {
		slurm_error("%s: job %u: %s", OMRU_SPANK_NAME, job_id, err);
		return;
	}
	job_desc_msg_t d;
	slurm_init_job_desc_msg(&d);
	omru_job_desc_set_job(&d, job_id);
	d.admin_comment = request;
	if (slurm_update_job(&d) != SLURM_SUCCESS) {
		slurm_error("%s: job %u: slurmctld did not merge %s=%s into its "
			    "AdminComment: %s", OMRU_SPANK_NAME, job_id, keys[0],
			    values[0], slurm_strerror(errno));
	}
}

extern void omru_job_record_merge(uint32_t job_id, int n,
				  const char *const *keys,
				  const char *const *values)
{
	omru_job_record_merge_path();
	if (merged_in_slurmctld) {
		send_request(job_id, n, keys, values);
		return;
	}
	int fd = lock_job(job_id);
	int writes = 0, rc;
	while ((rc = merge_once(job_id, n, keys, values, writes < WRITES_MAX)) == 1)
		writes++;
	if (rc == 2)
		slurm_error("%s: job %u: its AdminComment was written over %d "
			    "times in a row; %s=%s is lost", OMRU_SPANK_NAME,
			    job_id, writes, keys[0], values[0]);
	if (fd >= 0)
		close(fd); /* releases the lock */
}
