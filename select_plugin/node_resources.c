/*
 * node_resources.c - the CPUs and memory the plan counts besides GPUs
 * (doc/slurm-facts.md, section 9): what each node has for jobs,
 * what running jobs hold of it, and what a GPU job will take of a node at
 * a GPU count.  cons_tres refuses a node whose free CPUs or memory cannot
 * hold the job; a plan that did not know would start jobs there and be
 * refused.
 */
#include "plan_glue.h"

/* Memory is a consumable resource (SelectTypeParameters=CR_*_Memory). */
static bool memory_counts(void)
{
	return slurm_conf.select_type_param & OMRU_CR_MEMORY;
}

extern void node_capacity(node_record_t *n, double *cpus, double *mem_mb)
{
	*cpus = n->cpus_efctv ? n->cpus_efctv : n->cpus;
	/* Memory that is not consumable never fills: any positive amount,
	 * and no job needs any of it. */
	if (!memory_counts())
		*mem_mb = 1;
	else
		*mem_mb = n->real_memory > n->mem_spec_limit
				  ? (double) (n->real_memory - n->mem_spec_limit)
				  : 0;
}

/* The job's position in its job_resrcs arrays of node index `i`, or -1. */
static int resrcs_pos(job_resources_t *r, int i)
{
	if (!r || !r->node_bitmap || i >= bit_size(r->node_bitmap) ||
	    !bit_test(r->node_bitmap, i))
		return -1;
	int pos = i ? bit_set_count_range(r->node_bitmap, 0, i) : 0;
	return (uint32_t) pos < r->nhosts ? pos : -1;
}

extern void job_holding_on(job_record_t *job_ptr, int i, double *cpus,
			   double *mem_mb)
{
	job_resources_t *r = job_ptr->job_resrcs;
	int pos = resrcs_pos(r, i);

	*cpus = *mem_mb = 0;
	if (pos < 0)
		return;
	if (r->cpus)
		*cpus = r->cpus[pos];
	if (r->memory_allocated && memory_counts())
		*mem_mb = r->memory_allocated[pos];
}

extern void job_add_holdings(job_record_t *job_ptr, double *cpus, double *mem_mb)
{
	job_resources_t *r = job_ptr->job_resrcs;

	if (!r || !r->node_bitmap)
		return;
	int count = MIN(node_record_count, bit_size(r->node_bitmap));
	for (int i = 0, pos = 0; i < count && (uint32_t) pos < r->nhosts; i++) {
		if (!bit_test(r->node_bitmap, i))
			continue;
		if (r->cpus)
			cpus[i] += r->cpus[pos];
		if (r->memory_allocated && memory_counts())
			mem_mb[i] += r->memory_allocated[pos];
		pos++;
	}
}

/* --mem-per-gpu (or DefMemPerGPU) of the job's GPU request, 0: none. */
static uint64_t job_mem_per_gpu(job_record_t *job_ptr)
{
	list_itr_t *it;
	gres_job_state_t *js;
	uint64_t mem = 0;

	if (!job_ptr->gres_list_req)
		return 0;
	it = list_iterator_create(job_ptr->gres_list_req);
	while ((js = next_gpu_entry(it)))
		mem = MAX(mem, js->mem_per_gres ? js->mem_per_gres : js->def_mem_per_gres);
	list_iterator_destroy(it);
	return mem;
}

/*
 * What cons_tres will give the job of a node with g of its GPUs there
 * (cons_common/job_test.c's node memory check and cons_tres's CPU count):
 * CPUs the larger of its tasks' and its GPUs' (--cpus-per-gpu, or what
 * select/omru sets: CpusPerGpu); memory per GPU when the job set no
 * --mem/--mem-per-cpu, else per CPU, else per node, --mem=0 all of it;
 * --exclusive or an OverSubscribe=EXCLUSIVE partition: a whole idle node.
 */
extern void job_node_need(job_record_t *job_ptr, const job_gpus_t *g,
			  omru_ctl_job_t *j)
{
	job_details_t *d = job_ptr->details;

	if (!d)
		return;
	if ((d->whole_node & WHOLE_NODE_REQUIRED) ||
	    (job_ptr->part_ptr && job_ptr->part_ptr->max_share == 0)) {
		j->need_whole_node = 1;
		return;
	}
	double cpus = MAX(1, d->pn_min_cpus);
	uint64_t tasks, per_task;
	job_task_shape(d, &tasks, &per_task);
	if (d->ntasks_per_node && d->ntasks_per_node != NO_VAL16)
		cpus = MAX(cpus, (double) d->ntasks_per_node * per_task);
	/* Its tasks spread over its nodes (job_task_cpus_per_gpu): on one
	 * node, all of them.  The planner's need does not vary with the
	 * job's total count, so a job it spreads wider than -N is counted
	 * high there, never low. */
	if (d->num_tasks && d->num_tasks != NO_VAL) {
		uint32_t nodes = (d->min_nodes && d->min_nodes != NO_VAL) ?
					 d->min_nodes : 1;
		cpus = MAX(cpus, (double) ((tasks + nodes - 1) / nodes) * per_task);
	}
	j->need_cpus_min = cpus;
	int per_gpu = job_cpus_per_gres(job_ptr);
	if (g->opts.set && !job_asked_cpus_per_gpu(job_ptr))
		per_gpu = MAX(per_gpu, settings.cpus_per_gpu);
	j->need_cpus_per_gpu = per_gpu;
	if (!memory_counts())
		return;
	uint64_t mem = d->pn_min_memory, mem_per_gpu = job_mem_per_gpu(job_ptr);
	if (!(job_ptr->bit_flags & JOB_MEM_SET) && mem_per_gpu)
		j->need_mem_per_gpu_mb = mem_per_gpu;
	else if (mem == NO_VAL64)
		return;
	else if (mem & MEM_PER_CPU)
		j->need_mem_per_cpu_mb = mem & ~MEM_PER_CPU;
	else if (mem == 0)
		j->need_all_mem = 1;
	else
		j->need_mem_min_mb = mem;
}
