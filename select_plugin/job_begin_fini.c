/*
 * job_begin_fini.c - a GPU job starts (the best-linked GPUs of its nodes,
 * its AdminComment record, a resize's end) and ends (what it measured is
 * learned; an elastic job's stop); either way the next job_test re-plans.
 */
#include "plan_glue.h"

#include <sys/wait.h>

#include "omru/omru_record.h"

/* The GPU type (gres.conf Type=) of slot b, 0 when not known. */
static uint32_t gpu_type(gres_node_state_t *ns, int b)
{
	for (int t = 0; t < ns->topo_cnt && ns->topo_gres_bitmap; t++)
		if (ns->topo_gres_bitmap[t] && b < bit_size(ns->topo_gres_bitmap[t]) &&
		    bit_test(ns->topo_gres_bitmap[t], b))
			return ns->topo_type_id ? ns->topo_type_id[t] : 0;
	return 0;
}

/*
 * The type of the slots of `sel`; false when they are of several types
 * (then only they are the job's to choose from).
 */
static bool selected_type(gres_node_state_t *ns, bitstr_t *sel, uint32_t *type)
{
	bool seen = false;
	for (int s = 0; s < bit_size(sel); s++) {
		if (!bit_test(sel, s))
			continue;
		uint32_t t = gpu_type(ns, s);
		if (seen && t != *type)
			return false;
		*type = t;
		seen = true;
	}
	return true;
}

/* The best-linked free GPUs of each node for the count cons_tres chose
 * there; before select_nodeinfo_set, so the node accounting follows. */
static void pick_linked_gpus(job_record_t *job_ptr)
{
	list_itr_t *it;
	gres_state_t *gs;

	if (!job_ptr->gres_list_req || !job_ptr->node_bitmap)
		return;
	/* --gres-flags=enforce-binding: cons_tres matched GPUs to the
	 * job's cores; a re-pick would break that. */
	if (job_ptr->bit_flags & GRES_ENFORCE_BIND)
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
			int n, cnt, *links, *slots;
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
			/* Only GPUs cons_tres could have given the job
			 * instead: free, of the type it took. */
			uint32_t type = 0;
			bool one_type = selected_type(ns, sel, &type);
			for (int b = 0; b < n; b++)
				free_map[b] = !bit_test(ns->gres_bit_alloc, b) &&
					      (one_type ? gpu_type(ns, b) == type
							: bit_test(sel, b));
			links = node_gpu_links(ns, n);
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
	/* cons_tres put it on other nodes than planned (it asked -N more
	 * than the plan packs it on): the next plan places the other jobs
	 * on the nodes really taken, not on the plan's. */
	if (job_ptr->node_bitmap && d.where_count > 0 &&
	    bit_set_count(job_ptr->node_bitmap) != d.where_count)
		replan_now = true;
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
		/* Text an admin or a job_submit plugin put there stays in
		 * front of the record. */
		char record[sizeof(resumed)];
		if (omru_record_replace(job_ptr->admin_comment, comment, record,
					sizeof(record), note, sizeof(note)) != OMRU_OK)
			snprintf(record, sizeof(record), "%s", comment);
		xfree(job_ptr->admin_comment);
		job_ptr->admin_comment = xstrdup(record);
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
	if (job_ptr)
		refusals_nodes_freed(job_ptr->node_bitmap);
	bool resize_stop = job_ptr &&
			   omru_ctl_job_stopped(ctl, job_ptr->job_id,
						WEXITSTATUS(job_ptr->exit_code),
						time(NULL));
	/* plan_due: its GPUs are given out sooner -- unless it stopped for a
	 * resize: Slurm requeues it only after this, and a plan made before
	 * would give its new GPUs to others. */
	if (omru_job && !resize_stop)
		gpus_freed = true;
	if (resize_stop)
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
