/*
 * job_request.c - what a GPU job asks of Slurm (its GPU request, its OMRU
 * options from spank_job_env, its CPUs per GPU) and how select/omru
 * rewrites a pending job's request to the plan's count
 * (doc/slurm-facts.md, "GPU count").
 */
#include "plan_glue.h"

#include <string.h>

extern bool is_gpu(gres_state_t *gs)
{
	return gs && gs->gres_name && !xstrcmp(gs->gres_name, "gpu") &&
	       gs->gres_data;
}

extern gres_job_state_t *next_gpu_entry(list_itr_t *it)
{
	gres_state_t *gs;

	while ((gs = list_next(it)))
		if (is_gpu(gs))
			return gs->gres_data;
	return NULL;
}

/* The job's GPU request (gres_list_req), summed over typed entries. */
extern bool job_gpu_request(job_record_t *job_ptr, job_gpus_t *out)
{
	list_itr_t *it;
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

/*
 * Whether the job's --omru-gpus asks more than omru.conf's MaxJobGpus (err
 * says so).  spank_omru's max_gpus refuses such a range at submission; a
 * job submitted without the plugin (a private plugstack, the raw API) is
 * checked here, so the site's cap holds whatever the client ran.
 */
static bool above_site_cap(const omru_job_options_t *o, char *err, size_t len)
{
	int cap = settings.max_job_gpus;

	if (cap <= 0 || !(o->set & OMRU_OPT_GPUS) || o->gpus_max <= (uint32_t) cap)
		return false;
	snprintf(err, len, "--omru-gpus=%u-%u asks more than MaxJobGpus=%d",
		 o->gpus_min, o->gpus_max, cap);
	return true;
}

/* A count Slurm stores for the job, 0 or NO_VAL when unset: at least 1. */
static uint32_t at_least_one(uint32_t v, uint32_t unset)
{
	return (v == 0 || v == unset) ? 1 : v;
}

/* The job's tasks (-n) and CPUs per task (-c), 1 when unset. */
extern void job_task_shape(const job_details_t *d, uint64_t *tasks,
			   uint64_t *per_task)
{
	*tasks = at_least_one(d->num_tasks, NO_VAL);
	*per_task = at_least_one(d->cpus_per_task, NO_VAL16);
}

/*
 * A job that set --cpus-per-gpu itself keeps it (job_cpus_per_gpu), so
 * below ceil(tasks x cpus-per-task / that) GPUs its tasks would not get
 * their CPUs on 24.11 (doc/slurm-releases.md, "Tasks and CPUs per GPU"):
 * its range starts there, or at its top when that is below.  On 22.05,
 * which adds the tasks' CPUs, this only gives up counts such a job rarely
 * asks for; one rule keeps the plan the same on every release.
 */
static void range_from_tasks(job_record_t *job_ptr, omru_job_options_t *o)
{
	job_details_t *d = job_ptr->details;
	int per_gpu = job_cpus_per_gres(job_ptr);

	if (!(o->set & OMRU_OPT_GPUS) || !d || per_gpu <= 0 ||
	    !job_asked_cpus_per_gpu(job_ptr))
		return;
	uint64_t tasks, per_task;
	job_task_shape(d, &tasks, &per_task);
	uint64_t need = (tasks * per_task + per_gpu - 1) / per_gpu;
	if (need > o->gpus_min)
		o->gpus_min = need < o->gpus_max ? (uint32_t) need : o->gpus_max;
}

extern void job_options(job_record_t *job_ptr, job_gpus_t *g)
{
	char err[256];

	g->opts_ok = true;
	if (!job_ptr->spank_job_env_size || !job_ptr->spank_job_env)
		return;
	if (omru_job_options_from_env(
		    (const char *const *) job_ptr->spank_job_env,
		    job_ptr->spank_job_env_size, &g->opts, err, sizeof(err))
		    != OMRU_OK ||
	    above_site_cap(&g->opts, err, sizeof(err))) {
		/* Said once per job: job_test runs for it many times. */
		static uint32_t last_reported = 0;
		g->opts_ok = false;
		memset(&g->opts, 0, sizeof(g->opts));
		if (last_reported != job_ptr->job_id)
			error("%s: %pJ: invalid OMRU options in spank_job_env "
			      "(%s); scheduled as a plain cons_tres job",
			      plugin_type, job_ptr, err);
		last_reported = job_ptr->job_id;
		return;
	}
	range_from_tasks(job_ptr, &g->opts);
}

/*
 * A job that set --cpus-per-gpu itself: slurmctld made its minimum CPUs
 * the GPUs it asked times that at submission (gres_job_state_validate), so
 * at a lower count it would ask more CPUs than 24.11's cons_tres gives its
 * GPUs on a node, and be spread or refused.  Derived again from the count
 * it is rewritten to, never below its tasks' CPUs (a requeue starts from
 * that count; the plan rewrites it again).  Other jobs' minimum comes from
 * their tasks and stays.
 */
static void min_cpus_for_gpus(job_record_t *job_ptr, int gpus)
{
	job_details_t *d = job_ptr->details;
	int per_gpu = job_cpus_per_gres(job_ptr);

	if (!d || per_gpu <= 0 || !job_asked_cpus_per_gpu(job_ptr))
		return;
	uint64_t tasks, per_task;
	job_task_shape(d, &tasks, &per_task);
	uint64_t cpus = MAX(tasks * per_task, (uint64_t) gpus * per_gpu);
	d->min_cpus = cpus > UINT32_MAX / 2 ? UINT32_MAX / 2 : (uint32_t) cpus;
	/* Each scheduling pass resets min_cpus from it (job_limits_check). */
	d->orig_min_cpus = d->min_cpus;
}

/* --gpus=N rewritten to `gpus`: the request, its string and ReqTRES. */
extern void set_job_gpus(job_record_t *job_ptr, int gpus)
{
	list_itr_t *it;
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
			slurm_mutex_lock(&plan_lock);
			asked_gpus_note(job_ptr->job_id, (int) js->gres_per_job);
			slurm_mutex_unlock(&plan_lock);
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
	min_cpus_for_gpus(job_ptr, gpus);
	if (!job_ptr->tres_per_job)
		return;
	/* "gres:gpu[:type]:N[,other]" (up to 23.02's clients) or
	 * "gres/gpu[:type]:N" (23.11's): replace N of the gpu entry, keeping
	 * the form the job came with. */
	copy = xstrdup(job_ptr->tres_per_job);
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *colon = strrchr(tok, ':');
		bool gpu = (!xstrncmp(tok, "gres:gpu", 8) ||
			    !xstrncmp(tok, "gres/gpu", 8)) &&
			   (tok[8] == ':' || tok[8] == '\0');
		if (gpu && colon && colon > tok + 7)
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

/*
 * Whether the job asked --cpus-per-gpu itself (Slurm keeps the request in
 * cpus_per_tres, "gres:gpu:N"): then its request stands.  cpus_per_gres
 * cannot tell: select/omru sets it too, and its value follows the plan.
 */
extern bool job_asked_cpus_per_gpu(job_record_t *job_ptr)
{
	return job_ptr->cpus_per_tres && strstr(job_ptr->cpus_per_tres, "gpu");
}

/*
 * IN d - the job's decision (PASS when the plan does not have it)
 * IN nodes - the nodes it may start on now
 * RET the CPUs per GPU select/omru gives an OMRU job: the plan's (its
 *     model's loader demand with LoaderCpus=yes, else CpusPerGpu), or
 *     CpusPerGpu when the plan has none, raised to what its tasks need at
 *     the count its request holds now (job_task_cpus_per_gpu); 0: leave
 *     its CPUs alone (it asked --cpus-per-gpu, or nothing is set).  The
 *     loader demand's raise is capped at what every node of `nodes` can
 *     give each of its GPUs: beyond it a node could not host the GPUs the
 *     plan puts there, and cons_tres would refuse the planned start again
 *     and again.
 */
extern int job_cpus_per_gpu(job_record_t *job_ptr, const omru_ctl_decision_t *d,
			    bitstr_t *nodes)
{
	int want = d->cpus_per_gpu > 0 ? d->cpus_per_gpu : settings.cpus_per_gpu;
	int cap;

	if (want <= 0 || job_asked_cpus_per_gpu(job_ptr))
		return 0;
	if (want > settings.cpus_per_gpu) {
		cap = node_cpus_per_gpu(nodes);
		if (cap > 0 && want > cap)
			want = MAX(cap, settings.cpus_per_gpu);
	}
	return MAX(want, job_task_cpus_per_gpu(job_ptr));
}

/*
 * IN job_ptr - a job whose GPU request holds the count it is tested at
 * RET CPUs per GPU that give each of its tasks its CPUs wherever its GPUs
 *     go: ceil(tasks / GPUs) * cpus-per-task with at least a task per GPU,
 *     else (fewer tasks than GPUs) ceil(tasks * cpus-per-task / GPUs), so a
 *     single -c8 process on 4 GPUs is not given 32 CPUs.  24.11's
 *     cons_tres gives a job with cpus-per-GPU set no more CPUs on a node
 *     than its GPUs there times that (22.05 added its tasks' CPUs), so a
 *     count the plan lowers below the job's tasks (-n2 --gpus=2 planned at
 *     1) would leave them without CPUs: refused on its planned node,
 *     spread by cons_tres over others (min_nodes raised at submission), or
 *     BadConstraints.
 */
extern int job_task_cpus_per_gpu(job_record_t *job_ptr)
{
	job_gpus_t g;
	job_details_t *d = job_ptr->details;

	if (!d || !job_gpu_request(job_ptr, &g))
		return 0;
	uint64_t tasks, per_task;
	job_task_shape(d, &tasks, &per_task);
	uint64_t gpus = (uint64_t) g.gpus;
	uint64_t cpus = tasks >= gpus ? (tasks + gpus - 1) / gpus * per_task :
			(tasks * per_task + gpus - 1) / gpus;
	return cpus > UINT16_MAX ? UINT16_MAX : (int) cpus;
}

/* The job's CPUs per GPU set to `cpus` (> 0) on its GPU request. */
extern void set_job_cpus(job_record_t *job_ptr, int cpus)
{
	list_itr_t *it;
	gres_job_state_t *js;
	bool changed = false;

	if (cpus <= 0 || cpus > UINT16_MAX)
		return;
	it = list_iterator_create(job_ptr->gres_list_req);
	while ((js = next_gpu_entry(it))) {
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
extern int job_cpus_per_gres(job_record_t *job_ptr)
{
	list_itr_t *it;
	gres_job_state_t *js;
	int cpus = 0;

	if (!job_ptr->gres_list_req)
		return 0;
	it = list_iterator_create(job_ptr->gres_list_req);
	while (!cpus && (js = next_gpu_entry(it)))
		cpus = js->cpus_per_gres;
	list_iterator_destroy(it);
	return cpus;
}
