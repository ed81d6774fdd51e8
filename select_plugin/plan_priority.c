/*
 * plan_priority.c - the plan's order as the pending jobs' priorities, so
 * that slurmctld's own loops do the least work (issue 29).
 *
 * slurmctld's main scheduler tests pending jobs by priority and, when one
 * is refused, skips the rest of its partition (doc/slurm-facts.md, section
 * 1).  Given the plan's order as priorities, a cycle tests the jobs the
 * plan starts now, then the jobs outside the plan, then the first job the
 * plan holds back, which blocks its partition again: every other held job
 * is skipped without a job_test call, as cons_tres's cycle stops at the
 * first job that does not fit.  Three bands:
 *
 *   starts now     top - i                 above every priority Slurm's
 *                                          own factors give: top is
 *                                          0xfffffffe under priority/basic
 *                                          (which counts down from
 *                                          0xffff0000), 2^31 - 1 under
 *                                          multifactor (a site factor adds
 *                                          at most that; sites' weights
 *                                          sum far below it)
 *   outside        untouched               CPU-only jobs, jobs the plan
 *                                          cannot model (Slurm's order)
 *   held back      1000 - i (>= 1)         the lowest, in planned-start
 *                                          order (beyond the planned queue:
 *                                          last; from the 1000th on, 1)
 *
 * A job's part (its band's priority less what Slurm's own factors give
 * it) is kept here and written as its site factor (job_ptr->site_factor,
 * what sprio shows as SITE), so priority/multifactor's next recalculation
 * lands on the same priority; priority/basic never recalculates.  Jobs the
 * plan no longer has get back their own site factor and priority.  Jobs
 * whose priority an admin set (scontrol update Priority=) or that are held
 * (priority 0, which must never be written: it is a hold) are left alone.
 *
 * slurmctld's scheduler writes back the priority its queue was built with
 * to each job it pops (job_scheduler.c, "job_ptr->priority =
 * job_queue_rec->priority"), so the priorities are written only by
 * select/omru's thread, between cycles (plan_priority_write), never inside
 * one: a job's priority and site factor then always agree.
 */
#include "plan_glue.h"

#include <stdlib.h>

#define OMRU_PRIO_MAX 0xfffffffeU /* 0xffffffff: "exceeds 32 bits" */
#define PRIO_START_SLOTS 0xfffeU /* basic: down to above 0xffff0000 */
/* The held band: 1..this, so that it stays below the priorities Slurm's
 * own factors give jobs outside the plan (multifactor weights in the
 * thousands); held jobs beyond it share priority 1. */
#define PRIO_HELD_SLOTS 1000

/* A job whose priority the plan set. */
typedef struct {
	uint32_t job_id;
	uint32_t target;
	uint32_t own_site; /* its site factor before the plan's */
	int64_t part; /* written: target less its own priority then */
} prio_entry_t;

static bool multifactor(void)
{
	return xstrcasestr(slurm_conf.priority_type, "multifactor") != NULL;
}

/* The starts band's top: priority/multifactor adds a site factor of at
 * most 2^31 - 1 to the job's own priority, basic adds nothing. */
static uint32_t start_top(void)
{
	return multifactor() ? 0x7fffffffU : OMRU_PRIO_MAX;
}

/* Under plan_lock, sorted by job_id: the priorities in effect, and the
 * last plan's, to be written by the thread. */
static prio_entry_t *applied = NULL, *next = NULL;
static int applied_count = 0, next_count = 0;
static bool next_pending = false;

/* One pending job the plan decided, while the bands are computed. */
typedef struct {
	uint32_t job_id;
	int band; /* 0 starts now, 1 held back */
	double start_s; /* held: its planned start; beyond the queue: +inf */
	uint32_t base;
} ranked_t;

static int by_job_id(const void *a, const void *b)
{
	uint32_t x = ((const prio_entry_t *) a)->job_id;
	uint32_t y = ((const prio_entry_t *) b)->job_id;
	return (x > y) - (x < y);
}

static prio_entry_t *find_entry(prio_entry_t *list, int count, uint32_t job_id)
{
	prio_entry_t key = { .job_id = job_id };
	if (!count)
		return NULL;
	return bsearch(&key, list, count, sizeof(*list), by_job_id);
}

static uint32_t clamp_priority(double p)
{
	return p < 1 ? 1 : p > (double) OMRU_PRIO_MAX ? OMRU_PRIO_MAX : (uint32_t) p;
}

/*
 * priority/multifactor's sum for the job with its own site factor instead
 * of the plan's: the weighted factors of its last recalculation, as
 * _get_priority_internal adds them (the same in 22.05 and 24.11).
 * Subtracting the plan's part from the priority is not enough: a held
 * job's part is negative (its band is 1..1000, below its own priority),
 * and when its own factors fall by more than the band leaves (an
 * account's fair share charged for an ended job: tens of thousands under
 * PriorityWeightFairshare), multifactor clamps the sum to 1, and "1 less
 * the part" is the job's old priority -- less its band, which reverses
 * the plan's order of held jobs in Slurm's order that the reference reads
 * (fair-share bench, stop 54: two jobs' reference ends +30 s and two
 * others' -29 s at the first recalculation).  A job in several partitions
 * has one sum per partition: the part is subtracted then.
 * RET false when the factors cannot say it.
 */
static bool own_from_factors(job_record_t *job_ptr, const prio_entry_t *e, uint32_t *own)
{
	if (!job_ptr->prio_factors || job_ptr->part_ptr_list || !multifactor())
		return false;
	double p = job_ptr->prio_factors->priority_age + job_ptr->prio_factors->priority_assoc +
		   job_ptr->prio_factors->priority_fs + job_ptr->prio_factors->priority_js +
		   job_ptr->prio_factors->priority_part + job_ptr->prio_factors->priority_qos;
	if (job_ptr->prio_factors->priority_tres)
		for (uint32_t i = 0; i < job_ptr->prio_factors->tres_cnt; i++)
			p += job_ptr->prio_factors->priority_tres[i];
	p += (double) ((int64_t) e->own_site - NICE_OFFSET) -
	     (double) ((int64_t) job_ptr->prio_factors->nice - NICE_OFFSET);
	*own = clamp_priority(p);
	return true;
}

/*
 * The priority Slurm's own factors give the job: under multifactor, its
 * factors' sum with its own site factor; otherwise its priority less the
 * plan's part (priority/basic never recalculates).
 */
static uint32_t own_priority(job_record_t *job_ptr, const prio_entry_t *e)
{
	uint32_t own;
	if (!e)
		return job_ptr->priority;
	if (own_from_factors(job_ptr, e, &own))
		return own;
	return clamp_priority((double) ((int64_t) job_ptr->priority - e->part));
}

/* Caller holds plan_lock. */
extern uint32_t job_own_priority(job_record_t *job_ptr)
{
	return own_priority(job_ptr,
			    find_entry(applied, applied_count, job_ptr->job_id));
}

/* The job's priority (every partition's) set to `prio`, its site factor
 * to what makes its own priority `base` add up to it; RET that part. */
static int64_t set_priority(job_record_t *job_ptr, uint32_t prio, uint32_t base,
			    uint32_t own_site)
{
	int64_t part = (int64_t) prio - (int64_t) base;
	int64_t site = (int64_t) own_site + part;

	job_ptr->site_factor = site < 0 ? 0 : site > UINT32_MAX ? UINT32_MAX :
					 (uint32_t) site;
	if (job_ptr->prio_factors)
		job_ptr->prio_factors->priority_site = job_ptr->site_factor;
	job_ptr->priority = prio;
	uint32_t *per_part = OMRU_JOB_PRIORITY_ARRAY(job_ptr);
	if (per_part && job_ptr->part_ptr_list) {
		int n = list_count(job_ptr->part_ptr_list);
		for (int i = 0; i < n; i++)
			per_part[i] = prio;
	}
	return part;
}

/* Whether the plan may order the job: pending, not held, not set by an
 * admin. */
static bool orderable(job_record_t *job_ptr)
{
	return IS_JOB_PENDING(job_ptr) && job_ptr->priority > 0 &&
	       !job_ptr->direct_set_prio && !job_ptr->het_job_id;
}

static int by_band(const void *a, const void *b)
{
	const ranked_t *x = a, *y = b;
	if (x->band != y->band)
		return x->band - y->band;
	if (x->start_s != y->start_s)
		return x->start_s < y->start_s ? -1 : 1;
	if (x->base != y->base)
		return x->base > y->base ? -1 : 1; /* Slurm's order among equals */
	return (x->job_id > y->job_id) - (x->job_id < y->job_id);
}

/*
 * After a plan (caller holds slurmctld's job lock and plan_lock): each
 * pending job the plan decided gets its band's priority, written by
 * plan_priority_write.
 */
extern void plan_priority_update(void)
{
	ranked_t *r = NULL;
	int n = 0, cap = 0;
	omru_ctl_decision_t d;

	if (!job_list || !ctl)
		return;
	list_itr_t *it = list_iterator_create(job_list);
	job_record_t *job_ptr;
	while ((job_ptr = list_next(it))) {
		if (!orderable(job_ptr) ||
		    !omru_ctl_lookup(ctl, job_ptr->job_id, &d) ||
		    d.kind == OMRU_DECIDE_PASS)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 256;
			xrecalloc(r, cap, sizeof(*r));
		}
		r[n].job_id = job_ptr->job_id;
		r[n].band = d.kind == OMRU_DECIDE_START ? 0 : 1;
		r[n].start_s = d.kind == OMRU_DECIDE_WAIT ? d.start_s : 1e300;
		r[n].base = job_own_priority(job_ptr);
		n++;
	}
	list_iterator_destroy(it);
	if (n)
		qsort(r, n, sizeof(*r), by_band);

	int starts = 0, held = 0;
	uint32_t top = start_top();
	for (int i = 0; i < n; i++)
		held += r[i].band == 1;
	held = MIN(held, PRIO_HELD_SLOTS);
	xfree(next);
	next = n ? xcalloc(n, sizeof(*next)) : NULL;
	next_count = n;
	for (int i = 0; i < n; i++) {
		next[i].job_id = r[i].job_id;
		if (r[i].band == 0) {
			next[i].target = top - MIN((uint32_t) starts, PRIO_START_SLOTS);
			starts++;
		} else {
			next[i].target = (uint32_t) MAX(1, held);
			held--;
		}
	}
	if (n)
		qsort(next, n, sizeof(*next), by_job_id);
	xfree(r);
	next_pending = true;
}

/*
 * The last plan's priorities written (caller holds slurmctld's job write
 * lock, outside its scheduling cycles, and plan_lock): jobs it no longer
 * orders get their own back.
 */
extern void plan_priority_write(void)
{
	if (!next_pending || !find_job_record)
		return;
	next_pending = false;
	for (int i = 0; i < applied_count; i++) {
		if (find_entry(next, next_count, applied[i].job_id))
			continue;
		job_record_t *job_ptr = find_job_record(applied[i].job_id);
		if (!job_ptr || job_ptr->direct_set_prio)
			continue;
		if (IS_JOB_PENDING(job_ptr) && job_ptr->priority > 0) {
			uint32_t own = own_priority(job_ptr, &applied[i]);
			set_priority(job_ptr, own, own, applied[i].own_site);
		} else {
			/* Started (its priority the plan's, which started
			 * it) or held (Slurm sets one at release): its own
			 * site factor, for a requeue's recalculation. */
			job_ptr->site_factor = applied[i].own_site;
			if (job_ptr->prio_factors)
				job_ptr->prio_factors->priority_site =
					applied[i].own_site;
		}
	}
	for (int i = 0; i < next_count; i++) {
		job_record_t *job_ptr = find_job_record(next[i].job_id);
		prio_entry_t *old = find_entry(applied, applied_count, next[i].job_id);
		next[i].own_site = old ? old->own_site :
			job_ptr ? job_ptr->site_factor : NICE_OFFSET;
		next[i].part = old ? old->part : 0; /* if not written now */
		if (!job_ptr || !orderable(job_ptr))
			continue;
		next[i].part = set_priority(job_ptr, next[i].target,
					    own_priority(job_ptr, old),
					    next[i].own_site);
	}
	xfree(applied);
	applied = next;
	applied_count = next_count;
	next = NULL;
	next_count = 0;
}

extern void plan_priority_fini(void)
{
	xfree(applied);
	xfree(next);
	applied_count = next_count = 0;
	next_pending = false;
}
