/*
 * job_limits.c - limits on a job's GPU count that Slurm checks only after
 * a node selection (acct_policy_job_runnable_post_select): the per-job
 * gres/gpu of its QOS, its partition's QOS and its association (the
 * nearest one up the tree that sets it), and what its user's per-user and
 * group gres/gpu limits leave now.  Slurm's check before job_test sees the
 * count the job asks, not the larger one the plan may give a moldable
 * job: planned above them it would be refused after cons_tres took its
 * nodes, again at every pass (doc/slurm-facts.md, section 7), so the plan
 * reads them ahead and never offers such a count; the shared ones (per
 * user, group) are the plan's pools (plan_pools.c, job_gpu_pools).
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

/* limit - used, or INFINITE64 when there is no limit. */
static uint64_t room(uint64_t limit, uint64_t used)
{
	if (limit == INFINITE64 || limit == NO_VAL64)
		return INFINITE64;
	return limit > used ? limit - used : 0;
}

/* *r lowered to `v` if that is tighter, *which then naming the limit. */
static void tighten(uint64_t *r, const char **which, uint64_t v, const char *name)
{
	if (tighter(*r, v) != *r) {
		*r = v;
		*which = name;
	}
}

/* The user's gres/gpu in use under a QOS's per-user limits. */
static uint64_t user_used(slurmdb_qos_rec_t *q, uint32_t uid, int pos)
{
	uint64_t used = 0;
	if (q->usage->user_limit_list) {
		ListIterator it = list_iterator_create(q->usage->user_limit_list);
		slurmdb_used_limits_t *u;
		while ((u = list_next(it)))
			if (u->uid == uid && u->tres)
				used = u->tres[pos];
		list_iterator_destroy(it);
	}
	return used;
}

/* What a QOS's per-user and group gres/gpu limits leave the user now. */
static void qos_room(slurmdb_qos_rec_t *q, uint32_t uid, int pos, uint64_t *r,
		     const char **which)
{
	if (!q || !q->usage)
		return;
	if (q->grp_tres_ctld && q->usage->grp_used_tres)
		tighten(r, which, room(q->grp_tres_ctld[pos], q->usage->grp_used_tres[pos]),
			"QOSGrpGRES");
	if (q->max_tres_pu_ctld)
		tighten(r, which, room(q->max_tres_pu_ctld[pos], user_used(q, uid, pos)),
			"QOSMaxGRESPerUser");
}

/*
 * The shared GPU limits as the plan's pools (omru_ctl_snapshot_pool): each
 * limit that is set, keyed by the limit and whose it is, with what it
 * leaves now; the job counts one per GPU against each.
 */
typedef struct {
	omru_ctl_pool_use_t *uses;
	int n, max;
} pool_list_t;

/* key: "qos:ID:grp", "qos:ID:user:UID" or "assoc:ID". */
static void add_pool(pool_list_t *l, uint64_t limit, uint64_t used, const char *key)
{
	if (limit == INFINITE64 || limit == NO_VAL64 || l->n >= l->max)
		return;
	omru_ctl_pool_use_t *u = &l->uses[l->n];
	snprintf(u->key, sizeof(u->key), "%s", key);
	u->per_gpu = 1;
	u->per_job = 0;
	if (omru_ctl_snapshot_pool(ctl, u->key, (double) limit - (double) used) == OMRU_OK)
		l->n++;
}

static void qos_pools(slurmdb_qos_rec_t *q, uint32_t uid, int pos, pool_list_t *l)
{
	char key[OMRU_POOL_KEY_MAX];

	if (!q || !q->usage)
		return;
	if (q->grp_tres_ctld && q->usage->grp_used_tres) {
		snprintf(key, sizeof(key), "qos:%u:grp", q->id);
		add_pool(l, q->grp_tres_ctld[pos], q->usage->grp_used_tres[pos], key);
	}
	if (q->max_tres_pu_ctld) {
		snprintf(key, sizeof(key), "qos:%u:user:%u", q->id, uid);
		add_pool(l, q->max_tres_pu_ctld[pos], user_used(q, uid, pos), key);
	}
}

extern int job_gpu_pools(job_record_t *job_ptr, omru_ctl_pool_use_t *uses, int max)
{
	assoc_mgr_lock_t locks = { .assoc = READ_LOCK, .qos = READ_LOCK,
				   .tres = READ_LOCK };
	slurmdb_tres_rec_t gpu = { .type = "gres", .name = "gpu" };
	pool_list_t l = { uses, 0, max };

	if (!assoc_mgr_lock || !assoc_mgr_unlock || !assoc_mgr_find_tres_pos)
		return 0;
	assoc_mgr_lock(&locks);
	int pos = assoc_mgr_find_tres_pos(&gpu, true);
	if (pos >= 0) {
		qos_pools(job_ptr->qos_ptr, job_ptr->user_id, pos, &l);
		if (job_ptr->part_ptr)
			qos_pools(job_ptr->part_ptr->qos_ptr, job_ptr->user_id, pos, &l);
		for (slurmdb_assoc_rec_t *a = job_ptr->assoc_ptr; a && a->usage;
		     a = a->usage->parent_assoc_ptr)
			if (a->grp_tres_ctld && a->usage->grp_used_tres) {
				char key[OMRU_POOL_KEY_MAX];
				snprintf(key, sizeof(key), "assoc:%u", a->id);
				add_pool(&l, a->grp_tres_ctld[pos],
					 a->usage->grp_used_tres[pos], key);
			}
	}
	assoc_mgr_unlock(&locks);
	return l.n;
}

/*
 * Pending jobs the last snapshot left out because their user's GPU limits
 * leave fewer GPUs now than they need: Slurm tests those limits only after
 * selecting nodes, so a start would be refused at every pass.  Ascending
 * after limit_blocked_done().
 */
static uint32_t *blocked;
static int blocked_len, blocked_cap;

extern void limit_blocked_clear(void)
{
	blocked_len = 0;
}

extern void limit_blocked_note(uint32_t job_id)
{
	if (blocked_len == blocked_cap) {
		blocked_cap = blocked_cap ? 2 * blocked_cap : 16;
		xrecalloc(blocked, blocked_cap, sizeof(*blocked));
	}
	blocked[blocked_len++] = job_id;
}

static int cmp_id(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *) a, y = *(const uint32_t *) b;
	return (x > y) - (x < y);
}

extern void limit_blocked_done(void)
{
	if (blocked_len) /* qsort(NULL, 0, ...) is undefined (UBSan) */
		qsort(blocked, blocked_len, sizeof(*blocked), cmp_id);
}

extern bool limit_blocked_has(uint32_t job_id)
{
	return blocked_len &&
	       bsearch(&job_id, blocked, blocked_len, sizeof(*blocked), cmp_id);
}

extern void limit_blocked_fini(void)
{
	xfree(blocked);
	blocked_len = blocked_cap = 0;
}

/* The per-job limit: QOS, partition QOS, nearest association that sets it. */
static uint64_t per_job_limit(job_record_t *job_ptr, int pos)
{
	uint64_t limit = INFINITE64;

	if (job_ptr->qos_ptr)
		limit = tighter(limit, limit_at(job_ptr->qos_ptr->max_tres_pj_ctld, pos));
	if (job_ptr->part_ptr && job_ptr->part_ptr->qos_ptr)
		limit = tighter(limit, limit_at(job_ptr->part_ptr->qos_ptr->max_tres_pj_ctld,
						pos));
	for (slurmdb_assoc_rec_t *a = job_ptr->assoc_ptr; a;
	     a = a->usage ? a->usage->parent_assoc_ptr : NULL) {
		uint64_t l = limit_at(a->max_tres_ctld, pos);
		if (l != INFINITE64 && l != NO_VAL64)
			return tighter(limit, l);
	}
	return limit;
}

/* What the user's per-user and group limits leave now; *which the tightest. */
static uint64_t user_room(job_record_t *job_ptr, int pos, const char **which)
{
	uint64_t r = INFINITE64;

	qos_room(job_ptr->qos_ptr, job_ptr->user_id, pos, &r, which);
	if (job_ptr->part_ptr)
		qos_room(job_ptr->part_ptr->qos_ptr, job_ptr->user_id, pos, &r, which);
	/* Group limits hold for the association and every parent. */
	for (slurmdb_assoc_rec_t *a = job_ptr->assoc_ptr; a && a->usage;
	     a = a->usage->parent_assoc_ptr)
		if (a->grp_tres_ctld && a->usage->grp_used_tres)
			tighten(&r, which, room(a->grp_tres_ctld[pos],
						a->usage->grp_used_tres[pos]),
				"AssocGrpGRES");
	return r;
}

extern void job_gpu_limits(job_record_t *job_ptr, int *per_job, int *room_now,
			   const char **which)
{
	assoc_mgr_lock_t locks = { .assoc = READ_LOCK, .qos = READ_LOCK,
				   .tres = READ_LOCK };
	slurmdb_tres_rec_t gpu = { .type = "gres", .name = "gpu" };
	uint64_t limit = INFINITE64, r = INFINITE64;
	const char *name = NULL;

	if (assoc_mgr_lock && assoc_mgr_unlock && assoc_mgr_find_tres_pos) {
		assoc_mgr_lock(&locks);
		int pos = assoc_mgr_find_tres_pos(&gpu, true);
		if (pos >= 0) {
			if (per_job)
				limit = per_job_limit(job_ptr, pos);
			if (room_now)
				r = user_room(job_ptr, pos, &name);
		}
		assoc_mgr_unlock(&locks);
	}
	if (per_job)
		*per_job = (limit == INFINITE64 || limit == NO_VAL64 || limit > INT32_MAX)
				   ? 0 : (int) limit;
	if (room_now)
		*room_now = (r == INFINITE64 || r > INT32_MAX) ? -1 : (int) r;
	if (which)
		*which = name;
}
