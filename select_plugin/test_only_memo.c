/*
 * test_only_memo.c - see test_only_memo.h.
 *
 * An open-addressing table by job id (linear probing, at most half full);
 * a sweep rebuilds it from the entries used since the previous sweep.
 */
#include "config.h"

#include "src/common/slurm_xlator.h"

#include <stdint.h>
#include <string.h>

#include "src/common/bitstring.h"
#include "src/common/xmalloc.h"
#include "test_only_memo.h"

/* Everything of a job's request that cons_tres's TEST_ONLY reads. */
typedef struct {
	uint32_t job_id;
	uint64_t node_update;
	void *part_ptr, *mc; /* replaced when updated */
	/* Hash of the TRES requests, features, partition name and the node
	 * lists' contents: an update frees a list and may allocate the new
	 * one at the same address, so pointers alone could match stale. */
	uint64_t strings;
	uint64_t pn_min_memory;
	uint32_t min_cpus, max_cpus, pn_min_cpus, min_nodes, max_nodes;
	uint32_t num_tasks, ntasks_per_node;
	uint32_t pn_min_tmp_disk;
	uint16_t cpus_per_task, whole_node, contiguous, core_spec;
	uint16_t share_res, overcommit;
	uint64_t bit_flags; /* those that shape a selection (kSelectFlags) */
} memo_key_t;

/* The job flags cons_tres's selection reads; the others come and go with
 * every backfill pass (BACKFILL_TEST, BACKFILL_SCHED, ...). */
static const uint64_t kSelectFlags = GRES_ENFORCE_BIND | GRES_DISABLE_BIND |
				     SPREAD_JOB | USE_MIN_NODES | JOB_CPUS_SET |
				     JOB_MEM_SET;

typedef struct {
	memo_key_t key;
	bitstr_t *offered, *chosen;
	unsigned long used; /* sweep generation of its last use */
} memo_entry_t;

struct test_only_memo {
	memo_entry_t **slot;
	size_t size, count; /* size: a power of two */
	unsigned long gen;
	long hits, misses;
};

static uint64_t hash_str(uint64_t h, const char *s)
{
	h ^= 0x9e3779b97f4a7c15ULL; /* separates NULL from "" */
	for (; s && *s; s++)
		h = (h ^ (unsigned char) *s) * 0x100000001b3ULL;
	return h * 0x100000001b3ULL;
}

static uint64_t hash_bits(uint64_t h, bitstr_t *b)
{
	if (!b)
		return (h ^ 0x9e3779b97f4a7c15ULL) * 0x100000001b3ULL;
	for (int64_t i = bit_ffs(b); i >= 0 && i <= bit_fls(b); i++)
		if (bit_test(b, i))
			h = (h ^ (uint64_t) (i + 1)) * 0x100000001b3ULL;
	return h * 0x100000001b3ULL;
}

static void make_key(job_record_t *job_ptr, uint64_t node_update, memo_key_t *k)
{
	job_details_t *d = job_ptr->details;

	memset(k, 0, sizeof(*k)); /* padding too: keys compare by memcmp */
	k->job_id = job_ptr->job_id;
	k->node_update = node_update;
	k->part_ptr = job_ptr->part_ptr;
	k->bit_flags = job_ptr->bit_flags & kSelectFlags;
	uint64_t h = 0;
	h = hash_str(h, job_ptr->tres_per_job);
	h = hash_str(h, job_ptr->tres_per_node);
	h = hash_str(h, job_ptr->tres_per_socket);
	h = hash_str(h, job_ptr->tres_per_task);
	h = hash_str(h, job_ptr->cpus_per_tres);
	h = hash_str(h, job_ptr->mem_per_tres);
	h = hash_str(h, job_ptr->partition);
	if (d) {
		h = hash_str(h, d->features);
		h = hash_bits(h, d->req_node_bitmap);
		h = hash_bits(h, d->exc_node_bitmap);
		k->mc = d->mc_ptr;
		k->pn_min_tmp_disk = d->pn_min_tmp_disk;
		k->share_res = d->share_res;
		k->overcommit = d->overcommit;
		k->pn_min_memory = d->pn_min_memory;
		k->min_cpus = d->min_cpus;
		k->max_cpus = d->max_cpus;
		k->pn_min_cpus = d->pn_min_cpus;
		k->min_nodes = d->min_nodes;
		k->max_nodes = d->max_nodes;
		k->num_tasks = d->num_tasks;
		k->ntasks_per_node = d->ntasks_per_node;
		k->cpus_per_task = d->cpus_per_task;
		k->whole_node = d->whole_node;
		k->contiguous = d->contiguous;
		k->core_spec = d->core_spec;
	}
	k->strings = h;
}

static size_t home(const test_only_memo_t *m, uint32_t job_id)
{
	return (job_id * 2654435761u) & (m->size - 1);
}

static memo_entry_t **find(test_only_memo_t *m, uint32_t job_id)
{
	size_t i = home(m, job_id);
	while (m->slot[i] && m->slot[i]->key.job_id != job_id)
		i = (i + 1) & (m->size - 1);
	return &m->slot[i];
}

static void free_entry(memo_entry_t *e)
{
	FREE_NULL_BITMAP(e->offered);
	FREE_NULL_BITMAP(e->chosen);
	xfree(e);
}

/* Rebuilds the table at `size` slots; a sweep drops the entries unused
 * since the previous one. */
static void rebuild(test_only_memo_t *m, size_t size, bool sweep)
{
	memo_entry_t **old = m->slot;
	size_t old_size = m->size;

	m->slot = xcalloc(size, sizeof(*m->slot));
	m->size = size;
	m->count = 0;
	for (size_t i = 0; i < old_size; i++) {
		memo_entry_t *e = old[i];
		if (!e)
			continue;
		if (sweep && e->used < m->gen) {
			free_entry(e);
			continue;
		}
		*find(m, e->key.job_id) = e;
		m->count++;
	}
	xfree(old);
}

extern test_only_memo_t *test_only_memo_create(void)
{
	test_only_memo_t *m = xmalloc(sizeof(*m));
	m->size = 64;
	m->slot = xcalloc(m->size, sizeof(*m->slot));
	m->gen = 1;
	return m;
}

extern void test_only_memo_destroy(test_only_memo_t *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->size; i++)
		if (m->slot[i])
			free_entry(m->slot[i]);
	xfree(m->slot);
	xfree(m);
}

extern bool test_only_memo_get(test_only_memo_t *m, job_record_t *job_ptr,
			       bitstr_t *node_bitmap, uint64_t node_update)
{
	memo_key_t k;
	memo_entry_t *e;

	if (!m || !job_ptr || !node_bitmap)
		return false;
	e = *find(m, job_ptr->job_id);
	if (e)
		make_key(job_ptr, node_update, &k);
	if (!e || memcmp(&k, &e->key, sizeof(k)) ||
	    bit_size(node_bitmap) != bit_size(e->offered) ||
	    !bit_equal(node_bitmap, e->offered)) {
		m->misses++;
		return false;
	}
	m->hits++;
	e->used = m->gen;
	bit_copybits(node_bitmap, e->chosen);
	return true;
}

extern void test_only_memo_put(test_only_memo_t *m, job_record_t *job_ptr,
			       const bitstr_t *offered, const bitstr_t *chosen,
			       uint64_t node_update)
{
	memo_entry_t **at, *e;

	if (!m || !job_ptr || !offered || !chosen ||
	    bit_size((bitstr_t *) offered) != bit_size((bitstr_t *) chosen))
		return;
	if (2 * (m->count + 1) > m->size)
		rebuild(m, 2 * m->size, false);
	at = find(m, job_ptr->job_id);
	if (!*at) {
		*at = xmalloc(sizeof(**at));
		m->count++;
	}
	e = *at;
	make_key(job_ptr, node_update, &e->key);
	FREE_NULL_BITMAP(e->offered);
	FREE_NULL_BITMAP(e->chosen);
	e->offered = bit_copy((bitstr_t *) offered);
	e->chosen = bit_copy((bitstr_t *) chosen);
	e->used = m->gen;
}

extern void test_only_memo_sweep(test_only_memo_t *m)
{
	if (!m)
		return;
	size_t size = m->size;
	while (size > 64 && 8 * m->count < size)
		size /= 2;
	rebuild(m, size, true);
	m->gen++;
}

extern void test_only_memo_stats(const test_only_memo_t *m, int *jobs,
				 long *hits, long *misses)
{
	*jobs = m ? (int) m->count : 0;
	*hits = m ? m->hits : 0;
	*misses = m ? m->misses : 0;
}
