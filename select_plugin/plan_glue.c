/*
 * plan_glue.c - select/omru_cons_tres puts the OMRU plan in charge of
 * every GPU job in slurmctld (doc/select_omru_cons_tres.8).
 *
 * job_test:  re-plans when something changed (at most once per
 *            PlanIntervalMin, at least every PlanIntervalMax), then answers
 *            from the plan: RUN_NOW only for jobs the plan starts now, with
 *            the planned GPU count on the planned nodes; WILL_RUN with the
 *            planned start; TEST_ONLY always with a count that fits an
 *            empty cluster (refusing it would make the job BadConstraints).
 *            OMRU jobs without --cpus-per-gpu get CpusPerGpu, or with
 *            LoaderCpus=yes one CPU per GPU for the step plus the loader
 *            workers their model was measured to need.
 * job_begin: the best-linked free GPUs of each node, the AdminComment.
 * job_fini, node changes: the next job_test re-plans.
 *
 * Mechanics and why they work: ../shared/notes (slurm-22.05-select-
 * mechanics.md) in the project.  Everything read from Slurm is checked;
 * when the plugin's own data is bad or the planner fails, the job is
 * scheduled as plain cons_tres would, with an error() line.
 */
#include "config.h"

/* Call libslurm's exported slurm_* names, as Slurm's own plugins do: they
 * exist in libslurm.so (API clients) as well as in libslurmfull. */
#include "src/common/slurm_xlator.h"

#include <math.h>
#include <sys/wait.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "src/common/bitstring.h"
#include "src/common/gres.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/run_in_daemon.h"
#include "src/common/select.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/locks.h"
#include "omru/omru.h"
#include "omru/omru_ctl.h"
#include "omru_select.h"
#include "test_only_memo.h"

/*
 * slurmctld's own data and functions: weak, because every Slurm command
 * loads this plugin too (they resolve to NULL there, and the planner is
 * never started outside slurmctld).
 */
extern List job_list __attribute__((weak));
/* In libslurmfull, but not in libslurm.so (API clients load us too). */
extern node_record_t **node_record_table_ptr __attribute__((weak));
extern int node_record_count __attribute__((weak));
extern time_t last_node_update __attribute__((weak));
extern bitstr_t *avail_node_bitmap __attribute__((weak));
#pragma weak lock_slurmctld
#pragma weak unlock_slurmctld
#pragma weak job_set_req_tres

static pthread_mutex_t plan_lock = PTHREAD_MUTEX_INITIALIZER;
static omru_ctl_t *ctl = NULL;
static test_only_memo_t *memo = NULL; /* held jobs' TEST_ONLY answers */
static omru_ctl_settings_t settings;
static bool dirty = true;
static bool planned_since_stops = false; /* stops to send (elastic_glue.c) */
static double last_plan_at = -1e300; /* monotonic seconds */
static uint32_t forced_for = 0; /* the last job planned at once as new */
static time_t seen_node_update = 0;
static double last_stats_log = 0;
/* A re-plan as slurmctld pays for it: reading its jobs and nodes (the
 * snapshot) and planning, under its locks. */
static struct {
	long tests[3]; /* job_test calls by mode: RUN_NOW, TEST_ONLY, WILL_RUN */
	long replans;
	double snapshot_ms, snapshot_max_ms, total_ms, total_max_ms;
} cost;

/* What select/omru needs to know of a job's GPU request. */
typedef struct {
	int gpus; /* per job, or per node x min nodes */
	bool per_job; /* --gpus=N: the count can be rewritten */
	omru_job_options_t opts;
	bool opts_ok;
} job_gpus_t;

static double mono_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static bool is_gpu(gres_state_t *gs)
{
	return gs && gs->gres_name && !xstrcmp(gs->gres_name, "gpu") &&
	       gs->gres_data;
}

/* The job's GPU request (gres_list_req), summed over typed entries. */
static bool job_gpu_request(job_record_t *job_ptr, job_gpus_t *out)
{
	ListIterator it;
	gres_state_t *gs;
	int entries = 0;
	uint32_t nodes = job_ptr->details ? job_ptr->details->min_nodes : 1;

	memset(out, 0, sizeof(*out));
	if (!job_ptr->gres_list_req)
		return false;
	it = list_iterator_create(job_ptr->gres_list_req);
	while ((gs = list_next(it))) {
		gres_job_state_t *js;
		if (!is_gpu(gs))
			continue;
		js = gs->gres_data;
		entries++;
		if (js->gres_per_job) {
			out->gpus += js->gres_per_job;
			out->per_job = true;
		} else if (js->gres_per_node) {
			out->gpus += js->gres_per_node * (nodes ? nodes : 1);
		} else if (js->total_gres && js->total_gres < 100000) {
			out->gpus += js->total_gres;
		}
	}
	list_iterator_destroy(it);
	if (entries != 1)
		out->per_job = false; /* one entry only can be rewritten */
	return entries > 0 && out->gpus > 0;
}

static void job_options(job_record_t *job_ptr, job_gpus_t *g)
{
	char err[256];

	g->opts_ok = true;
	if (!job_ptr->spank_job_env_size || !job_ptr->spank_job_env)
		return;
	if (omru_job_options_from_env(
		    (const char *const *) job_ptr->spank_job_env,
		    job_ptr->spank_job_env_size, &g->opts, err, sizeof(err))
	    != OMRU_OK) {
		/* Said once per job: job_test runs for it many times. */
		static uint32_t last_reported = 0;
		g->opts_ok = false;
		memset(&g->opts, 0, sizeof(g->opts));
		if (last_reported != job_ptr->job_id)
			error("%s: %pJ: invalid OMRU options in spank_job_env "
			      "(%s); scheduled as a plain cons_tres job",
			      plugin_type, job_ptr, err);
		last_reported = job_ptr->job_id;
	}
}

/* --gpus=N rewritten to `gpus`: the request, its string and ReqTRES. */
static void set_job_gpus(job_record_t *job_ptr, int gpus)
{
	ListIterator it;
	gres_state_t *gs;
	char *new_tres = NULL, *tok, *save = NULL, *copy;
	bool changed = false;

	it = list_iterator_create(job_ptr->gres_list_req);
	while ((gs = list_next(it))) {
		gres_job_state_t *js;
		if (!is_gpu(gs))
			continue;
		js = gs->gres_data;
		if (js->gres_per_job && js->gres_per_job != (uint64_t) gpus) {
			js->gres_per_job = gpus;
			js->total_gres = gpus;
			changed = true;
		}
	}
	list_iterator_destroy(it);
	if (!changed)
		return;
	/* cons_tres caches the request merged by type; rebuilt when absent. */
	FREE_NULL_LIST(job_ptr->gres_list_req_accum);
	if (!job_ptr->tres_per_job)
		return;
	/* "gres:gpu[:type]:N[,other]" - replace N of the gpu entry. */
	copy = xstrdup(job_ptr->tres_per_job);
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *colon = strrchr(tok, ':');
		if (!xstrncmp(tok, "gres:gpu", 8) && colon && colon > tok + 7)
			xstrfmtcat(new_tres, "%s%.*s:%d", new_tres ? "," : "",
				   (int) (colon - tok), tok, gpus);
		else
			xstrfmtcat(new_tres, "%s%s", new_tres ? "," : "", tok);
	}
	xfree(copy);
	xfree(job_ptr->tres_per_job);
	job_ptr->tres_per_job = new_tres;
	if (job_set_req_tres)
		job_set_req_tres(job_ptr, false);
}

static bool node_usable(int i)
{
	node_record_t *n = node_record_table_ptr[i];
	if (!n)
		return false;
	if (&avail_node_bitmap && avail_node_bitmap)
		return bit_test(avail_node_bitmap, i);
	return !IS_NODE_DOWN(n) && !IS_NODE_DRAIN(n) && !IS_NODE_FAIL(n);
}

/* Configured and allocated GPUs of a node, from its GRES state. */
static void node_gpus(node_record_t *n, int *gpus, int *alloc)
{
	ListIterator it;
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

static gres_node_state_t *node_gpu_state(node_record_t *n)
{
	gres_state_t *gs;
	gres_node_state_t *found = NULL;
	ListIterator it;

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
 * Whether the job asked --cpus-per-gpu itself (Slurm keeps the request in
 * cpus_per_tres, "gres:gpu:N"): then its request stands.  cpus_per_gres
 * cannot tell: select/omru sets it too, and its value follows the plan.
 */
static bool job_asked_cpus_per_gpu(job_record_t *job_ptr)
{
	return job_ptr->cpus_per_tres && strstr(job_ptr->cpus_per_tres, "gpu");
}

/*
 * The CPUs per GPU the least CPU-rich node of `nodes` with GPUs can give
 * every one of its GPUs (its CPUs, less specialized ones, over its GPUs);
 * 0 when none has GPUs.
 */
static int node_cpus_per_gpu(bitstr_t *nodes)
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
 * IN d - the job's decision (PASS when the plan does not have it)
 * IN nodes - the nodes it may start on now
 * RET the CPUs per GPU select/omru gives an OMRU job: the plan's (its
 *     model's loader demand with LoaderCpus=yes, else CpusPerGpu), or
 *     CpusPerGpu when the plan has none; 0: leave its CPUs alone (it asked
 *     --cpus-per-gpu, or nothing is set).  The loader demand's raise is
 *     capped at what every node of `nodes` can give each of its GPUs:
 *     beyond it a node could not host the GPUs the plan puts there, and
 *     cons_tres would refuse the planned start again and again.
 */
static int job_cpus_per_gpu(job_record_t *job_ptr, const omru_ctl_decision_t *d,
			    bitstr_t *nodes)
{
	int want = d->cpus_per_gpu > 0 ? d->cpus_per_gpu : settings.cpus_per_gpu;
	int cap;

	if (want <= 0 || job_asked_cpus_per_gpu(job_ptr))
		return 0;
	if (want <= settings.cpus_per_gpu)
		return want;
	cap = node_cpus_per_gpu(nodes);
	if (cap > 0 && want > cap)
		want = MAX(cap, settings.cpus_per_gpu);
	return want;
}

/* The job's CPUs per GPU set to `cpus` (> 0) on its GPU request. */
static void set_job_cpus(job_record_t *job_ptr, int cpus)
{
	ListIterator it;
	gres_state_t *gs;
	bool changed = false;

	if (cpus <= 0 || cpus > UINT16_MAX)
		return;
	it = list_iterator_create(job_ptr->gres_list_req);
	while ((gs = list_next(it))) {
		gres_job_state_t *js;
		if (!is_gpu(gs))
			continue;
		js = gs->gres_data;
		if (js->cpus_per_gres != (uint16_t) cpus) {
			js->cpus_per_gres = cpus;
			changed = true;
		}
	}
	list_iterator_destroy(it);
	if (!changed)
		return;
	/* cons_tres caches the request merged by type; rebuilt when absent. */
	FREE_NULL_LIST(job_ptr->gres_list_req_accum);
	if (job_set_req_tres)
		job_set_req_tres(job_ptr, false);
}

/* The CPUs per GPU the job has now: from its request, 0 when none. */
static int job_cpus_per_gres(job_record_t *job_ptr)
{
	ListIterator it;
	gres_state_t *gs;
	int cpus = 0;

	if (!job_ptr->gres_list_req)
		return 0;
	it = list_iterator_create(job_ptr->gres_list_req);
	while ((gs = list_next(it)))
		if (is_gpu(gs) && !cpus)
			cpus = ((gres_job_state_t *) gs->gres_data)->cpus_per_gres;
	list_iterator_destroy(it);
	return cpus;
}

/* Every token of an AND-only constraint ("a&b", "a,b" is not AND). */
static bool node_has_features(node_record_t *n, const char *features)
{
	char *copy, *tok, *save = NULL;
	bool ok = true;
	const char *have = n->features_act ? n->features_act : n->features;

	if (!features || !*features)
		return true;
	if (strpbrk(features, "|[]*(),"))
		return true; /* not a plain AND: cons_tres filters alone */
	copy = xstrdup(features);
	for (tok = strtok_r(copy, "&", &save); tok && ok;
	     tok = strtok_r(NULL, "&", &save)) {
		char *hcopy = xstrdup(have), *h, *hs = NULL;
		bool found = false;
		for (h = strtok_r(hcopy, ",", &hs); h && !found;
		     h = strtok_r(NULL, ",", &hs))
			found = !xstrcmp(h, tok);
		xfree(hcopy);
		ok = found;
	}
	xfree(copy);
	return ok;
}

static uint32_t job_time_limit_min(job_record_t *job_ptr)
{
	uint32_t t = job_ptr->time_limit;
	part_record_t *p = job_ptr->part_ptr;

	if (t == NO_VAL && p)
		t = (p->default_time != NO_VAL) ? p->default_time : p->max_time;
	return (t == NO_VAL || t == INFINITE) ? 0 : t;
}

/*
 * What cons_tres's TEST_ONLY reads of the nodes: their configured
 * resources, not their state (the nodes offered say which are up) nor
 * what runs on them.  last_node_update moves at every job start and end;
 * this only when a node's resources change, so remembered TEST_ONLY
 * answers (test_only_memo.h) survive the cluster's traffic.  Caller holds
 * plan_lock.
 */
static uint64_t node_config_stamp(void)
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
	gres_node_state_t *ns = node_gpu_state(node_record_table_ptr[best_node]);
	int *links = xcalloc(best * best, sizeof(int));
	for (int a = 0; a < best; a++)
		for (int b = 0; b < best; b++)
			links[a * best + b] = ns->links_cnt[a] ? ns->links_cnt[a][b] : 0;
	if (omru_ctl_snapshot_links(ctl, links, best) != OMRU_OK)
		debug("%s: %s's GPU links are not a symmetric matrix; pipeline "
		      "splits are costed over PCIe", plugin_type,
		      node_record_table_ptr[best_node]->name);
	xfree(links);
}

/* Pending jobs that cannot start whatever the plan says stay out of it. */
static bool job_waits_for_other_reasons(job_record_t *job_ptr, time_t now)
{
	if (job_ptr->priority == 0 || job_ptr->het_job_id)
		return true;
	if (job_ptr->details && job_ptr->details->begin_time > now)
		return true;
	switch (job_ptr->state_reason) {
	case WAIT_DEPENDENCY:
	case WAIT_DEP_INVALID:
	case WAIT_HELD:
	case WAIT_HELD_USER:
		return true;
	default:
		return false;
	}
}

static int add_job(job_record_t *job_ptr, time_t now, int *eligible,
		   int *where_node, int *where_gpus)
{
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
	j.priority = job_ptr->priority;
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
	j.gpus = g.gpus;
	j.max_nodes = (job_ptr->details && job_ptr->details->max_nodes &&
		       job_ptr->details->max_nodes < 100000) ?
			      job_ptr->details->max_nodes : 0;
	if (IS_JOB_RUNNING(job_ptr) || IS_JOB_SUSPENDED(job_ptr)) {
		ListIterator it;
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
				where_gpus[n++] = cnt;
			}
		}
		j.where_node = where_node;
		j.where_gpus = where_gpus;
		j.where_count = n;
		if (!n)
			return 0;
	} else {
		struct job_details *d = job_ptr->details;
		bitstr_t *parts = bit_alloc(node_record_count);
		int n = 0;
		if (job_ptr->part_ptr_list) {
			ListIterator it = list_iterator_create(job_ptr->part_ptr_list);
			part_record_t *p;
			while ((p = list_next(it)))
				if (p->node_bitmap)
					bit_or(parts, p->node_bitmap);
			list_iterator_destroy(it);
		} else if (job_ptr->part_ptr && job_ptr->part_ptr->node_bitmap) {
			bit_or(parts, job_ptr->part_ptr->node_bitmap);
		}
		for (int i = 0; i < node_record_count; i++) {
			if (!bit_test(parts, i) || !node_usable(i))
				continue;
			if (d && d->exc_node_bitmap && bit_test(d->exc_node_bitmap, i))
				continue;
			if (d && d->req_node_bitmap && !bit_test(d->req_node_bitmap, i))
				continue;
			if (d && !node_has_features(node_record_table_ptr[i], d->features))
				continue;
			eligible[n++] = i;
		}
		FREE_NULL_BITMAP(parts);
		j.eligible = eligible;
		j.eligible_count = n;
		j.held = job_waits_for_other_reasons(job_ptr, now);
	}
	if (omru_ctl_snapshot_job(ctl, &j, err, sizeof(err)) != OMRU_OK)
		error("%s: %pJ left out of the plan: %s", plugin_type,
		      job_ptr, err);
	return 0;
}

/* Snapshot of nodes and GPU jobs, then a plan.  Caller holds plan_lock;
 * slurmctld holds the job and node write locks around job_test. */
static void replan(time_t now)
{
	char err[512], stats[256];
	int *eligible, *where_node, *where_gpus;
	job_record_t *job_ptr;
	ListIterator it;

	if (!&job_list || !job_list || !&node_record_table_ptr ||
	    !&node_record_count || !node_record_table_ptr)
		return;
	double t0 = mono_now();
	omru_ctl_snapshot_begin(ctl, now, node_record_count);
	for (int i = 0; i < node_record_count; i++) {
		node_record_t *n = node_record_table_ptr[i];
		int gpus, alloc;
		node_gpus(n, &gpus, &alloc);
		omru_ctl_snapshot_node(ctl, i, n ? n->name : "", gpus, alloc,
				       node_usable(i));
	}
	snapshot_gpu_links();
	eligible = xcalloc(node_record_count + 1, sizeof(int));
	where_node = xcalloc(node_record_count + 1, sizeof(int));
	where_gpus = xcalloc(node_record_count + 1, sizeof(int));
	it = list_iterator_create(job_list);
	while ((job_ptr = list_next(it))) {
		if (IS_JOB_PENDING(job_ptr)) {
			/* A job requeued to resume from a resize waits out
			 * Slurm's requeue delay on the GPUs held for it. */
			if (job_waits_for_other_reasons(job_ptr, now) &&
			    !(job_ptr->priority &&
			      omru_ctl_resuming(ctl, job_ptr->job_id)))
				continue;
		} else if (!IS_JOB_RUNNING(job_ptr) && !IS_JOB_SUSPENDED(job_ptr)) {
			continue;
		}
		add_job(job_ptr, now, eligible, where_node, where_gpus);
	}
	list_iterator_destroy(it);
	xfree(eligible);
	xfree(where_node);
	xfree(where_gpus);
	double t1 = mono_now();
	test_only_memo_sweep(memo);
	planned_since_stops = true;
	if (omru_ctl_plan(ctl, err, sizeof(err)) != OMRU_OK)
		error("%s: planning failed, GPU jobs are scheduled as plain "
		      "cons_tres until the next plan: %s", plugin_type, err);
	double snap_ms = 1e3 * (t1 - t0), total_ms = 1e3 * (mono_now() - t0);
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
}

/* A plan is due: something changed and PlanIntervalMin passed, or
 * PlanIntervalMax passed.  Caller holds plan_lock. */
static bool plan_due(double t)
{
	return ctl && ((dirty && t - last_plan_at >= settings.plan_interval_min_s) ||
		       t - last_plan_at >= settings.plan_interval_max_s);
}

static void maybe_replan(job_record_t *job_ptr, time_t now)
{
	double t = mono_now();
	omru_ctl_decision_t d;
	bool known = omru_ctl_lookup(ctl, job_ptr->job_id, &d);

	if (&last_node_update && last_node_update != seen_node_update) {
		seen_node_update = last_node_update;
		dirty = true;
	}
	bool unseen = false;
	if (!known && IS_JOB_PENDING(job_ptr)) {
		dirty = true; /* a new job */
		/*
		 * One no plan had yet (submitted, released or freed since):
		 * planned now, whatever PlanIntervalMin says, or it would
		 * start as plain cons_tres.  Once per job, in case the plan
		 * leaves it out for a reason Slurm does not test first.
		 */
		if (!omru_ctl_offered(ctl, job_ptr->job_id) &&
		    job_ptr->job_id != forced_for) {
			forced_for = job_ptr->job_id;
			unseen = true;
		}
	}
	if (unseen || plan_due(t)) {
		dirty = false;
		last_plan_at = t;
		replan(now);
	}
}

static void describe_wait(job_record_t *job_ptr, const omru_ctl_decision_t *d,
			  time_t start)
{
	char when[32];
	struct tm tm;

	localtime_r(&start, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	xfree(job_ptr->state_desc);
	if (d->kind == OMRU_DECIDE_WAIT)
		xstrfmtcat(job_ptr->state_desc,
			   "OMRU plan: %d GPU(s) at %s", d->gpus, when);
	else
		xstrfmtcat(job_ptr->state_desc,
			   "OMRU plan: queued behind the planned jobs");
}

extern int omru_job_test(job_record_t *job_ptr, bitstr_t *node_bitmap,
			 uint32_t min_nodes, uint32_t max_nodes,
			 uint32_t req_nodes, uint16_t mode,
			 List preemptee_candidates, List *preemptee_job_list,
			 bitstr_t *exc_core_bitmap)
{
	job_gpus_t g;
	omru_ctl_decision_t d;
	time_t now = time(NULL);
	int rc;

#define DELEGATE()                                                            \
	omru_delegate_job_test(job_ptr, node_bitmap, min_nodes, max_nodes,   \
			       req_nodes, mode, preemptee_candidates,        \
			       preemptee_job_list, exc_core_bitmap)

	if (!ctl || !job_ptr || !job_gpu_request(job_ptr, &g) ||
	    job_ptr->het_job_id)
		return DELEGATE(); /* CPU-only jobs pass straight through */
	job_options(job_ptr, &g);
	if (!g.opts_ok || (!g.opts.set && !settings.plan_rigid_jobs))
		return DELEGATE();
	bool moldable = g.per_job && (g.opts.set & OMRU_OPT_GPUS);

	slurm_mutex_lock(&plan_lock);
	cost.tests[mode == SELECT_MODE_RUN_NOW ? 0 : mode == SELECT_MODE_TEST_ONLY ? 1 : 2]++;
	if (mode != SELECT_MODE_TEST_ONLY)
		maybe_replan(job_ptr, now);
	omru_ctl_lookup(ctl, job_ptr->job_id, &d);
	bool send_stops = planned_since_stops && settings.elastic;
	planned_since_stops = false;
	slurm_mutex_unlock(&plan_lock);
	if (send_stops)
		omru_elastic_after_plan(ctl, &plan_lock);

	if (mode == SELECT_MODE_TEST_ONLY || d.kind == OMRU_DECIDE_PASS) {
		/* Any count of the range must fit an empty cluster. */
		if (moldable)
			set_job_gpus(job_ptr, g.opts.gpus_min);
		if (g.opts.set)
			set_job_cpus(job_ptr, job_cpus_per_gpu(job_ptr, &d, node_bitmap));
		if (mode != SELECT_MODE_TEST_ONLY || d.kind == OMRU_DECIDE_PASS)
			return DELEGATE();
		slurm_mutex_lock(&plan_lock);
		uint64_t node_update = node_config_stamp();
		bool hit = test_only_memo_get(memo, job_ptr, node_bitmap, node_update);
		slurm_mutex_unlock(&plan_lock);
		if (hit)
			return SLURM_SUCCESS;
		bitstr_t *offered = bit_copy(node_bitmap);
		rc = DELEGATE();
		if (rc == SLURM_SUCCESS) {
			slurm_mutex_lock(&plan_lock);
			test_only_memo_put(memo, job_ptr, offered, node_bitmap,
					   node_update);
			slurm_mutex_unlock(&plan_lock);
		}
		FREE_NULL_BITMAP(offered);
		return rc;
	}
	if (mode == SELECT_MODE_RUN_NOW && d.kind != OMRU_DECIDE_START) {
		/*
		 * Refused as it is: with bf_min_prio_reserve every held job
		 * comes here in every main cycle, then in TEST_ONLY, so the
		 * request is left at the count TEST_ONLY gives it (rewriting
		 * it back and forth cost a TRES string per call).
		 */
		debug2("%s: %pJ: held back by the plan", plugin_type, job_ptr);
		return SLURM_ERROR; /* never TEST_ONLY: see above */
	}
	if (moldable)
		set_job_gpus(job_ptr, d.kind == OMRU_DECIDE_HOLD ?
					      (int) g.opts.gpus_min : d.gpus);

	if (mode == SELECT_MODE_RUN_NOW) {
		bitstr_t *planned;
		planned = bit_alloc(bit_size(node_bitmap));
		for (int i = 0; i < d.where_count; i++) {
			int node, cnt;
			if (omru_ctl_decision_where(&d, i, &node, &cnt) == OMRU_OK &&
			    node < bit_size(planned))
				bit_set(planned, node);
		}
		/*
		 * The plan packs GPUs on the fewest nodes; a job that asked
		 * for more nodes (-N) than that keeps every eligible node and
		 * cons_tres spreads it (the next plan reads where it went).
		 */
		if (!job_ptr->details ||
		    job_ptr->details->min_nodes <= (uint32_t) d.where_count)
			bit_and(node_bitmap, planned);
		FREE_NULL_BITMAP(planned);
		if (g.opts.set)
			set_job_cpus(job_ptr, job_cpus_per_gpu(job_ptr, &d, node_bitmap));
		rc = DELEGATE();
		if (rc == SLURM_SUCCESS)
			debug("%s: %pJ starts as planned: %d GPU(s) on %d node(s)",
			      plugin_type, job_ptr, d.gpus, d.where_count);
		else
			debug("%s: %pJ: planned start refused by cons_tres",
			      plugin_type, job_ptr);
		return rc;
	}

	/* WILL_RUN (backfill, squeue --start): the plan's answer. */
	if (g.opts.set)
		set_job_cpus(job_ptr, job_cpus_per_gpu(job_ptr, &d, node_bitmap));
	rc = DELEGATE();
	if (d.kind == OMRU_DECIDE_START)
		return rc;
	time_t start = (d.kind == OMRU_DECIDE_WAIT) ? (time_t) ceil(d.start_s) :
			now + (time_t) settings.plan_interval_max_s;
	if (rc == SLURM_SUCCESS && job_ptr->start_time > start)
		start = job_ptr->start_time;
	if (start <= now)
		start = now + 1; /* a held job is never answered "now" */
	if (rc != SLURM_SUCCESS && d.kind == OMRU_DECIDE_WAIT) {
		/* Keep the first planned-many available nodes for display. */
		int keep = d.nodes > 0 ? d.nodes : 1;
		for (int i = 0; i < bit_size(node_bitmap); i++)
			if (bit_test(node_bitmap, i) && keep-- <= 0)
				bit_clear(node_bitmap, i);
		rc = SLURM_SUCCESS;
	}
	if (rc == SLURM_SUCCESS) {
		job_ptr->start_time = start;
		describe_wait(job_ptr, &d, start);
	}
	return rc;
#undef DELEGATE
}

/* The best-linked free GPUs of each node for the count cons_tres chose
 * there; before select_nodeinfo_set, so the node accounting follows. */
static void pick_linked_gpus(job_record_t *job_ptr)
{
	ListIterator it;
	gres_state_t *gs;

	if (!job_ptr->gres_list_req || !job_ptr->node_bitmap)
		return;
	it = list_iterator_create(job_ptr->gres_list_req);
	while ((gs = list_next(it))) {
		gres_job_state_t *js;
		if (!is_gpu(gs))
			continue;
		js = gs->gres_data;
		if (!js->gres_bit_select)
			continue;
		for (int i = 0; i < node_record_count && (uint32_t) i < js->total_node_cnt; i++) {
			bitstr_t *sel = js->gres_bit_select[i];
			gres_node_state_t *ns;
			int n, cnt, *links = NULL, *slots;
			unsigned char *free_map;
			if (!sel || !bit_test(job_ptr->node_bitmap, i))
				continue;
			ns = node_gpu_state(node_record_table_ptr[i]);
			cnt = bit_set_count(sel);
			if (!ns || !ns->gres_bit_alloc || cnt < 1)
				continue;
			n = bit_size(ns->gres_bit_alloc);
			if (n != bit_size(sel) || n > 64)
				continue;
			free_map = xcalloc(n, 1);
			slots = xcalloc(n, sizeof(int));
			for (int b = 0; b < n; b++)
				free_map[b] = !bit_test(ns->gres_bit_alloc, b);
			if (ns->links_cnt) {
				links = xcalloc(n * n, sizeof(int));
				for (int a = 0; a < n; a++)
					for (int b = 0; b < n; b++)
						links[a * n + b] = ns->links_cnt[a] ?
							ns->links_cnt[a][b] : 0;
			}
			if (omru_select_gpus(links, n, free_map, cnt, slots) == OMRU_OK) {
				bit_clear_all(sel);
				for (int s = 0; s < cnt; s++)
					bit_set(sel, slots[s]);
			}
			xfree(links);
			xfree(slots);
			xfree(free_map);
		}
	}
	list_iterator_destroy(it);
}

extern void omru_job_begin(job_record_t *job_ptr)
{
	job_gpus_t g;
	omru_ctl_decision_t d;
	char comment[1024], desc[256], resumed[1100], note[256];
	char *nodes;

	if (!ctl || !job_ptr || !job_gpu_request(job_ptr, &g))
		return;
	job_options(job_ptr, &g);
	if (g.opts.set) {
		omru_job_options_format(&g.opts, desc, sizeof(desc));
		debug("%s: %pJ starts, OMRU options: %s", plugin_type,
		      job_ptr, desc);
	}
	slurm_mutex_lock(&plan_lock);
	dirty = true;
	omru_ctl_lookup(ctl, job_ptr->job_id, &d);
	if (d.kind != OMRU_DECIDE_START) {
		/* Not the plan's start: a resize waiting for it is over. */
		omru_ctl_job_started(ctl, job_ptr->job_id, time(NULL), NULL, NULL,
				     resumed, sizeof(resumed), note, sizeof(note));
		slurm_mutex_unlock(&plan_lock);
		return;
	}
	pick_linked_gpus(job_ptr);
	if (g.opts.set) {
		/* What job_test gave it (its own --cpus-per-gpu is not ours). */
		int cpus = job_asked_cpus_per_gpu(job_ptr) ? 0 :
			   job_cpus_per_gres(job_ptr);
		if (d.loader_need > 0 && cpus > settings.cpus_per_gpu)
			info("%s: %pJ %s: %d CPUs per GPU (loader demand %d "
			     "workers, learned%s)", plugin_type, job_ptr,
			     g.opts.model, cpus, d.loader_need,
			     cpus < 1 + d.loader_need ?
				     "; capped at what its nodes have per GPU" : "");
		nodes = bitmap2node_name(job_ptr->node_bitmap);
		if (omru_ctl_admin_comment(ctl, job_ptr->job_id, &g.opts, nodes,
					   time(NULL), cpus, comment,
					   sizeof(comment)) != OMRU_OK)
			comment[0] = '\0';
		xfree(nodes);
	} else {
		comment[0] = '\0';
	}
	/* A job resuming from a resize keeps its record (epochs_done) and
	 * gets the resize added; its restart cost is learned. */
	if (omru_ctl_job_started(ctl, job_ptr->job_id, time(NULL),
				 job_ptr->admin_comment, comment, resumed,
				 sizeof(resumed), note, sizeof(note))) {
		info("%s: %pJ %s", plugin_type, job_ptr, note);
		xfree(job_ptr->admin_comment);
		job_ptr->admin_comment = xstrdup(resumed);
	} else if (comment[0]) {
		xfree(job_ptr->admin_comment);
		job_ptr->admin_comment = xstrdup(comment);
	}
	slurm_mutex_unlock(&plan_lock);
}

extern void omru_job_fini(job_record_t *job_ptr)
{
	job_gpus_t g;
	char log[512];

	if (!ctl)
		return;
	bool omru_job = job_ptr && job_gpu_request(job_ptr, &g);
	if (omru_job)
		job_options(job_ptr, &g);
	slurm_mutex_lock(&plan_lock);
	dirty = true;
	if (job_ptr && omru_ctl_job_stopped(ctl, job_ptr->job_id,
					    WEXITSTATUS(job_ptr->exit_code),
					    time(NULL)))
		info("%s: %pJ stopped for its resize (exit status %d): Slurm "
		     "requeues it and the plan starts it first on its new GPUs",
		     plugin_type, job_ptr, OMRU_ELASTIC_EXIT_CODE);
	if (omru_job && g.opts.set && job_ptr->start_time &&
	    job_ptr->end_time >= job_ptr->start_time) {
		omru_ctl_job_end(ctl, job_ptr->job_id, job_ptr->user_id,
				 IS_JOB_COMPLETE(job_ptr), &g.opts, g.gpus,
				 (int) job_ptr->node_cnt,
				 difftime(job_ptr->end_time, job_ptr->start_time),
				 job_ptr->admin_comment, log, sizeof(log));
		if (log[0])
			info("%s: %pJ ended: %s", plugin_type, job_ptr, log);
	}
	slurm_mutex_unlock(&plan_lock);
}

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
	ListIterator it = list_iterator_create(job_list);
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
 * With nothing pending slurmctld never calls job_test, yet a job's end may
 * leave GPUs a running elastic job should grow into: this thread re-plans
 * then (as job_test would) and sends the stops, under slurmctld's locks
 * taken in its own order (them first, then plan_lock).
 */
static void elastic_tick(void)
{
	slurmctld_lock_t locks = { .job = WRITE_LOCK, .node = READ_LOCK,
				   .part = READ_LOCK };

	if (!lock_slurmctld || !settings.elastic)
		return;
	/* slurmctld's write lock only when a plan is due (looked at first
	 * under plan_lock alone, which must not be held while taking it). */
	slurm_mutex_lock(&plan_lock);
	bool due = plan_due(mono_now()) || planned_since_stops;
	slurm_mutex_unlock(&plan_lock);
	if (!due)
		return;
	lock_slurmctld(locks);
	slurm_mutex_lock(&plan_lock);
	double t = mono_now();
	if (plan_due(t)) {
		dirty = false;
		last_plan_at = t;
		replan(time(NULL));
	}
	bool send = planned_since_stops;
	planned_since_stops = false;
	slurm_mutex_unlock(&plan_lock);
	if (send)
		omru_elastic_after_plan(ctl, &plan_lock);
	unlock_slurmctld(locks);
}

static void *store_sync(void *arg)
{
	(void) arg;
	slurm_mutex_lock(&plan_lock);
	while (!store_stop) {
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += STORE_SYNC_S;
		pthread_cond_timedwait(&store_wake, &plan_lock, &until);
		if (store_stop)
			break;
		slurm_mutex_unlock(&plan_lock);
		learn_reported_rows();
		store_sync_once();
		gains_sync_once();
		elastic_tick();
		slurm_mutex_lock(&plan_lock);
	}
	slurm_mutex_unlock(&plan_lock);
	return NULL;
}

/* omru.conf next to slurm.conf. */
static char *conf_path(void)
{
	char *path = xstrdup(slurm_conf.slurm_conf ? slurm_conf.slurm_conf :
						     "/etc/slurm/slurm.conf");
	char *slash = strrchr(path, '/');
	if (slash)
		slash[1] = '\0';
	else
		xfree(path);
	xstrcat(path, "omru.conf");
	return path;
}

static int configure(omru_ctl_t *c)
{
	char err[1024], desc[2048];
	char *path = conf_path();
	int rc = omru_ctl_configure(c, path, slurm_conf.state_save_location,
				    err, sizeof(err));
	if (rc != OMRU_OK) {
		error("%s: %s", plugin_type, err);
	} else {
		omru_ctl_describe(c, desc, sizeof(desc));
		info("%s: %s: %s", plugin_type, path, desc);
		omru_ctl_settings(c, &settings);
		/* Never stop a job Slurm would not requeue. */
		if (settings.elastic && !omru_elastic_check_config()) {
			omru_ctl_disable_resizing(c);
			settings.elastic = 0;
		}
	}
	xfree(path);
	return rc == OMRU_OK ? SLURM_SUCCESS : SLURM_ERROR;
}

extern int omru_plan_init(void)
{
	if (!running_in_slurmctld())
		return SLURM_SUCCESS;
	ctl = omru_ctl_create();
	memo = test_only_memo_create();
	if (!ctl) {
		error("%s: out of memory", plugin_type);
		return SLURM_ERROR;
	}
	if (configure(ctl) != SLURM_SUCCESS) {
		/* slurmctld must not start on a bad omru.conf. */
		omru_ctl_destroy(ctl);
		ctl = NULL;
		return SLURM_ERROR;
	}
	char err[1024];
	if (omru_ctl_store_load(ctl, err, sizeof(err)) != OMRU_OK)
		error("%s: profile store ignored, planning without what jobs "
		      "measured: %s", plugin_type, err);
	store_stop = false;
	if (pthread_create(&store_thread, NULL, store_sync, NULL) == 0)
		store_thread_running = true;
	else
		error("%s: no profile store thread: what jobs measure is used "
		      "but not saved", plugin_type);
	return SLURM_SUCCESS;
}

extern void omru_plan_fini(void)
{
	if (store_thread_running) {
		slurm_mutex_lock(&plan_lock);
		store_stop = true;
		pthread_cond_signal(&store_wake);
		slurm_mutex_unlock(&plan_lock);
		pthread_join(store_thread, NULL);
		store_thread_running = false;
		store_sync_once(); /* what the last seconds learned */
	}
	slurm_mutex_lock(&plan_lock);
	omru_ctl_destroy(ctl);
	ctl = NULL;
	test_only_memo_destroy(memo);
	memo = NULL;
	slurm_mutex_unlock(&plan_lock);
}

extern void omru_plan_reconfigure(void)
{
	if (!ctl)
		return;
	slurm_mutex_lock(&plan_lock);
	if (configure(ctl) != SLURM_SUCCESS)
		error("%s: omru.conf not applied, the previous configuration "
		      "stays", plugin_type);
	dirty = true;
	slurm_mutex_unlock(&plan_lock);
}

extern void omru_plan_state_save(void)
{
	char err[512];
	if (!ctl)
		return;
	slurm_mutex_lock(&plan_lock);
	if (omru_ctl_save_state(ctl, err, sizeof(err)) != OMRU_OK)
		error("%s: cannot save the plan state: %s", plugin_type, err);
	slurm_mutex_unlock(&plan_lock);
}

extern void omru_plan_state_restore(void)
{
	char err[512];
	if (!ctl)
		return;
	slurm_mutex_lock(&plan_lock);
	if (omru_ctl_load_state(ctl, err, sizeof(err)) != OMRU_OK)
		error("%s: ignoring the saved plan state: %s", plugin_type, err);
	dirty = true;
	slurm_mutex_unlock(&plan_lock);
}
