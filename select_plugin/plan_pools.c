/*
 * plan_pools.c - limits shared by jobs that are not about nodes, as the
 * plan's pools (omru_ctl_snapshot_pool): a user's or account's GPU limits
 * (job_limits.c reads them: QOS MaxTRESPerUser and GrpTRES, the partition
 * QOS's, association GrpTRES up the tree) and licenses.  With them the plan
 * starts a job only while its pools have room and orders a limited user's
 * jobs and a license's around each other, instead of learning each limit
 * from a refusal after the fact.
 *
 * A pending job that Slurm keeps waiting for one of these limits (its
 * state_reason) stays in the plan; only if the plan then planned its start
 * and Slurm still kept it waiting (a license reserved for a reservation,
 * a limit read between two of Slurm's updates) is it left out of the next
 * plan, so one wrong answer costs one plan, not one plan per pass.
 */
#include "plan_glue.h"

#include "src/slurmctld/licenses.h"

#pragma weak get_total_license_cnt

/* Licenses running jobs hold, by name, counted during one snapshot. */
typedef struct {
	char *name;
	uint64_t used;
} license_use_t;
static license_use_t *lic;
static int lic_len, lic_cap;

static license_use_t *license_use(const char *name)
{
	for (int i = 0; i < lic_len; i++)
		if (!xstrcmp(lic[i].name, name))
			return &lic[i];
	if (lic_len == lic_cap) {
		lic_cap = lic_cap ? 2 * lic_cap : 8;
		xrecalloc(lic, lic_cap, sizeof(*lic));
	}
	lic[lic_len].name = xstrdup(name);
	lic[lic_len].used = 0;
	return &lic[lic_len++];
}

static void license_clear(void)
{
	for (int i = 0; i < lic_len; i++)
		xfree(lic[i].name);
	lic_len = 0;
}

extern void plan_pools_begin(void)
{
	license_clear();
}

extern void plan_pools_count_running(job_record_t *job_ptr)
{
	if (!job_ptr->license_list)
		return;
	list_itr_t *it = list_iterator_create(job_ptr->license_list);
	licenses_t *l;
	while ((l = list_next(it)))
		if (l->name)
			license_use(l->name)->used += l->total;
	list_iterator_destroy(it);
}

extern int job_pools(job_record_t *job_ptr, omru_ctl_pool_use_t *uses, int max,
		     int *room_now)
{
	int n = job_gpu_pools(job_ptr, uses, max, room_now);

	if (!job_ptr->license_list || !get_total_license_cnt)
		return n;
	list_itr_t *it = list_iterator_create(job_ptr->license_list);
	licenses_t *l;
	while ((l = list_next(it)) && n < max) {
		if (!l->name || !l->total)
			continue;
#if OMRU_SLURM_AT_LEAST(25, 5)
		/* -L a|b: a pending job lists every alternative; it needs
		 * one, which the plan does not choose.  Slurm tests them in
		 * job_test (a refusal re-plans); hierarchical licenses
		 * (several records under one name) are Slurm's alone too. */
		if (l->op_or || l->id.hres_id != NO_VAL16)
			continue;
#endif
		(void) license_use(l->name); /* its room is set at the end */
		snprintf(uses[n].key, sizeof(uses[n].key), "license:%s", l->name);
		uses[n].per_gpu = 0;
		uses[n].per_job = l->total;
		n++;
	}
	list_iterator_destroy(it);
	return n;
}

extern void plan_pools_done(void)
{
	char key[OMRU_POOL_KEY_MAX];

	if (!get_total_license_cnt)
		return;
	for (int i = 0; i < lic_len; i++) {
		snprintf(key, sizeof(key), "license:%s", lic[i].name);
		double total = get_total_license_cnt(lic[i].name);
		omru_ctl_snapshot_pool(ctl, key, total - (double) lic[i].used);
	}
}

static bool pool_reason(uint32_t state_reason)
{
	switch (state_reason) {
	case WAIT_QOS_GRP_GRES:
	case WAIT_QOS_MAX_GRES_PER_USER:
	case WAIT_ASSOC_GRP_GRES:
	case WAIT_LICENSES:
		return true;
	default:
		return false;
	}
}

extern bool pool_wait_modelled(job_record_t *job_ptr)
{
	omru_ctl_decision_t d;

	if (!pool_reason(job_ptr->state_reason))
		return false;
	/* The last plan's answers stand until the next plan is made. */
	return !(omru_ctl_lookup(ctl, job_ptr->job_id, &d) && d.kind == OMRU_DECIDE_START);
}

extern void plan_pools_fini(void)
{
	license_clear();
	xfree(lic);
	lic_cap = 0;
}
