/*
 * background_sync.c - select/omru's own thread in slurmctld: the plans and
 * their priorities, what running jobs reported, the profile store's saves,
 * pipeline splits' factors and elastic stops, all off slurmctld's
 * scheduling path.
 */
#include "plan_glue.h"

#include <string.h>

#include "src/slurmctld/locks.h"

/* slurmctld's: a scheduling pass soon (slurmctld.h), and one now
 * (job_scheduler.h; doc/slurm-facts.md section 14). */
extern void queue_job_scheduler(void) __attribute__((weak));
extern void schedule(bool full_queue) __attribute__((weak));

/*
 * The profile store is written by this thread, never by slurmctld's own
 * threads: take what changed under the lock, write it without the lock
 * (merged with what omru-profile changed on disk), install the result.
 */
#define STORE_SYNC_S 5
static pthread_t store_thread;
static bool store_thread_running = false;
static bool store_stop = false;
static pthread_cond_t store_wake = PTHREAD_COND_INITIALIZER;

/*
 * Rows the nodes of running jobs reported (AdminComment rows=) are learned
 * here too, not only when slurmctld asks job_test: with nothing pending no
 * plan is made, but the store must still have them within seconds.
 */
typedef struct {
	uint32_t job_id, uid;
	job_gpus_t g;
	int nodes;
	char *comment;
} reported_t;

static void learn_reported_rows(void)
{
	slurmctld_lock_t job_read = { .job = READ_LOCK };
	reported_t *r = NULL;
	int n = 0, cap = 0;

	if (!job_list || !lock_slurmctld)
		return;
	lock_slurmctld(job_read);
	list_itr_t *it = list_iterator_create(job_list);
	job_record_t *job_ptr;
	while ((job_ptr = list_next(it))) {
		if (!IS_JOB_RUNNING(job_ptr) || !job_ptr->admin_comment ||
		    !strstr(job_ptr->admin_comment, " rows="))
			continue;
		job_gpus_t g;
		if (!job_gpu_request(job_ptr, &g))
			continue;
		job_options(job_ptr, &g);
		if (!g.opts.set)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			xrecalloc(r, cap, sizeof(*r));
		}
		r[n].job_id = job_ptr->job_id;
		r[n].uid = job_ptr->user_id;
		r[n].g = g;
		r[n].nodes = (int) job_ptr->node_cnt;
		r[n++].comment = xstrdup(job_ptr->admin_comment);
	}
	list_iterator_destroy(it);
	unlock_slurmctld(job_read);

	slurm_mutex_lock(&plan_lock);
	for (int i = 0; i < n; i++) {
		if (ctl && omru_ctl_job_rows(ctl, r[i].job_id, r[i].uid, &r[i].g.opts,
					     r[i].g.gpus, r[i].nodes, r[i].comment))
			dirty = true;
		xfree(r[i].comment);
	}
	slurm_mutex_unlock(&plan_lock);
	xfree(r);
}

static void store_sync_once(void)
{
	char err[1024];
	slurm_mutex_lock(&plan_lock);
	omru_store_batch_t *b = ctl ? omru_ctl_store_take(ctl) : NULL;
	slurm_mutex_unlock(&plan_lock);
	if (!b)
		return;
	if (omru_store_batch_save(b, err, sizeof(err)) != OMRU_OK)
		error("%s: profile store: %s", plugin_type, err);
	else if (omru_store_batch_from_disk(b))
		info("%s: profile store changed on disk (omru-profile): plans "
		     "use what it holds now", plugin_type);
	slurm_mutex_lock(&plan_lock);
	if (ctl) {
		/* Re-plan with what omru-profile or the jobs changed. */
		if (omru_ctl_store_install(ctl, b))
			dirty = true;
	} else {
		omru_ctl_store_install(NULL, b); /* frees it */
	}
	slurm_mutex_unlock(&plan_lock);
}

/*
 * Pipeline splits' factors (LayerProfileDir=) the plans missed, computed
 * here without plan_lock (a partition may take a second); the next plan
 * uses them.  A few batches per pass keep the thread's other work going.
 */
static void gains_sync_once(void)
{
	for (int round = 0; round < 4; round++) {
		slurm_mutex_lock(&plan_lock);
		omru_gain_batch_t *b = ctl ? omru_ctl_gains_take(ctl) : NULL;
		slurm_mutex_unlock(&plan_lock);
		if (!b)
			return;
		double t0 = mono_now();
		omru_gain_batch_compute(b);
		double ms = 1e3 * (mono_now() - t0);
		slurm_mutex_lock(&plan_lock);
		int n = omru_ctl_gains_install(ctl, b);
		if (n > 0)
			dirty = true;
		slurm_mutex_unlock(&plan_lock);
		if (n > 0)
			info("%s: pipeline splits: %d factor(s) computed in %.0f ms; "
			     "plans use them from now on", plugin_type, n, ms);
	}
}

/*
 * The plans: made here, never inside slurmctld's scheduling cycles (whose
 * job_test calls only read the last plan's answers and ask for the next,
 * want_plan), under slurmctld's locks taken in its own order (them first,
 * then plan_lock), between its cycles.  After a plan: the jobs' priorities
 * in its order (plan_priority.c), the elastic stops it decided, and a
 * scheduling pass, so its starts do not wait for slurmctld's next event or
 * sched_interval.  With nothing pending slurmctld never calls job_test, yet
 * a job's end may leave GPUs a running elastic job should grow into: the
 * plan comes here all the same.
 */
static void plan_tick(void)
{
	slurmctld_lock_t locks = { .job = WRITE_LOCK, .node = READ_LOCK,
				   .part = READ_LOCK };

	if (!lock_slurmctld)
		return;
	/* slurmctld's write lock only when a plan is due (looked at first
	 * under plan_lock alone, which must not be held while taking it). */
	slurm_mutex_lock(&plan_lock);
	bool due = plan_wanted_now(mono_now()) || planned_since_stops;
	slurm_mutex_unlock(&plan_lock);
	if (!due)
		return;
	lock_slurmctld(locks);
	slurm_mutex_lock(&plan_lock);
	double t = mono_now();
	bool planned = false;
	int starts_now = 0;
	if (plan_wanted_now(t)) {
		dirty = false;
		replan_now = false;
		plan_wanted = false;
		last_plan_at = t;
		starts_now = replan(time(NULL));
		planned = true;
	}
	plan_priority_write(); /* no cycle runs: this thread holds the lock */
	bool send = planned_since_stops && settings.elastic;
	planned_since_stops = false;
	slurm_mutex_unlock(&plan_lock);
	if (send)
		omru_elastic_after_plan(ctl, &plan_lock);
	unlock_slurmctld(locks);
	/*
	 * A plan that starts jobs now asks for a scheduling pass now:
	 * queue_job_scheduler() waits for slurmctld's background loop and
	 * batch_sched_delay (3 s by default), so a job submitted to an idle
	 * cluster started 1-3 s later than under cons_tres, which starts it in
	 * the submit RPC (demo: 5 of 8 jobs; with 10-60 s jobs that made them
	 * later than backfill).  schedule() wakes the scheduler thread, which
	 * keeps SchedulerParameters=sched_min_interval between passes.
	 */
	if (starts_now > 0 && schedule)
		schedule(false);
	else if (planned && queue_job_scheduler)
		queue_job_scheduler();
}

/* The thread: plans as soon as one is wanted (woken) or due (it sleeps
 * until then, a second at most), the rest every STORE_SYNC_S. */
static void *store_sync(void *arg)
{
	double last_sync = 0;

	(void) arg;
	slurm_mutex_lock(&plan_lock);
	while (!store_stop) {
		/* A millisecond at least: never a busy loop. */
		double wait = MAX(MIN(plan_wait_s(mono_now()), 1.0), 0.001);
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		long ns = until.tv_nsec + (long) (wait * 1e9);
		until.tv_sec += ns / 1000000000L;
		until.tv_nsec = ns % 1000000000L;
		pthread_cond_timedwait(&store_wake, &plan_lock, &until);
		if (store_stop)
			break;
		slurm_mutex_unlock(&plan_lock);
		plan_tick();
		if (mono_now() - last_sync >= STORE_SYNC_S) {
			last_sync = mono_now();
			learn_reported_rows();
			store_sync_once();
			gains_sync_once();
		}
		slurm_mutex_lock(&plan_lock);
	}
	slurm_mutex_unlock(&plan_lock);
	return NULL;
}

extern void omru_sync_wake(void)
{
	pthread_cond_signal(&store_wake);
}

extern void omru_sync_start(void)
{
	store_stop = false;
	if (pthread_create(&store_thread, NULL, store_sync, NULL) == 0)
		store_thread_running = true;
	else
		error("%s: no profile store thread: what jobs measure is used "
		      "but not saved", plugin_type);
}

extern void omru_sync_stop(void)
{
	if (!store_thread_running)
		return;
	slurm_mutex_lock(&plan_lock);
	store_stop = true;
	pthread_cond_signal(&store_wake);
	slurm_mutex_unlock(&plan_lock);
	pthread_join(store_thread, NULL);
	store_thread_running = false;
	store_sync_once(); /* what the last seconds learned */
}
