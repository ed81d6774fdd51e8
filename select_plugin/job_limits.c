/*
 * job_limits.c - limits on a job's GPU count that Slurm checks only after
 * a node selection (acct_policy_job_runnable_post_select): the per-job
 * gres/gpu of its QOS, its partition's QOS and its association (the
 * nearest one up the tree that sets it).  A moldable job planned above them
 * would be refused after cons_tres took its nodes (doc/slurm-facts.md,
 * section 7), so the plan reads them ahead and never offers such a count.
 */
#include "plan_glue.h"

#include "src/common/assoc_mgr.h"

#pragma weak assoc_mgr_lock
#pragma weak assoc_mgr_unlock
#pragma weak assoc_mgr_find_tres_pos

static uint64_t limit_at(const uint64_t *tres, int pos)
{
	return (tres && pos >= 0) ? tres[pos] : INFINITE64;
}

/* The smaller of two limits; INFINITE64 and NO_VAL64 mean none. */
static uint64_t tighter(uint64_t a, uint64_t b)
{
	if (a == INFINITE64 || a == NO_VAL64)
		return b;
	if (b == INFINITE64 || b == NO_VAL64)
		return a;
	return MIN(a, b);
}

extern int job_gpu_limit_per_job(job_record_t *job_ptr)
{
	assoc_mgr_lock_t locks = { .assoc = READ_LOCK, .qos = READ_LOCK,
				   .tres = READ_LOCK };
	slurmdb_tres_rec_t gpu = { .type = "gres", .name = "gpu" };
	uint64_t limit = INFINITE64;

	if (!assoc_mgr_lock || !assoc_mgr_unlock || !assoc_mgr_find_tres_pos)
		return 0;
	assoc_mgr_lock(&locks);
	int pos = assoc_mgr_find_tres_pos(&gpu, true);
	if (pos >= 0) {
		if (job_ptr->qos_ptr)
			limit = tighter(limit, limit_at(job_ptr->qos_ptr->max_tres_pj_ctld, pos));
		if (job_ptr->part_ptr && job_ptr->part_ptr->qos_ptr)
			limit = tighter(limit, limit_at(job_ptr->part_ptr->qos_ptr->max_tres_pj_ctld,
							pos));
		for (slurmdb_assoc_rec_t *a = job_ptr->assoc_ptr; a;
		     a = a->usage ? a->usage->parent_assoc_ptr : NULL) {
			uint64_t l = limit_at(a->max_tres_ctld, pos);
			if (l != INFINITE64 && l != NO_VAL64) {
				limit = tighter(limit, l);
				break;
			}
		}
	}
	assoc_mgr_unlock(&locks);
	return (limit == INFINITE64 || limit == NO_VAL64 || limit > INT32_MAX) ? 0
										 : (int) limit;
}
