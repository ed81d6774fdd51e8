/*
 * node_state.c - what slurmctld's node records say select/omru needs: which
 * nodes are up, their GPUs and CPUs, and a stamp of their configuration.
 */
#include "plan_glue.h"

/*
 * The nodes slurmctld keeps in avail_node_bitmap (node_mgr.c,
 * make_node_avail and its callers: up, not drained, failed, unresponsive or
 * powering down), read from each node's own state: _schedule clears nodes
 * from that bitmap for the rest of its pass (a reservation's or a
 * partition's nodes once a job there did not start), and a plan made
 * within the pass saw them down -- every job of that reservation had no
 * node, and cons_tres started one outside the plan (doc/slurm-facts.md,
 * section 7).
 */
extern bool node_usable(int i)
{
	node_record_t *n = node_record_table_ptr[i];
	if (!n)
		return false;
	if (IS_NODE_DOWN(n) || IS_NODE_FUTURE(n) || IS_NODE_DRAIN(n) ||
	    IS_NODE_FAIL(n) || IS_NODE_NO_RESPOND(n) || IS_NODE_POWERING_DOWN(n))
		return false;
	/* Idle and asked to power down: Slurm keeps jobs off it. */
	return !(IS_NODE_POWER_DOWN(n) && IS_NODE_IDLE(n));
}

/*
 * A usable node whose GPUs may be given out now: not one still UNKNOWN,
 * as every node is for a few seconds after slurmctld starts, until it
 * registers (read_config.c makes a node avail only once it is idle or
 * allocated).  A plan that gave out such a node's GPUs had its start run
 * only at the registration, from a plan older than the jobs submitted
 * meanwhile (a lone job widened to a whole node ahead of five arrivals:
 * slurm-fairshare.sh, 2026-11-29).  The job may still run there (it stays
 * eligible): with no GPU free it is held, and the registration, a node
 * update, brings the next plan.
 */
extern bool node_startable(int i)
{
	return node_usable(i) && !IS_NODE_UNKNOWN(node_record_table_ptr[i]);
}

/* Configured and allocated GPUs of a node, from its GRES state. */
extern void node_gpus(node_record_t *n, int *gpus, int *alloc)
{
	list_itr_t *it;
	gres_state_t *gs;

	*gpus = *alloc = 0;
	if (!n || !n->gres_list)
		return;
	it = list_iterator_create(n->gres_list);
	while ((gs = list_next(it))) {
		gres_node_state_t *ns;
		if (!is_gpu(gs))
			continue;
		ns = gs->gres_data;
		*gpus += ns->gres_cnt_avail;
		*alloc += ns->gres_cnt_alloc;
	}
	list_iterator_destroy(it);
}

extern gres_node_state_t *node_gpu_state(node_record_t *n)
{
	gres_state_t *gs;
	gres_node_state_t *found = NULL;
	list_itr_t *it;

	if (!n || !n->gres_list)
		return NULL;
	it = list_iterator_create(n->gres_list);
	while ((gs = list_next(it)))
		if (is_gpu(gs)) {
			found = gs->gres_data;
			break;
		}
	list_iterator_destroy(it);
	return found;
}

/*
 * Whether the node has GPUs of every type the job asks (--gpus=a100:2):
 * cons_tres never gives a typed request GPUs of another type, so a node
 * without the type is not one the job may run on.  Untyped: every node.
 */
extern bool node_has_gpu_types(node_record_t *n, job_record_t *job_ptr)
{
	list_itr_t *it;
	gres_job_state_t *js;
	gres_node_state_t *ns = node_gpu_state(n);
	bool ok = true;

	if (!job_ptr->gres_list_req)
		return true;
	it = list_iterator_create(job_ptr->gres_list_req);
	while (ok && (js = next_gpu_entry(it))) {
		bool found = false;
		if (!js->type_id)
			continue;
		for (int t = 0; ns && t < ns->type_cnt; t++)
			found |= ns->type_id[t] == js->type_id && ns->type_cnt_avail[t] > 0;
		ok = found;
	}
	list_iterator_destroy(it);
	return ok;
}

/*
 * The CPUs per GPU the least CPU-rich node of `nodes` with GPUs can give
 * every one of its GPUs (its CPUs, less specialized ones, over its GPUs);
 * 0 when none has GPUs.
 */
extern int node_cpus_per_gpu(bitstr_t *nodes)
{
	int least = 0;
	int count = nodes ? MIN(node_record_count, bit_size(nodes)) : 0;

	for (int i = 0; i < count; i++) {
		node_record_t *n = node_record_table_ptr[i];
		int gpus, alloc, per;
		if (!n || !bit_test(nodes, i))
			continue;
		node_gpus(n, &gpus, &alloc);
		if (gpus < 1)
			continue;
		/* At least 1: a node with more GPUs than CPUs still caps. */
		per = MAX(1, (n->cpus_efctv ? n->cpus_efctv : n->cpus) / gpus);
		if (!least || per < least)
			least = per;
	}
	return least;
}

/*
 * What cons_tres's TEST_ONLY reads of the nodes: their configured
 * resources, not their state (the nodes offered say which are up) nor
 * what runs on them.  last_node_update moves at every job start and end;
 * this only when a node's resources change, so remembered TEST_ONLY
 * answers (test_only_memo.h) survive the cluster's traffic.  Caller holds
 * plan_lock.
 */
extern uint64_t node_config_stamp(void)
{
	static time_t seen = (time_t) -1;
	static uint64_t stamp;

	if (!&last_node_update || !&node_record_table_ptr || !node_record_table_ptr)
		return 0;
	if (last_node_update == seen)
		return stamp;
	seen = last_node_update;
	uint64_t h = 0xcbf29ce484222325ULL;
#define MIX(v) (h = (h ^ (uint64_t) (v)) * 0x100000001b3ULL)
	for (int i = 0; i < node_record_count; i++) {
		node_record_t *n = node_record_table_ptr[i];
		if (!n) {
			MIX(i);
			continue;
		}
		MIX((uintptr_t) n->config_ptr);
		MIX(n->cpus);
		MIX(n->boards);
		MIX(n->tot_sockets);
		MIX(n->cores);
		MIX(n->threads);
		MIX(n->core_spec_cnt);
		MIX(n->real_memory);
		MIX(n->mem_spec_limit);
		MIX(n->tmp_disk);
		for (const char *c = n->gres; c && *c; c++)
			MIX(*c);
		for (const char *c = n->features_act; c && *c; c++)
			MIX(*c);
		for (const char *c = n->cpu_spec_list; c && *c; c++)
			MIX(*c);
	}
#undef MIX
	stamp = h;
	return stamp;
}

extern int *node_gpu_links(gres_node_state_t *ns, int n)
{
	if (!ns || !ns->links_cnt || n < 1)
		return NULL;
	int *links = xcalloc(n * n, sizeof(int));
	/* links_cnt is link_len x link_len, which need not be the GPU count
	 * the caller has (bit_size of the allocation, the node's GPUs): GPUs
	 * beyond it have no known link. */
	int m = MIN(n, ns->link_len);
	for (int a = 0; a < m; a++)
		for (int b = 0; b < m; b++)
			links[a * n + b] = ns->links_cnt[a] ? ns->links_cnt[a][b] : 0;
	return links;
}
