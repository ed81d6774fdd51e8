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
	}
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
 *     CpusPerGpu when the plan has none; 0: leave its CPUs alone (it asked
 *     --cpus-per-gpu, or nothing is set).  The loader demand's raise is
 *     capped at what every node of `nodes` can give each of its GPUs:
 *     beyond it a node could not host the GPUs the plan puts there, and
 *     cons_tres would refuse the planned start again and again.
 */
extern int job_cpus_per_gpu(job_record_t *job_ptr, const omru_ctl_decision_t *d,
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
