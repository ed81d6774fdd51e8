/*
 * loader_share.c - remote context (slurmstepd, root): the data-loader CPU
 * share of every OMRU job step on this node (A-Dloader).
 *
 * Each step of an OMRU job (the batch step and every srun step) joins the
 * node's loader state (RUN_DIR/loader, libomru/loader) when it starts, in
 * init_post_opt, before its tasks exist: the node is re-shared and the
 * step's share file is written, so the trainer starts with its share.  The
 * tasks are told OMRU_LOADER_SHARE_FILE (one integer: loader workers per
 * task; omru-train follows it within a second) and OMRU_LOADER_REPORT
 * (where the trainer's first local task writes what it measures).  Both
 * live in a directory only the job's user and root can enter: the job's
 * directory for the batch step, RUN_DIR/jobID.stepS for the others.
 *
 * A thread of this slurmstepd reads the report every second; a new valid
 * one re-shares the node.  Every 10 seconds it re-shares anyway, which
 * removes the entries of slurmstepds that died without leaving.  At step
 * end the report is read once more (a trainer writes its last one as it
 * ends), the step leaves (re-sharing the rest), its last report goes to the
 * job's AdminComment as `loader=W:X:F:R` (the controller learns the
 * model's loader demand from it, select_omru_cons_tres(8) LoaderCpus) and
 * its directory goes.
 * Every failure is logged; the trainer then keeps the workers it has.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <slurm/slurm.h>

#include "omru/omru_loader.h"
#include "omru_spank.h"

#define RESHARE_EVERY_S 10

static struct {
	bool joined;
	bool own_dir;   /* the step's directory is ours to remove */
	uint32_t job_id, step_id;
	uid_t uid;
	char dir[OMRU_RUN_DIR_MAX + 64];
	char share[OMRU_RUN_DIR_MAX + 96];
	char report[OMRU_RUN_DIR_MAX + 96];
	struct timespec seen; /* mtime of the report last read */
	char field[128];      /* the last valid report as W:X:F:R, or "" */
	pthread_t thread;
	bool thread_started;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool stop;
} ls = { .lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER };

static void log_out(const char *what, int rc, const omru_loader_out_t *out)
{
	if (out->problems[0])
		slurm_error("%s: job %u step %u: loader shares (%s): %s",
			    OMRU_SPANK_NAME, ls.job_id, ls.step_id, what,
			    out->problems);
	if (rc == OMRU_OK && out->summary[0])
		slurm_info("%s: job %u step %u %s: loader workers per task %s",
			   OMRU_SPANK_NAME, ls.job_id, ls.step_id, what,
			   out->summary);
}

#define OUT_DECLARE(name)                                                      \
	char name##_summary[1024], name##_problems[1024];                      \
	omru_loader_out_t name = { name##_summary, sizeof(name##_summary),     \
				   name##_problems, sizeof(name##_problems) }

static bool training_step(uint32_t step_id)
{
	return step_id == SLURM_BATCH_SCRIPT || step_id < SLURM_MAX_NORMAL_STEP_ID;
}

extern int omru_loader_step_join(spank_t sp)
{
	uint32_t tasks = 0;
	uint16_t cpus = 0;
	gid_t gid;

	if (omru_config.loader_share == OMRU_LOADER_SHARE_OFF ||
	    !(omru_opts.set & OMRU_OPT_MODEL) ||
	    spank_get_item(sp, S_JOB_ID, &ls.job_id) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_STEPID, &ls.step_id) != ESPANK_SUCCESS ||
	    !training_step(ls.step_id) ||
	    spank_get_item(sp, S_JOB_UID, &ls.uid) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_GID, &gid) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_LOCAL_TASK_COUNT, &tasks) != ESPANK_SUCCESS)
		return 0;
	if (spank_get_item(sp, S_JOB_NCPUS, &cpus) != ESPANK_SUCCESS)
		cpus = 0;
	if (ls.step_id == SLURM_BATCH_SCRIPT) {
		if (!omru_job_dir())
			return 0; /* job_record.c said why */
		snprintf(ls.dir, sizeof(ls.dir), "%s", omru_job_dir());
	} else {
		snprintf(ls.dir, sizeof(ls.dir), "%s/job%u.step%u",
			 omru_config.run_dir, ls.job_id, ls.step_id);
		if (omru_user_dir_make(omru_config.run_dir, ls.dir, ls.uid, gid,
				       omru_config.job_dir_mb) != 0)
			return 0;
		ls.own_dir = true;
	}
	ls.field[0] = '\0';
	snprintf(ls.share, sizeof(ls.share), "%s/loader_share", ls.dir);
	snprintf(ls.report, sizeof(ls.report), "%s/loader_report", ls.dir);

	omru_loader_step_t step = {
		.job = ls.job_id, .step = ls.step_id, .pid = (long) getpid(),
		.uid = ls.uid, .tasks = tasks > 0 ? (int) tasks : 1,
		.job_cpus = cpus, .share_file = ls.share,
	};
	OUT_DECLARE(out);
	int rc = omru_loader_join(omru_config.run_dir, &omru_config, &step, &out);
	log_out("start", rc, &out);
	ls.joined = rc == OMRU_OK;
	return 0;
}

extern int omru_loader_task_env(spank_t sp)
{
	if (!ls.joined)
		return 0;
	if (spank_setenv(sp, "OMRU_LOADER_SHARE_FILE", ls.share, 1) != ESPANK_SUCCESS ||
	    spank_setenv(sp, "OMRU_LOADER_REPORT", ls.report, 1) != ESPANK_SUCCESS)
		slurm_error("%s: job %u: cannot tell the task its loader share",
			    OMRU_SPANK_NAME, ls.job_id);
	return 0;
}

/* The trainer's report, when it changed since the last look. */
static bool new_report(char *buf, size_t cap, size_t *len)
{
	int fd = open(ls.report, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return false;
	struct stat st;
	bool fresh = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
		     st.st_uid == ls.uid && (size_t) st.st_size < cap &&
		     (st.st_mtim.tv_sec != ls.seen.tv_sec ||
		      st.st_mtim.tv_nsec != ls.seen.tv_nsec);
	ssize_t n = fresh ? read(fd, buf, cap - 1) : -1;
	close(fd);
	if (n < 0)
		return false;
	buf[n] = '\0';
	*len = (size_t) n;
	ls.seen = st.st_mtim;
	return true;
}

/* A new report: re-shares the node with it and keeps it for the job's
 * record.  RET whether there was one. */
static bool take_report(omru_loader_out_t *out)
{
	char report[1024], field[sizeof(ls.field)];
	size_t len = 0;
	if (!new_report(report, sizeof(report), &len))
		return false;
	int rc = omru_loader_report(omru_config.run_dir, &omru_config, ls.job_id,
				    ls.step_id, report, len, out);
	log_out("report", rc, out);
	if (rc == OMRU_OK &&
	    omru_loader_report_field(report, len, field, sizeof(field)) == OMRU_OK) {
		pthread_mutex_lock(&ls.lock);
		memcpy(ls.field, field, sizeof(field));
		pthread_mutex_unlock(&ls.lock);
	}
	return true;
}

static void *watcher(void *arg)
{
	(void) arg;
	time_t last_reshare = time(NULL);
	pthread_mutex_lock(&ls.lock);
	while (!ls.stop) {
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += 1;
		while (!ls.stop &&
		       pthread_cond_timedwait(&ls.wake, &ls.lock, &until) != ETIMEDOUT)
			;
		if (ls.stop)
			break;
		pthread_mutex_unlock(&ls.lock);
		OUT_DECLARE(out);
		if (take_report(&out)) {
			last_reshare = time(NULL);
		} else if (time(NULL) - last_reshare >= RESHARE_EVERY_S) {
			int rc = omru_loader_reshare(omru_config.run_dir,
						     &omru_config, &out);
			if (out.problems[0])
				log_out("check", rc, &out);
			last_reshare = time(NULL);
		}
		pthread_mutex_lock(&ls.lock);
	}
	pthread_mutex_unlock(&ls.lock);
	return NULL;
}

extern int omru_loader_watch_start(void)
{
	if (!ls.joined || ls.thread_started)
		return 0;
	ls.stop = false;
	int rc = pthread_create(&ls.thread, NULL, watcher, NULL);
	if (rc != 0)
		slurm_error("%s: job %u: no loader watcher (%s); its share stays "
			    "as it started", OMRU_SPANK_NAME, ls.job_id, strerror(rc));
	else
		ls.thread_started = true;
	return 0;
}

extern int omru_loader_step_leave(void)
{
	if (!ls.joined)
		return 0;
	if (ls.thread_started) {
		pthread_mutex_lock(&ls.lock);
		ls.stop = true;
		pthread_cond_signal(&ls.wake);
		pthread_mutex_unlock(&ls.lock);
		pthread_join(ls.thread, NULL);
		ls.thread_started = false;
	}
	OUT_DECLARE(last);
	take_report(&last);
	OUT_DECLARE(out);
	int rc = omru_loader_leave(omru_config.run_dir, &omru_config, ls.job_id,
				   ls.step_id, &out);
	log_out("end", rc, &out);
	unlink(ls.share);
	unlink(ls.report);
	/* A job killed while writing its report the documented way (NAME.tmp,
	 * then renamed; omru-train does so) leaves the .tmp: without this the
	 * job's directory outlives it. */
	char tmp[sizeof(ls.report) + 8];
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", ls.report) < (int) sizeof(tmp))
		unlink(tmp);
	if (ls.field[0]) {
		const char *keys[] = { "loader" }, *values[] = { ls.field };
		omru_job_record_merge(ls.job_id, 1, keys, values);
	}
	if (ls.own_dir)
		(void) omru_user_dir_remove(omru_config.run_dir, ls.dir);
	ls.joined = false;
	return 0;
}
