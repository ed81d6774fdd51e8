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
		list_itr_t *it = list_iterator_create(q->usage->user_limit_list);
		slurmdb_used_limits_t *u;
		while ((u = list_next(it)))
			if (u->uid == uid && u->tres)
				used = u->tres[pos];
		list_iterator_destroy(it);
	}
	return used;
}

/*
 * Every shared gres/gpu limit of a job, each given to `fn` with Slurm's
 * reason name for it, the plan's pool key for it (the limit and whose it
 * is), the limit and its use now: the per-user and group limits of its QOS
 * and of its partition's QOS, the group limit of its association and of
 * every parent.  Caller holds assoc_mgr's locks; `pos` is gres/gpu's.
 */
typedef void (*shared_limit_fn)(void *arg, const char *name, const char *key,
				uint64_t limit, uint64_t used);

static void qos_limits(slurmdb_qos_rec_t *q, uint32_t uid, int pos, shared_limit_fn fn,
		       void *arg)
{
	char key[OMRU_POOL_KEY_MAX];

	if (!q || !q->usage)
		return;
	if (q->grp_tres_ctld && q->usage->grp_used_tres) {
		snprintf(key, sizeof(key), "qos:%u:grp", q->id);
		fn(arg, "QOSGrpGRES", key, q->grp_tres_ctld[pos],
		   q->usage->grp_used_tres[pos]);
	}
	if (q->max_tres_pu_ctld) {
		snprintf(key, sizeof(key), "qos:%u:user:%u", q->id, uid);
		fn(arg, "QOSMaxGRESPerUser", key, q->max_tres_pu_ctld[pos],
		   user_used(q, uid, pos));
	}
}

static void each_shared_limit(job_record_t *job_ptr, int pos, shared_limit_fn fn, void *arg)
{
	char key[OMRU_POOL_KEY_MAX];

	qos_limits(job_ptr->qos_ptr, job_ptr->user_id, pos, fn, arg);
	if (job_ptr->part_ptr)
		qos_limits(job_ptr->part_ptr->qos_ptr, job_ptr->user_id, pos, fn, arg);
	/* Group limits hold for the association and every parent. */
	for (slurmdb_assoc_rec_t *a = job_ptr->assoc_ptr; a && a->usage;
	     a = a->usage->parent_assoc_ptr)
		if (a->grp_tres_ctld && a->usage->grp_used_tres) {
			snprintf(key, sizeof(key), "assoc:%u", a->id);
			fn(arg, "AssocGrpGRES", key, a->grp_tres_ctld[pos],
			   a->usage->grp_used_tres[pos]);
		}
}

/* What the shared limits leave the user now, the tightest one's name. */
typedef struct {
	uint64_t room;
	const char *which;
} room_t;

static void tighten_room(void *arg, const char *name, const char *key, uint64_t limit,
			 uint64_t used)
{
	room_t *r = arg;
	(void) key;
	tighten(&r->room, &r->which, room(limit, used), name);
}

/* GPUs a room leaves, -1 for no limit. */
static int room_gpus(uint64_t r)
{
	return (r == INFINITE64 || r > INT32_MAX) ? -1 : (int) r;
}

/*
 * The shared limits as the plan's pools (omru_ctl_snapshot_pool): each
 * limit that is set, with what it leaves now; the job counts one per GPU
 * against each.  The room is tightened too, from every limit (also those
 * past `max` pools).
 */
typedef struct {
	omru_ctl_pool_use_t *uses;
	int n, max;
	room_t room;
} pool_list_t;

static void add_pool(void *arg, const char *name, const char *key, uint64_t limit,
		     uint64_t used)
{
	pool_list_t *l = arg;
	tighten_room(&l->room, name, key, limit, used);
	if (limit == INFINITE64 || limit == NO_VAL64 || l->n >= l->max)
		return;
	omru_ctl_pool_use_t *u = &l->uses[l->n];
	snprintf(u->key, sizeof(u->key), "%s", key);
	u->per_gpu = 1;
	u->per_job = 0;
	if (omru_ctl_snapshot_pool(ctl, u->key, (double) limit - (double) used) == OMRU_OK)
		l->n++;
}

/* Under assoc_mgr's locks, with gres/gpu's position: fn(job, pos, arg);
 * nothing when slurmctld's functions are not there or no gres/gpu TRES. */
static void with_gpu_tres(job_record_t *job_ptr,
			  void (*fn)(job_record_t *job_ptr, int pos, void *arg), void *arg)
{
	assoc_mgr_lock_t locks = { .assoc = READ_LOCK, .qos = READ_LOCK,
				   .tres = READ_LOCK };
	slurmdb_tres_rec_t gpu = { .type = "gres", .name = "gpu" };

	if (!assoc_mgr_lock || !assoc_mgr_unlock || !assoc_mgr_find_tres_pos)
		return;
	assoc_mgr_lock(&locks);
	int pos = assoc_mgr_find_tres_pos(&gpu, true);
	if (pos >= 0)
		fn(job_ptr, pos, arg);
	assoc_mgr_unlock(&locks);
}

static void pools_at(job_record_t *job_ptr, int pos, void *arg)
{
	each_shared_limit(job_ptr, pos, add_pool, arg);
}

extern int job_gpu_pools(job_record_t *job_ptr, omru_ctl_pool_use_t *uses, int max,
			 int *room_now)
{
	pool_list_t l = { uses, 0, max, { INFINITE64, NULL } };

	with_gpu_tres(job_ptr, pools_at, &l);
	if (room_now)
		*room_now = room_gpus(l.room.room);
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

/* What job_gpu_limits reads, under the locks. */
typedef struct {
	bool per_job, room_now;
	uint64_t limit;
	room_t room;
} limits_t;

static void limits_at(job_record_t *job_ptr, int pos, void *arg)
{
	limits_t *l = arg;
	if (l->per_job)
		l->limit = per_job_limit(job_ptr, pos);
	if (l->room_now)
		each_shared_limit(job_ptr, pos, tighten_room, &l->room);
}

extern void job_gpu_limits(job_record_t *job_ptr, int *per_job, int *room_now,
			   const char **which)
{
	limits_t l = { per_job != NULL, room_now != NULL, INFINITE64,
		       { INFINITE64, NULL } };

	with_gpu_tres(job_ptr, limits_at, &l);
	if (per_job)
		*per_job = (l.limit == INFINITE64 || l.limit == NO_VAL64 || l.limit > INT32_MAX)
				   ? 0 : (int) l.limit;
	if (room_now)
		*room_now = room_gpus(l.room.room);
	if (which)
		*which = l.room.which;
}
