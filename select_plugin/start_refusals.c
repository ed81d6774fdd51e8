/*
 * start_refusals.c - planned starts cons_tres refused, so the plan stops
 * counting on them.
 *
 * The plan models a node's GPUs; cons_tres also checks its free CPUs and
 * memory, GPU types, cores bound to GPUs, licenses it holds per node and
 * more (doc/slurm-facts.md, section 9).  When a planned
 * start (RUN_NOW on the planned nodes) is refused, the job may not use
 * those nodes in later plans until something can have changed there: a
 * job on one of them ended (its CPUs, memory, GPUs came free) or a node's
 * configuration changed.  The refusal also asks for a plan at once, so the
 * GPUs the job was given go to the next job of the same scheduling pass.
 * A job is thus refused at most once per node per change.
 *
 * Kept per pending job: the union of nodes that refused it and the sum of
 * those nodes' "freed" counters when the last of them did; any change of
 * the sum (counters only grow) voids the record.  Caller holds plan_lock.
 */
#include "plan_glue.h"

#include <string.h>

typedef struct {
	uint32_t job_id;
	bitstr_t *nodes;
	uint64_t freed_sum;
} refusal_t;

static refusal_t *book;
static int book_len, book_cap;
static uint64_t *freed; /* per node index: jobs that ended there */
static int freed_len;

static bool ensure_freed(void)
{
	if (freed && freed_len == node_record_count)
		return true;
	/* Nodes were added or removed: nothing old is comparable. */
	refusals_forget_all();
	xfree(freed);
	freed_len = node_record_count > 0 ? node_record_count : 0;
	freed = freed_len ? xcalloc(freed_len, sizeof(*freed)) : NULL;
	return freed != NULL;
}

static uint64_t sum_over(bitstr_t *nodes)
{
	uint64_t s = 0;
	int n = MIN(bit_size(nodes), freed_len);
	for (int i = 0; i < n; i++)
		if (bit_test(nodes, i))
			s += freed[i];
	return s;
}

static refusal_t *find(uint32_t job_id)
{
	for (int i = 0; i < book_len; i++)
		if (book[i].job_id == job_id)
			return &book[i];
	return NULL;
}

static void drop(int i)
{
	FREE_NULL_BITMAP(book[i].nodes);
	book[i] = book[--book_len];
}

/* The job's record, NULL when none or void (dropped then). */
static refusal_t *valid(uint32_t job_id)
{
	if (!ensure_freed())
		return NULL;
	refusal_t *r = find(job_id);
	if (r && sum_over(r->nodes) != r->freed_sum) {
		drop((int) (r - book)); /* something came free there */
		return NULL;
	}
	return r;
}

extern void refusals_note(uint32_t job_id, bitstr_t *planned)
{
	if (!planned || !ensure_freed())
		return;
	refusal_t *r = find(job_id);
	if (!r) {
		if (book_len == book_cap) {
			book_cap = book_cap ? 2 * book_cap : 16;
			xrecalloc(book, book_cap, sizeof(*book));
		}
		r = &book[book_len++];
		r->job_id = job_id;
		r->nodes = bit_alloc(freed_len);
	}
	int n = MIN(bit_size(planned), freed_len);
	for (int i = 0; i < n; i++)
		if (bit_test(planned, i))
			bit_set(r->nodes, i);
	r->freed_sum = sum_over(r->nodes);
}

extern int refusals_filter(uint32_t job_id, int *eligible, int count)
{
	refusal_t *r = valid(job_id);
	if (!r)
		return count;
	int kept = 0;
	for (int i = 0; i < count; i++)
		if (eligible[i] >= bit_size(r->nodes) ||
		    !bit_test(r->nodes, eligible[i]))
			eligible[kept++] = eligible[i];
	return kept;
}

extern bool refusals_has(uint32_t job_id)
{
	return valid(job_id) != NULL;
}

extern void refusals_nodes_freed(bitstr_t *nodes)
{
	if (!nodes || !book_len || !ensure_freed())
		return;
	int n = MIN(bit_size(nodes), freed_len);
	for (int i = 0; i < n; i++)
		if (bit_test(nodes, i))
			freed[i]++;
}

extern void refusals_sweep(bool (*still_waits)(uint32_t job_id))
{
	for (int i = 0; i < book_len;)
		if (!still_waits(book[i].job_id))
			drop(i);
		else
			i++;
}

extern void refusals_forget_all(void)
{
	while (book_len)
		drop(book_len - 1);
}

extern void refusals_fini(void)
{
	refusals_forget_all();
	xfree(book);
	book_cap = 0;
	xfree(freed);
	freed_len = 0;
}
