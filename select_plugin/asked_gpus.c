/*
 * asked_gpus.c - the GPU count a moldable job asked (--gpus=N) before
 * select/omru first rewrote its request.
 *
 * job_test rewrites a pending moldable job's --gpus to the minimum of its
 * range (TEST_ONLY) or to the planned count, so after the first call the
 * job record no longer says what its user asked.  The planner needs it: a
 * job whose time limit no count of its range fits runs at what it asked
 * (its user set the limit for that count), and the reference bound takes
 * back what a running elastic job holds beyond it.  Kept here, in memory,
 * from the first rewrite until the job ends (a resized job requeued keeps
 * its first ask); after a slurmctld restart the request the job has then
 * stands in.  Caller holds plan_lock.
 *
 * An open-addressing table keyed by job id (0 is never a job id): lookups
 * in every snapshot must not cost a list walk per job.
 */
#include "plan_glue.h"

typedef struct {
	uint32_t job_id; /* 0: empty */
	int gpus;
} slot_t;

static slot_t *slots;
static uint32_t cap, used;

static uint32_t home(uint32_t job_id)
{
	return (job_id * 2654435761u) & (cap - 1);
}

static slot_t *find(uint32_t job_id)
{
	if (!cap)
		return NULL;
	for (uint32_t i = home(job_id);; i = (i + 1) & (cap - 1)) {
		if (slots[i].job_id == job_id)
			return &slots[i];
		if (!slots[i].job_id)
			return NULL;
	}
}

static void put(uint32_t job_id, int gpus)
{
	uint32_t i = home(job_id);
	while (slots[i].job_id && slots[i].job_id != job_id)
		i = (i + 1) & (cap - 1);
	if (!slots[i].job_id)
		used++;
	slots[i].job_id = job_id;
	slots[i].gpus = gpus;
}

/* A table of `new_cap` slots holding the entries `keep` says yes to. */
static void rebuild(uint32_t new_cap, bool (*keep)(uint32_t job_id))
{
	slot_t *old = slots;
	uint32_t old_cap = cap;
	slots = xcalloc(new_cap, sizeof(*slots));
	cap = new_cap;
	used = 0;
	for (uint32_t i = 0; i < old_cap; i++)
		if (old[i].job_id && (!keep || keep(old[i].job_id)))
			put(old[i].job_id, old[i].gpus);
	xfree(old);
}

extern void asked_gpus_note(uint32_t job_id, int gpus)
{
	if (!job_id || gpus < 1 || find(job_id))
		return; /* the first rewrite's "before" is the ask */
	if (2 * (used + 1) > cap)
		rebuild(cap ? 2 * cap : 64, NULL);
	put(job_id, gpus);
}

extern int asked_gpus_get(uint32_t job_id, int fallback)
{
	slot_t *s = find(job_id);
	return s ? s->gpus : fallback;
}

extern void asked_gpus_sweep(bool (*still_waits)(uint32_t job_id))
{
	if (used)
		rebuild(cap, still_waits); /* open addressing: no deletes */
}

extern void asked_gpus_fini(void)
{
	xfree(slots);
	cap = used = 0;
}
