/*
 * job_record.c - remote context (slurmstepd of the batch step, root): what a
 * running OMRU job measures reaches slurmctld, and its summary reaches sacct.
 *
 * The job gets a directory only its user and root can write
 * (RUN_DIR/jobID, 0700, owned by the user; plugstack run_dir=).  Its
 * tasks are told OMRU_PROFILE_OUT (profile rows, the spec's CSV format) and
 * OMRU_METRICS_FILE (omru-train's epoch lines) inside it.  A thread of this
 * slurmstepd looks at the rows every report_interval seconds; new rows are
 * validated (the job's model, counts the job had) and merged into the job's
 * AdminComment as `rows=` with one update RPC (with `phase=`, the trainer's
 * training-phase signal, when OMRU_PHASE_FILE changed, and `resumed_at=`,
 * when a resumed run trains again, from OMRU_RESUME_FILE), where select/omru reads them
 * at its next re-plan.  Why AdminComment: nodes need not share a file
 * system with the controller, the RPC is authenticated (only root or
 * SlurmUser may set AdminComment, so a user cannot forge rows for their
 * jobs), and the same field is what sacct shows.  At step end the last rows
 * and the summary (metrics, real runtime) are merged in the same way,
 * before the job completes, so they reach sacct; then the directory goes.
 * The same thread samples the job's GPUs on this node (SLURM_JOB_GPUS)
 * through NVML every GPU_SAMPLE_S seconds; at the end their mean GPU and
 * memory-controller utilisation go into the record as `gpu_use=G:M:N`
 * (percent, N samples), the job's solo signals when it ran alone
 * (select/omru learns them; profile/interference_model.hpp).  A node
 * without NVML samples nothing (one verbose log line per job; omru-profile
 * gpu-use tells an admin why).
 * Every failure is logged and changes nothing for the job.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <slurm/slurm.h>

#include "omru/omru_gpu.h"
#include "omru/omru_record.h"
#include "omru_spank.h"

#define RECORD_MAX 1024
/* GPU utilisation is sampled this often (NVML averages over its own last
 * sample period, 1/6 s to 1 s): means over a run of minutes. */
#define GPU_SAMPLE_S 5

static struct {
	bool active;     /* batch step of an OMRU job, directory made */
	uint32_t job_id;
	uid_t uid;
	char dir[OMRU_RUN_DIR_MAX + 32];
	int gpus, nodes; /* the allocation (step_env.c) */
	time_t start;    /* the job's start time */
	char rows[RECORD_MAX]; /* last `rows` value sent */
	char phase[96];        /* last `phase` value sent */
	char resumed[32];      /* last `resumed_at` value sent */
	struct timespec seen; /* mtime of the rows file last read */
	off_t seen_size;
	char refused[256];    /* the last refusal of its rows said */
	pid_t task_pid;       /* the batch script's process, 0: not known */
	char gpu_list[256];   /* SLURM_JOB_GPUS; "" when none or not sampled */
	double gpu_sum, mem_sum; /* of the samples' means over the devices */
	long gpu_samples;
	pthread_t thread;
	bool thread_started;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool stop;
} rec = { .lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER };

static void path_of(char *buf, size_t len, const char *file)
{
	snprintf(buf, len, "%s/%s", rec.dir, file);
}

static bool batch_step_of_omru_job(spank_t sp, uint32_t *job_id)
{
	uint32_t step_id = 0;
	return (omru_opts.set & OMRU_OPT_MODEL) &&
	       spank_get_item(sp, S_JOB_ID, job_id) == ESPANK_SUCCESS &&
	       spank_get_item(sp, S_JOB_STEPID, &step_id) == ESPANK_SUCCESS &&
	       step_id == SLURM_BATCH_SCRIPT;
}

extern int omru_job_dir_create(spank_t sp)
{
	uint32_t job_id = 0;
	uid_t uid;
	gid_t gid;

	if (!batch_step_of_omru_job(sp, &job_id) ||
	    spank_get_item(sp, S_JOB_UID, &uid) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_GID, &gid) != ESPANK_SUCCESS)
		return 0;
	snprintf(rec.dir, sizeof(rec.dir), "%s/job%u", omru_config.run_dir, job_id);
	if (omru_user_dir_make(omru_config.run_dir, rec.dir, uid, gid,
			       omru_config.job_dir_mb) != 0) {
		slurm_error("%s: job %u: the job's measurements will not reach "
			    "the planner", OMRU_SPANK_NAME, job_id);
		return 0;
	}
	rec.job_id = job_id;
	rec.uid = uid;
	rec.active = true;
	return 0;
}

extern const char *omru_job_dir(void)
{
	return rec.active ? rec.dir : NULL;
}

extern void omru_job_record_alloc(int gpus, int nodes, time_t start)
{
	rec.gpus = gpus;
	rec.nodes = nodes;
	rec.start = start;
}

/*
 * Reads a file of the job's directory as root, safely: no links, a regular
 * file owned by the job's user, at most `cap - 1` bytes.  A larger file is
 * refused, or with `tail` read from its end: its last `cap - 1` bytes from
 * the first whole line in them (a long run's metrics.jsonl, a line per
 * epoch, outgrows any cap, and its summary comes from the newest lines).
 * RET bytes read, or -1 (missing, or refused; refusals are logged).
 */
static ssize_t read_job_file(const char *file, char *buf, size_t cap,
			     struct stat *st_out, bool tail)
{
	char path[sizeof(rec.dir) + 32];
	path_of(path, sizeof(path), file);
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	struct stat st;
	ssize_t got = -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != rec.uid ||
	    (!tail && (size_t) st.st_size >= cap)) {
		slurm_error("%s: job %u: %s is not a regular file of the job's "
			    "user below %zu bytes; ignored", OMRU_SPANK_NAME,
			    rec.job_id, path, cap);
	} else {
		off_t from = st.st_size >= (off_t) cap ? st.st_size - (off_t) (cap - 1) : 0;
		size_t n = 0;
		ssize_t r;
		if (lseek(fd, from, SEEK_SET) == from) {
			while (n < cap - 1 && (r = read(fd, buf + n, cap - 1 - n)) > 0)
				n += (size_t) r;
			buf[n] = '\0';
			if (from > 0) { /* its first line is cut: skip it */
				char *nl = memchr(buf, '\n', n);
				size_t skip = nl ? (size_t) (nl - buf) + 1 : n;
				memmove(buf, buf + skip, n - skip + 1);
				n -= skip;
			}
			got = (ssize_t) n;
			if (st_out)
				*st_out = st;
		}
	}
	close(fd);
	return got;
}

static void update_record(int n, const char *const *keys,
			  const char *const *values)
{
	omru_job_record_merge(rec.job_id, n, keys, values);
}

/*
 * Says LINE on the job's standard error, where its user reads its output:
 * appended to what the batch script's fd 2 is open on (/proc/PID/fd/2, a
 * file slurmstepd opened for the job), nothing when the script is gone.
 */
static void tell_job(const char *line)
{
	char path[64];
	if (rec.task_pid <= 0)
		return;
	snprintf(path, sizeof(path), "/proc/%d/fd/2", (int) rec.task_pid);
	int fd = open(path, O_WRONLY | O_APPEND | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t w = write(fd, line, strlen(line));
	(void) w; /* best effort: the record has it too */
	close(fd);
}

/*
 * Rows refused (ERR): once per distinct refusal, in the job's record
 * (`rows_refused=`, blanks as '_') and on its standard error, beside
 * slurmd's log.
 */
static void say_refused(const char *err)
{
	char value[224], line[400];
	slurm_error("%s: job %u: profile rows refused: %s", OMRU_SPANK_NAME, rec.job_id, err);
	if (strncmp(err, rec.refused, sizeof(rec.refused) - 1) == 0)
		return;
	snprintf(rec.refused, sizeof(rec.refused), "%.255s", err);
	snprintf(value, sizeof(value), "%.223s", err); /* cut: it is a hint */
	for (char *p = value; *p; p++)
		if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			*p = '_';
	const char *key = "rows_refused", *val = value;
	update_record(1, &key, &val);
	snprintf(line, sizeof(line),
		 "spank_omru: job %u: the profile rows in $OMRU_PROFILE_OUT were refused, "
		 "the planner did not get them: %.250s\n",
		 rec.job_id, err);
	tell_job(line);
}

/* The `rows` value when the rows file changed and its rows did; else NULL. */
static const char *new_rows(char *out, size_t outlen)
{
	static char csv[64 * 1024];
	struct stat st;
	char err[512];

	ssize_t n = read_job_file("profile.csv", csv, sizeof(csv), &st, false);
	if (n < 0)
		return NULL;
	if (st.st_mtim.tv_sec == rec.seen.tv_sec &&
	    st.st_mtim.tv_nsec == rec.seen.tv_nsec && st.st_size == rec.seen_size)
		return NULL;
	rec.seen = st.st_mtim;
	rec.seen_size = st.st_size;
	if (omru_record_rows(csv, (size_t) n, omru_opts.model, rec.gpus,
			     rec.nodes, out, outlen, err, sizeof(err)) != OMRU_OK) {
		say_refused(err);
		return NULL;
	}
	if (!*out || strcmp(out, rec.rows) == 0)
		return NULL;
	snprintf(rec.rows, sizeof(rec.rows), "%s", out);
	return out;
}

/* A one-line file of the trainer's, checked by the core (omru_record.h). */
typedef int (*line_check_fn)(const char *text, size_t len, char *out,
			     size_t outlen, char *err, size_t errlen);

/*
 * The record value for the job's FILE (below `cap` bytes, at most 256) when
 * it says something new (not the `last` value sent, which it then
 * becomes); NULL otherwise.  A file that does not pass `check` is logged
 * and sends nothing.
 */
static const char *new_line_value(const char *file, size_t cap,
				  line_check_fn check, char *last,
				  size_t lastlen, char *out, size_t outlen)
{
	char text[256], err[256];
	ssize_t n = read_job_file(file, text, cap < sizeof(text) ? cap : sizeof(text),
				  NULL, false);
	if (n <= 0)
		return NULL;
	if (check(text, (size_t) n, out, outlen, err, sizeof(err)) != OMRU_OK) {
		slurm_error("%s: job %u: %s", OMRU_SPANK_NAME, rec.job_id, err);
		return NULL;
	}
	if (strcmp(out, last) == 0)
		return NULL;
	snprintf(last, lastlen, "%s", out);
	return out;
}

/* The `phase` value when the trainer's phase file says something new. */
static const char *new_phase(char *out, size_t outlen)
{
	return new_line_value("phase", 256, omru_record_phase, rec.phase,
			      sizeof(rec.phase), out, outlen);
}

/* The `resumed_at` value when a resumed run said it trains again. */
static const char *new_resumed(char *out, size_t outlen)
{
	return new_line_value("resumed", 64, omru_record_resumed, rec.resumed,
			      sizeof(rec.resumed), out, outlen);
}

static void forward_measurements(void)
{
	char rows[RECORD_MAX], phase[96], resumed[32];
	const char *keys[3], *values[3];
	int n = 0;
	if ((values[n] = new_rows(rows, sizeof(rows))))
		keys[n++] = "rows";
	if ((values[n] = new_phase(phase, sizeof(phase))))
		keys[n++] = "phase";
	if ((values[n] = new_resumed(resumed, sizeof(resumed))))
		keys[n++] = "resumed_at";
	if (n > 0)
		update_record(n, keys, values);
}

/* One sample of the job's GPUs on this node, added to the sums; the first
 * failure is logged and ends the job's sampling (no NVML, no such GPU). */
static void sample_gpus(void)
{
	if (!rec.gpu_list[0])
		return;
	double g = 0, m = 0;
	char err[256];
	if (omru_gpu_sample(rec.gpu_list, &g, &m, err, sizeof(err)) > 0) {
		rec.gpu_sum += g;
		rec.mem_sum += m;
		rec.gpu_samples++;
		return;
	}
	slurm_verbose("%s: job %u: GPUs %s not sampled (%s)", OMRU_SPANK_NAME, rec.job_id,
		      rec.gpu_list, err);
	rec.gpu_list[0] = '\0';
}

static void *reporter(void *arg)
{
	(void) arg;
	struct timespec next_report;
	clock_gettime(CLOCK_REALTIME, &next_report);
	next_report.tv_sec += omru_config.report_interval_s;
	pthread_mutex_lock(&rec.lock);
	while (!rec.stop) {
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += GPU_SAMPLE_S;
		if (until.tv_sec > next_report.tv_sec)
			until = next_report;
		while (!rec.stop &&
		       pthread_cond_timedwait(&rec.wake, &rec.lock, &until) != ETIMEDOUT)
			;
		if (rec.stop)
			break;
		pthread_mutex_unlock(&rec.lock);
		sample_gpus();
		struct timespec now;
		clock_gettime(CLOCK_REALTIME, &now);
		if (now.tv_sec >= next_report.tv_sec) {
			forward_measurements();
			next_report.tv_sec = now.tv_sec + omru_config.report_interval_s;
		}
		pthread_mutex_lock(&rec.lock);
	}
	pthread_mutex_unlock(&rec.lock);
	return NULL;
}

extern int omru_job_reporter_start(spank_t sp)
{
	uint32_t job_id = 0;
	if (!rec.active || rec.thread_started || !batch_step_of_omru_job(sp, &job_id))
		return 0;
	rec.gpu_sum = rec.mem_sum = 0;
	rec.gpu_samples = 0;
	rec.refused[0] = '\0';
	if (spank_get_item(sp, S_TASK_PID, &rec.task_pid) != ESPANK_SUCCESS)
		rec.task_pid = 0;
	if (spank_getenv(sp, "SLURM_JOB_GPUS", rec.gpu_list, sizeof(rec.gpu_list)) !=
	    ESPANK_SUCCESS)
		rec.gpu_list[0] = '\0';
	rec.stop = false;
	int rc = pthread_create(&rec.thread, NULL, reporter, NULL);
	if (rc != 0)
		slurm_error("%s: job %u: no reporter thread (%s); rows reach the "
			    "planner at job end only", OMRU_SPANK_NAME, rec.job_id,
			    strerror(rc));
	else
		rec.thread_started = true;
	return 0;
}

/* Whole, with whatever the job put there (loader_share.c left first). */
static void remove_job_dir(void)
{
	(void) omru_user_dir_remove(omru_config.run_dir, rec.dir);
}

/* "k=v k=v" into the arrays (pointing into `buf`, modified). RET count. */
static int split_fields(char *buf, const char **keys, const char **values, int max)
{
	int n = 0;
	for (char *save = NULL, *tok = strtok_r(buf, " ", &save); tok && n < max;
	     tok = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(tok, '=');
		if (!eq)
			continue;
		*eq = '\0';
		keys[n] = tok;
		values[n++] = eq + 1;
	}
	return n;
}

extern int omru_job_record_finish(spank_t sp)
{
	time_t job_start = rec.start;
	uint32_t job_id = 0;
	if (!rec.active || !batch_step_of_omru_job(sp, &job_id))
		return 0;
	if (rec.thread_started) {
		pthread_mutex_lock(&rec.lock);
		rec.stop = true;
		pthread_cond_signal(&rec.wake);
		pthread_mutex_unlock(&rec.lock);
		pthread_join(rec.thread, NULL);
		rec.thread_started = false;
	}

	static char jsonl[64 * 1024];
	char summary[512] = "", rows[RECORD_MAX], real[32], phase[96], gpu_use[64];
	const char *keys[16], *values[16];
	int n = 0;

	if (new_rows(rows, sizeof(rows))) {
		keys[n] = "rows";
		values[n++] = rows;
	}
	if (new_phase(phase, sizeof(phase))) {
		keys[n] = "phase";
		values[n++] = phase;
	}
	ssize_t len = read_job_file("metrics.jsonl", jsonl, sizeof(jsonl), NULL, true);
	if (len > 0) {
		omru_record_metrics(jsonl, (size_t) len, summary, sizeof(summary));
		n += split_fields(summary, keys + n, values + n, 11);
	}
	if (job_start > 0 && time(NULL) >= job_start) {
		snprintf(real, sizeof(real), "%ld", (long) (time(NULL) - job_start));
		keys[n] = "real_s";
		values[n++] = real;
	}
	if (rec.gpu_samples > 0) {
		snprintf(gpu_use, sizeof(gpu_use), "%.1f:%.1f:%ld",
			 rec.gpu_sum / rec.gpu_samples, rec.mem_sum / rec.gpu_samples,
			 rec.gpu_samples);
		keys[n] = "gpu_use";
		values[n++] = gpu_use;
	}
	if (n > 0)
		update_record(n, keys, values);
	remove_job_dir();
	rec.active = false;
	return 0;
}
