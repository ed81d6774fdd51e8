/*
 * plan_snapshot.c - Slurm's state as the planner sees it (every node's GPUs,
 * every running and pending GPU job with where it may start), then a plan;
 * and when a plan is due.
 */
#include "plan_glue.h"

#include <string.h>

static double last_stats_log = 0;
static double last_plan_cost_s = 0; /* the last re-plan, snapshot included */
/* Pending jobs the last plan starts now (planned_start_blocked). */
static uint32_t *starts;
static int starts_len, starts_cap;

static uint64_t refusals_stamp;

static uint32_t job_time_limit_min(job_record_t *job_ptr)
{
	uint32_t t = job_ptr->time_limit;
	part_record_t *p = job_ptr->part_ptr;

	if (t == NO_VAL && p)
		t = (p->default_time != NO_VAL) ? p->default_time : p->max_time;
	return (t == NO_VAL || t == INFINITE) ? 0 : t;
}

/*
 * The GPU links (gres.conf Links=) of the first of the largest GPU nodes
 * that has them, for the costs of pipeline splits: nodes alike.
 */
static void snapshot_gpu_links(void)
{
	int best = 0, best_node = -1;
	for (int i = 0; i < node_record_count; i++) {
		gres_node_state_t *ns = node_gpu_state(node_record_table_ptr[i]);
		int n = (ns && ns->gres_bit_alloc) ? bit_size(ns->gres_bit_alloc) : 0;
		if (ns && ns->links_cnt && n > best && n <= 64) {
			best = n;
			best_node = i;
		}
	}
	if (best_node < 0)
		return;
	int *links = node_gpu_links(node_gpu_state(node_record_table_ptr[best_node]),
				    best);
	if (omru_ctl_snapshot_links(ctl, links, best) != OMRU_OK)
		debug("%s: %s's GPU links are not a symmetric matrix; pipeline "
		      "splits are costed over PCIe", plugin_type,
		      node_record_table_ptr[best_node]->name);
	xfree(links);
}

/* Every node's CPUs and memory with what running jobs hold of them. */
static void snapshot_node_resources(const double *cpus_alloc, const double *mem_alloc)
{
	for (int i = 0; i < node_record_count; i++) {
		double cpus = 0, mem = 0;
		if (node_record_table_ptr[i])
			node_capacity(node_record_table_ptr[i], &cpus, &mem);
		if (omru_ctl_snapshot_node_resources(ctl, i, cpus, cpus_alloc[i], mem,
						     mem_alloc[i]) != OMRU_OK) {
			debug("%s: %s's CPUs and memory are out of range; the "
			      "plan counts GPUs only", plugin_type,
			      node_record_table_ptr[i] ? node_record_table_ptr[i]->name : "?");
			return;
		}
	}
}

extern bool job_blocked_by_slurm(job_record_t *job_ptr)
{
	/*
	 * slurmctld tests a job's QOS and association limits, licenses,
	 * reservation and partition before it asks job_test, and leaves the
	 * reason in state_reason (doc/slurm-facts.md, "Before job_test").
	 * Only these reasons mean "waits for nodes or its turn"; when Slurm's
	 * own reason clears (acct_policy_job_runnable_pre_select resets it),
	 * slurmctld asks job_test again and the plan takes the job in.
	 */
	switch (job_ptr->state_reason) {
	case WAIT_NO_REASON:
	case WAIT_PRIORITY:
	case WAIT_RESOURCES:
	/*
	 * select_nodes sets these after job_test when the nodes the job may
	 * use are busy or reserved over its run time (node_scheduler.c,
	 * "Non-fatal errors"), and _schedule tries it again at every pass:
	 * it waits for nodes, which the plan models (node_usable,
	 * job_resv_nodes).  Left out, it was started by backfill outside
	 * the plan at its minimum count, on the reserved node the plan had
	 * for a larger start (limits bench, issue 26).
	 */
	case WAIT_NODE_NOT_AVAIL:
	case WAIT_RESERVATION:
		return false;
	default:
		return true;
	}
}

/* admitted_note's jobs, until the next plan has taken them in. */
#define ADMITTED_MAX 4096
static uint32_t admitted[ADMITTED_MAX];
static int admitted_len = 0;

extern void admitted_note(uint32_t job_id)
{
	for (int i = 0; i < admitted_len; i++)
		if (admitted[i] == job_id)
			return;
	if (admitted_len < ADMITTED_MAX)
		admitted[admitted_len++] = job_id;
}

static bool admitted_has(uint32_t job_id)
{
	for (int i = 0; i < admitted_len; i++)
		if (admitted[i] == job_id)
			return true;
	return false;
}

/* Pending jobs that cannot start whatever the plan says stay out of it. */
static bool job_waits_for_other_reasons(job_record_t *job_ptr, time_t now)
{
	if (job_ptr->priority == 0 || job_ptr->het_job_id)
		return true;
	if (job_ptr->details && job_ptr->details->begin_time > now)
		return true;
	return job_blocked_by_slurm(job_ptr) && !admitted_has(job_ptr->job_id) &&
	       !pool_wait_modelled(job_ptr);
}

/*
 * The nodes the job may use now as Slurm's reservations allow (its own
 * reservation's, or all but those reserved for others over its run time):
 * slurmctld's job_test_resv, as select_nodes asks it.  RET a bitmap to
 * free, or NULL with *none set when no node is (its reservation has not
 * begun, or every node it needs is reserved), or NULL without *none when
 * Slurm's function is not there.
 */
static bitstr_t *job_resv_nodes(job_record_t *job_ptr, time_t now, bool *none)
{
	bitstr_t *nodes = NULL;
	omru_resv_exc_t exc_cores = OMRU_RESV_EXC_INIT;
	bool overlap = false;
	time_t when = now;

	*none = false;
	if (!job_test_resv)
		return NULL;
	int rc = job_test_resv(job_ptr, &when, false, &nodes,
			       &exc_cores, &overlap, false);
	OMRU_RESV_EXC_FREE(exc_cores);
	if (rc != SLURM_SUCCESS || when > now) {
		FREE_NULL_BITMAP(nodes);
		*none = true;
	}
	return nodes;
}

/*
 * A job that stopped for its resize is requeued only when its epilog is
 * done (cleanup_completing); until then it is COMPLETING, neither pending
 * nor running.  A plan made in that gap without it gave its new GPUs to
 * the job it shrank for (phase.test: the newcomer started on all four and
 * the resized job after it).  It is planned as the pending job it is about
 * to be.  Not JOB_REQUEUE: 22.05 sets that flag for RequeueExit only in
 * job_hold_requeue, once COMPLETING is cleared (seen on CI: a plan 15 ms
 * after the stop missed the job); the resize book knows the job stopped
 * for its resize and that Slurm requeues it (job_begin_fini.c).
 */
static bool awaits_resize_requeue(job_record_t *job_ptr)
{
	return IS_JOB_COMPLETING(job_ptr) && omru_ctl_resuming(ctl, job_ptr->job_id);
}

static bool planned_as_pending(job_record_t *job_ptr)
{
	return IS_JOB_PENDING(job_ptr) || awaits_resize_requeue(job_ptr);
}

/* A pending job the last plan placed that has no node it may use now: the
 * plan cannot model it, and cons_tres places it (debug; a plan once saw a
 * reservation's node down this way, doc/slurm-facts.md section 7). */
static void note_no_node(job_record_t *job_ptr)
{
	omru_ctl_decision_t d;

	if (omru_ctl_lookup(ctl, job_ptr->job_id, &d) && d.kind != OMRU_DECIDE_PASS)
		debug("%s: %pJ has no node it may use now (partitions, "
		      "reservation, node state, features, GPU types, refusals): "
		      "the plan cannot model it", plugin_type, job_ptr);
}

/*
 * Whether the plan can model a job's --nodelist (-w): Slurm's required
 * nodes, which the job's allocation must include, with more nodes if it
 * needs them (a --gpus=8 job with -w of one 4-GPU node gets that node and
 * another).  The plan models a node list as the only nodes a job may use,
 * which is that only when the job fits the listed nodes and every packing
 * of it includes them all: one node, or as many nodes as it asked (-N).
 * RET false for any other list: cons_tres places the job (issue 44:
 * Slurm's test39.13 left such jobs pending forever on an idle cluster).
 * `largest`: the most GPUs the plan may give it.
 */
static bool required_nodes_modelled(job_record_t *job_ptr, int largest)
{
	job_details_t *d = job_ptr->details;

	if (!d || !d->req_node_bitmap)
		return true;
	int listed = 0, gpus_there = 0;
	int n_max = MIN(bit_size(d->req_node_bitmap), node_record_count);
	for (int i = 0; i < n_max; i++) {
		if (!bit_test(d->req_node_bitmap, i))
			continue;
		int gpus = 0, alloc = 0;
		node_gpus(node_record_table_ptr[i], &gpus, &alloc);
		listed++;
		gpus_there += gpus;
	}
	uint32_t min_nodes = MAX(d->min_nodes, 1);
	return listed > 0 && gpus_there >= largest &&
	       ((listed == 1 && min_nodes == 1) || min_nodes == (uint32_t) listed);
}

/* The snapshot's buffers, node_record_count + 1 entries each. */
typedef struct {
	int *eligible, *where_node, *where_gpus;
	double *where_cpus, *where_mem;
	double *cpus_alloc, *mem_alloc; /* per node: what running jobs hold */
} snap_buffers_t;

static int add_job(job_record_t *job_ptr, time_t now, snap_buffers_t *b)
{
	int *eligible = b->eligible, *where_node = b->where_node,
	    *where_gpus = b->where_gpus;
	omru_ctl_job_t j;
	job_gpus_t g;
	char err[256];

	if (!job_gpu_request(job_ptr, &g))
		return 0;
	job_options(job_ptr, &g);
	if (!g.opts.set && !settings.plan_rigid_jobs)
		return 0;
	memset(&j, 0, sizeof(j));
	j.job_id = job_ptr->job_id;
	j.submit_s = job_ptr->details ? job_ptr->details->submit_time : now;
	j.time_limit_s = 60.0 * job_time_limit_min(job_ptr);
	j.priority = job_own_priority(job_ptr); /* not the plan's band */
	j.tier = job_ptr->part_ptr ? job_ptr->part_ptr->priority_tier : 0;
	j.uid = job_ptr->user_id;
	/* Rows its node sent; a requeued job's epochs_done. */
	j.admin_comment = job_ptr->admin_comment;
	j.opts = (g.opts.set && g.per_job) ? &g.opts : NULL;
	if (g.opts.set && !g.per_job) {
		/* Planned at its own count: only --gpus=N can be rewritten. */
		static omru_job_options_t rigid;
		rigid = g.opts;
		rigid.set &= ~OMRU_OPT_GPUS;
		j.opts = &rigid;
	}
	/* Never a count its per-job GPU limits refuse after selection.  Its
	 * user's and account's shared limits and its licenses are the plan's
	 * pools (plan_pools.c): it starts when they leave it room.  One they
	 * leave too few GPUs now is noted for its reason (limit_blocked). */
	bool moldable = j.opts && (j.opts->set & OMRU_OPT_GPUS);
	int cap = 0, room = -1;
	if (moldable)
		job_gpu_limits(job_ptr, &cap, NULL, NULL);
	omru_ctl_pool_use_t pools[16];
	j.pools = pools;
	j.pool_count = job_pools(job_ptr, pools, 16, &room);
	if (planned_as_pending(job_ptr)) {
		int need = moldable ? (int) j.opts->gpus_min
				    : asked_gpus_get(job_ptr->job_id, g.gpus);
		if (room >= 0 && room < need)
			limit_blocked_note(job_ptr->job_id);
	}
	if (cap > 0 && (int) j.opts->gpus_max > cap) {
		static omru_job_options_t capped;
		capped = *j.opts;
		capped.gpus_max = MAX(cap, (int) capped.gpus_min);
		j.opts = &capped;
	}
	/* Pending: what it asked, which a moldable job whose limit fits no
	 * count of its range runs at (job_test rewrote the request). */
	j.gpus = planned_as_pending(job_ptr) ? asked_gpus_get(job_ptr->job_id, g.gpus)
					 : g.gpus;
	/* Running: what it asked, if the plan rewrote it (the reference
	 * bound takes back what it was given beyond that). */
	j.asked_gpus = planned_as_pending(job_ptr) ? 0 : asked_gpus_get(job_ptr->job_id, 0);
	job_node_need(job_ptr, &g, &j);
	j.max_nodes = (job_ptr->details && job_ptr->details->max_nodes &&
		       job_ptr->details->max_nodes < 100000) ?
			      job_ptr->details->max_nodes : 0;
	if (IS_JOB_RUNNING(job_ptr) || IS_JOB_SUSPENDED(job_ptr)) {
		list_itr_t *it;
		gres_state_t *gs;
		j.running = 1;
		j.start_s = job_ptr->start_time;
		if (!job_ptr->node_bitmap || !job_ptr->gres_list_alloc)
			return 0;
		/* gres_cnt_node_alloc is by position in the job's nodes. */
		int pos = 0, n = 0;
		for (int i = 0; i < node_record_count; i++) {
			uint64_t cnt = 0;
			if (!bit_test(job_ptr->node_bitmap, i))
				continue;
			it = list_iterator_create(job_ptr->gres_list_alloc);
			while ((gs = list_next(it))) {
				gres_job_state_t *js = gs->gres_data;
				if (is_gpu(gs) && js->gres_cnt_node_alloc &&
				    (uint32_t) pos < js->node_cnt)
					cnt += js->gres_cnt_node_alloc[pos];
			}
			list_iterator_destroy(it);
			pos++;
			if (cnt) {
				where_node[n] = i;
				job_holding_on(job_ptr, i, &b->where_cpus[n],
					       &b->where_mem[n]);
				where_gpus[n++] = cnt;
			}
		}
		j.where_node = where_node;
		j.where_gpus = where_gpus;
		j.where_cpus = b->where_cpus;
		j.where_mem_mb = b->where_mem;
		j.where_count = n;
		if (!n)
			return 0;
	} else {
		job_details_t *d = job_ptr->details;
		bitstr_t *parts = bit_alloc(node_record_count);
		int n = 0;
		if (job_ptr->part_ptr_list) {
			list_itr_t *it = list_iterator_create(job_ptr->part_ptr_list);
			part_record_t *p;
			while ((p = list_next(it)))
				if (p->node_bitmap)
					bit_or(parts, p->node_bitmap);
			list_iterator_destroy(it);
		} else if (job_ptr->part_ptr && job_ptr->part_ptr->node_bitmap) {
			bit_or(parts, job_ptr->part_ptr->node_bitmap);
		}
		bool no_resv_node;
		bitstr_t *resv = job_resv_nodes(job_ptr, now, &no_resv_node);
		if (no_resv_node)
			bit_clear_all(parts);
		else if (resv)
			bit_and(parts, resv);
		FREE_NULL_BITMAP(resv);
		for (int i = 0; i < node_record_count; i++) {
			if (!bit_test(parts, i) || !node_usable(i))
				continue;
			if (d && d->exc_node_bitmap && bit_test(d->exc_node_bitmap, i))
				continue;
			if (d && d->req_node_bitmap && !bit_test(d->req_node_bitmap, i))
				continue;
			if (d && !node_has_features(node_record_table_ptr[i], d->features))
				continue;
			if (!node_has_gpu_types(node_record_table_ptr[i], job_ptr))
				continue;
			eligible[n++] = i;
		}
		FREE_NULL_BITMAP(parts);
		n = refusals_filter(job_ptr->job_id, eligible, n);
		if (!required_nodes_modelled(job_ptr, moldable ? (int) j.opts->gpus_max
							       : j.gpus)) {
			/* No node in the plan: cons_tres places it (Pass);
			 * said once, as it leaves the plan. */
			omru_ctl_decision_t was;
			if (n && omru_ctl_lookup(ctl, job_ptr->job_id, &was) &&
			    was.kind != OMRU_DECIDE_PASS)
				debug("%s: %pJ must include the nodes of its "
				      "--nodelist and may need others: cons_tres "
				      "places it", plugin_type, job_ptr);
			n = 0;
		} else if (!n) {
			note_no_node(job_ptr);
		}
		j.eligible = eligible;
		j.eligible_count = n;
		j.held = job_waits_for_other_reasons(job_ptr, now);
	}
	if (omru_ctl_snapshot_job(ctl, &j, err, sizeof(err)) != OMRU_OK)
		error("%s: %pJ left out of the plan: %s", plugin_type,
		      job_ptr, err);
	return 0;
}

static bool job_still_pending(uint32_t job_id)
{
	job_record_t *job_ptr = find_job_record ? find_job_record(job_id) : NULL;
	return job_ptr && IS_JOB_PENDING(job_ptr);
}

/* Pending or running: what it asked is still needed (asked_gpus.c). */
static bool job_not_finished(uint32_t job_id)
{
	job_record_t *job_ptr = find_job_record ? find_job_record(job_id) : NULL;
	return job_ptr && (IS_JOB_PENDING(job_ptr) || IS_JOB_RUNNING(job_ptr) ||
			   IS_JOB_SUSPENDED(job_ptr));
}

/* A pending job the snapshot offers the plan: a candidate for `starts`. */
static void note_candidate(uint32_t job_id)
{
	if (starts_len == starts_cap) {
		starts_cap = starts_cap ? 2 * starts_cap : 16;
		xrecalloc(starts, starts_cap, sizeof(*starts));
	}
	starts[starts_len++] = job_id;
}

/* A pending job the last plan had that Slurm now keeps waiting: why it
 * leaves the plan (once, as it leaves; debug). */
static void note_left_out(job_record_t *job_ptr)
{
	omru_ctl_decision_t d;

	if (omru_ctl_lookup(ctl, job_ptr->job_id, &d))
		debug("%s: %pJ leaves the plan until Slurm asks for it again: "
		      "it waits for %s", plugin_type, job_ptr,
		      job_ptr->priority == 0 ? "a release (held)" :
		      (job_ptr->details && job_ptr->details->begin_time > time(NULL)) ?
			      "its begin time" :
			      omru_job_reason_string(job_ptr->state_reason));
}

/* Of the candidates, the pending jobs the new plan starts now. */
static void keep_planned_starts(void)
{
	omru_ctl_decision_t d;
	int kept = 0;

	for (int i = 0; i < starts_len; i++)
		if (omru_ctl_lookup(ctl, starts[i], &d) && d.kind == OMRU_DECIDE_START)
			starts[kept++] = starts[i];
	starts_len = kept;
}

/*
 * slurmctld's scheduler skips a job over a limit without asking job_test
 * and writes why in its state_reason; the plan that starts it now would
 * keep its GPUs idle until the next periodic plan.
 */
extern bool planned_start_blocked(uint32_t testing)
{
	if (!find_job_record)
		return false;
	for (int i = 0; i < starts_len; i++) {
		/* Slurm asks job_test for it: nothing keeps it waiting. */
		if (starts[i] == testing)
			continue;
		job_record_t *job_ptr = find_job_record(starts[i]);
		if (job_ptr && IS_JOB_PENDING(job_ptr) &&
		    job_blocked_by_slurm(job_ptr) &&
		    !omru_ctl_resuming(ctl, job_ptr->job_id))
			return true;
	}
	return false;
}

/* Snapshot of nodes and GPU jobs, then a plan.  Caller holds plan_lock;
 * slurmctld holds the job and node write locks around job_test.  RET how
 * many pending jobs the plan starts now. */
extern int replan(time_t now)
{
	char err[512], stats[512];
	snap_buffers_t b;
	job_record_t *job_ptr;
	list_itr_t *it;

	if (!&job_list || !job_list || !&node_record_table_ptr ||
	    !&node_record_count || !node_record_table_ptr)
		return 0;
	double t0 = mono_now();
	omru_ctl_snapshot_begin(ctl, now, node_record_count);
	for (int i = 0; i < node_record_count; i++) {
		node_record_t *n = node_record_table_ptr[i];
		int gpus, alloc;
		node_gpus(n, &gpus, &alloc);
		omru_ctl_snapshot_node(ctl, i, n ? n->name : "", gpus, alloc,
				       node_startable(i));
	}
	snapshot_gpu_links();
	b.eligible = xcalloc(node_record_count + 1, sizeof(int));
	b.where_node = xcalloc(node_record_count + 1, sizeof(int));
	b.where_gpus = xcalloc(node_record_count + 1, sizeof(int));
	b.where_cpus = xcalloc(node_record_count + 1, sizeof(double));
	b.where_mem = xcalloc(node_record_count + 1, sizeof(double));
	b.cpus_alloc = xcalloc(node_record_count + 1, sizeof(double));
	b.mem_alloc = xcalloc(node_record_count + 1, sizeof(double));
	/* A node's resources changed: what it refused may fit now. */
	uint64_t stamp = node_config_stamp();
	if (stamp != refusals_stamp) {
		refusals_stamp = stamp;
		refusals_forget_all();
	}
	refusals_sweep(job_still_pending);
	limit_blocked_clear();
	asked_gpus_sweep(job_not_finished);
	plan_pools_begin();
	starts_len = 0;
	it = list_iterator_create(job_list);
	while ((job_ptr = list_next(it))) {
		/* Every running job holds CPUs and memory, GPUs or not. */
		if (IS_JOB_RUNNING(job_ptr) || IS_JOB_SUSPENDED(job_ptr)) {
			job_add_holdings(job_ptr, b.cpus_alloc, b.mem_alloc);
			plan_pools_count_running(job_ptr);
		}
		if (IS_JOB_PENDING(job_ptr)) {
			/* A job requeued to resume from a resize waits out
			 * Slurm's requeue delay on the GPUs held for it. */
			if (job_waits_for_other_reasons(job_ptr, now) &&
			    !(job_ptr->priority &&
			      omru_ctl_resuming(ctl, job_ptr->job_id))) {
				note_left_out(job_ptr);
				continue;
			}
			note_candidate(job_ptr->job_id);
		} else if (!IS_JOB_RUNNING(job_ptr) && !IS_JOB_SUSPENDED(job_ptr) &&
			   !awaits_resize_requeue(job_ptr)) {
			continue;
		}
		add_job(job_ptr, now, &b);
	}
	list_iterator_destroy(it);
	snapshot_node_resources(b.cpus_alloc, b.mem_alloc);
	plan_pools_done();
	limit_blocked_done();
	xfree(b.eligible);
	xfree(b.where_node);
	xfree(b.where_gpus);
	xfree(b.where_cpus);
	xfree(b.where_mem);
	xfree(b.cpus_alloc);
	xfree(b.mem_alloc);
	double t1 = mono_now();
	test_only_memo_sweep(memo);
	planned_since_stops = true;
	if (omru_ctl_plan(ctl, err, sizeof(err)) != OMRU_OK)
		error("%s: planning failed, GPU jobs are scheduled as plain "
		      "cons_tres until the next plan: %s", plugin_type, err);
	keep_planned_starts();
	admitted_len = 0;
	plan_priority_update(); /* written by plan_tick, which made it */
	double snap_ms = 1e3 * (t1 - t0), total_ms = 1e3 * (mono_now() - t0);
	last_plan_cost_s = total_ms / 1e3;
	gpus_freed = false;
	cost.replans++;
	cost.snapshot_ms += snap_ms;
	cost.total_ms += total_ms;
	if (snap_ms > cost.snapshot_max_ms)
		cost.snapshot_max_ms = snap_ms;
	if (total_ms > cost.total_max_ms)
		cost.total_max_ms = total_ms;
	omru_ctl_stats(ctl, stats, sizeof(stats));
	int memo_jobs;
	long memo_hits, memo_misses;
	test_only_memo_stats(memo, &memo_jobs, &memo_hits, &memo_misses);
	if (settings.log_plans)
		info("%s: plan: %s replan_ms=%.2f snapshot_ms=%.2f "
		     "job_tests=%ld/%ld/%ld test_only_memo=%d/%ld/%ld", plugin_type,
		     stats, total_ms, snap_ms, cost.tests[0], cost.tests[1],
		     cost.tests[2], memo_jobs, memo_hits, memo_misses);
	else
		debug("%s: plan: %s replan_ms=%.2f snapshot_ms=%.2f "
		      "job_tests=%ld/%ld/%ld test_only_memo=%d/%ld/%ld",
		      plugin_type, stats, total_ms, snap_ms, cost.tests[0],
		      cost.tests[1], cost.tests[2], memo_jobs, memo_hits,
		      memo_misses);
	if (mono_now() - last_stats_log >= 60) {
		last_stats_log = mono_now();
		info("%s: planner cost so far: %s; with the snapshot: replans=%ld "
		     "mean_ms=%.2f max_ms=%.2f snapshot_mean_ms=%.2f "
		     "snapshot_max_ms=%.2f", plugin_type, stats, cost.replans,
		     cost.total_ms / cost.replans, cost.total_max_ms,
		     cost.snapshot_ms / cost.replans, cost.snapshot_max_ms);
	}
	return starts_len;
}

/*
 * After a GPU job's end the next plan may come this soon: its GPUs idle
 * until a plan gives them out, and slurmctld runs its scheduler at once
 * after an end (with PlanIntervalMin=1 the plan came ~1 s later, at the
 * next pass: every start after an end waited that long; limits bench,
 * issue 26).  Ten times the last plan's cost, so that ends in a burst never
 * keep slurmctld planning more than a tenth of the time, and never more
 * than PlanIntervalMin.
 */
static double freed_gap_s(void)
{
	return MIN(settings.plan_interval_min_s, MAX(0.1, 10 * last_plan_cost_s));
}

/* A plan is due: something changed and PlanIntervalMin passed (a GPU job
 * ended and freed_gap_s passed), or PlanIntervalMax passed.  Caller holds
 * plan_lock. */
extern bool plan_due(double t)
{
	return ctl && ((dirty && t - last_plan_at >= settings.plan_interval_min_s) ||
		       (gpus_freed && t - last_plan_at >= freed_gap_s()) ||
		       t - last_plan_at >= settings.plan_interval_max_s);
}

/*
 * New jobs bring the next plan at most this often (doc/report-bounds.md):
 * a stream of submissions must not plan back to back, whatever
 * PlanIntervalMin says.  Such a job waits for that plan (at most this
 * long) instead of starting as plain cons_tres.
 */
extern double plan_forced_gap_s(void)
{
	return MAX(settings.plan_interval_min_s, 1.0);
}

/*
 * Seconds from t until plan_wanted_now turns true if nothing else happens
 * (0: now).  The thread sleeps that long, not a whole second: a job
 * submitted just after a plan waited up to a second more than the forced
 * gap for the plan that starts it.
 */
extern double plan_wait_s(double t)
{
	if (!ctl)
		return settings.plan_interval_max_s;
	if (replan_now)
		return 0;
	double since = t - last_plan_at;
	double wait = settings.plan_interval_max_s - since;
	if (dirty)
		wait = MIN(wait, settings.plan_interval_min_s - since);
	if (gpus_freed)
		wait = MIN(wait, freed_gap_s() - since);
	if (plan_wanted)
		wait = MIN(wait, plan_forced_gap_s() - since);
	return MAX(wait, 0.0);
}

extern bool plan_wanted_now(double t)
{
	return ctl && (replan_now || plan_due(t) ||
		       (plan_wanted && t - last_plan_at >= plan_forced_gap_s()));
}
