/*
 * job_test_answers.c - select_p_job_test with the plan in charge of GPU
 * jobs: answers from the last plan and asks the thread for the next.  RUN_NOW
 * only for jobs the plan starts now, with the planned GPU count on the
 * planned nodes; WILL_RUN with the planned start; TEST_ONLY always with a
 * count that fits an empty cluster (refusing it would make the job
 * BadConstraints).  OMRU jobs without --cpus-per-gpu get CpusPerGpu, or
 * with LoaderCpus=yes one CPU per GPU for the step plus the loader workers
 * their model was measured to need.
 */
#include "plan_glue.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "src/slurmctld/licenses.h"

#pragma weak license_job_test

static uint32_t forced_for = 0; /* the last job that asked for a plan as new */
static long forced_at = -1; /* ... to be plan number forced_at */
static time_t seen_node_update = 0;

/*
 * Whether a plan is wanted, from job_test (caller holds plan_lock): plans
 * are made by select/omru's thread (background_sync.c), never inside
 * slurmctld's scheduling cycles, which then only read the last plan's
 * answers.  RET whether the job is new to the plans and waits for the next
 * one (at most plan_forced_gap_s away) instead of starting as plain
 * cons_tres.
 */
static bool want_plan(job_record_t *job_ptr)
{
	omru_ctl_decision_t d;
	bool known = omru_ctl_lookup(ctl, job_ptr->job_id, &d);
	bool waits = false;

	if (&last_node_update && last_node_update != seen_node_update) {
		seen_node_update = last_node_update;
		dirty = true;
	}
	if (!known && IS_JOB_PENDING(job_ptr)) {
		dirty = true; /* a new job */
		/*
		 * One no plan had yet (submitted, released, freed since, or
		 * let go by a Slurm limit that kept it out of the plan): the
		 * next plan comes whatever PlanIntervalMin says.  Once per job
		 * and plan, in case the plan leaves it out for a reason Slurm
		 * does not test first.  Slurm asking about a job whose reason
		 * kept it out of the plans means that reason cleared (doc/
		 * slurm-facts.md, section 7): the next plan admits it.
		 */
		long plans = omru_ctl_plan_count(ctl);
		if (!omru_ctl_offered(ctl, job_ptr->job_id) &&
		    !limit_blocked_has(job_ptr->job_id) &&
		    (job_ptr->job_id != forced_for || plans != forced_at)) {
			forced_for = job_ptr->job_id;
			forced_at = plans + 1;
			plan_wanted = true;
			waits = true;
			admitted_note(job_ptr->job_id);
		}
	}
	/* A start the plan counts on that Slurm keeps waiting (a limit
	 * reached, a license taken): its GPUs go to others now. */
	if (!replan_now && planned_start_blocked(job_ptr->job_id))
		replan_now = true;
	if (plan_wanted || replan_now || plan_due(mono_now()))
		omru_sync_wake();
	return waits;
}

/* Its user's GPU limits leave it too few now: Slurm's reason's name. */
static void describe_limit(job_record_t *job_ptr)
{
	const char *which = NULL;
	int room = -1;
	job_gpu_limits(job_ptr, NULL, &room, &which);
	xstrfmtcat(job_ptr->state_desc, "OMRU: %s (%d GPU(s) left)",
		   which ? which : "GPU limit", MAX(room, 0));
}

static void describe_wait(job_record_t *job_ptr, const omru_ctl_decision_t *d,
			  time_t start, bool over_limit)
{
	char when[32];
	struct tm tm;

	localtime_r(&start, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	xfree(job_ptr->state_desc);
	if (over_limit) {
		/* The plan's start comes when the limit leaves it room. */
		describe_limit(job_ptr);
		xstrcat(job_ptr->state_desc, "; ");
	}
	if (d->kind == OMRU_DECIDE_WAIT)
		xstrfmtcat(job_ptr->state_desc,
			   "OMRU plan: %d GPU(s) at %s", d->gpus, when);
	else
		xstrfmtcat(job_ptr->state_desc,
			   "OMRU plan: queued behind the planned jobs");
}

/*
 * Whether a planned node still completes a job that ended: Slurm offers
 * no such node until the job's epilog is done there, although the job's
 * GPUs are free in the plan (job_fini) -- with freed GPUs planned at once
 * (plan_due), the first pass after an end often comes that soon.
 */
static bool nodes_completing(bitstr_t *planned)
{
	int n = MIN(bit_size(planned), node_record_count);
	for (int i = 0; i < n; i++)
		if (bit_test(planned, i) && node_record_table_ptr[i] &&
		    IS_NODE_COMPLETING(node_record_table_ptr[i]))
			return true;
	return false;
}

/*
 * cons_tres refused the planned start on `planned` (CPUs, memory, a GPU
 * type or a license there that the plan does not model, or a node Slurm
 * did not offer): the job is planned without those nodes until something
 * ends there, and a plan is made at once, after this pass, so its GPUs go
 * to the next job (start_refusals.c).
 */
static void note_refusal(job_record_t *job_ptr, bitstr_t *planned)
{
	char *names = bitmap2node_name(planned);
	info("%s: %pJ: planned start on %s refused by cons_tres; planned "
	     "without %s until a job there ends", plugin_type, job_ptr, names,
	     bit_set_count(planned) > 1 ? "them" : "it");
	xfree(job_ptr->state_desc);
	xstrfmtcat(job_ptr->state_desc,
		   "OMRU plan: %s cannot take it now (CPUs, memory or GPUs); "
		   "waits for resources there or elsewhere", names);
	xfree(names);
	slurm_mutex_lock(&plan_lock);
	refusals_note(job_ptr->job_id, planned);
	replan_now = true;
	omru_sync_wake();
	slurm_mutex_unlock(&plan_lock);
}

/*
 * What a RUN_NOW refusal of a job the plan holds back answers.  Up to 22.05
 * slurmctld tested licenses before job_test and gave such a job the reason
 * Licenses; from 23.02 cons_tres tests them, so a job whose license is
 * taken is told so here (select_nodes then sets WAIT_LICENSES, not
 * Resources), as cons_tres would have.
 */
static int held_back_rc(job_record_t *job_ptr, time_t now)
{
#if OMRU_LICENSES_IN_JOB_TEST
	if (job_ptr->license_list && license_job_test &&
	    license_job_test(job_ptr, now, false) == EAGAIN)
		return ESLURM_LICENSES_UNAVAILABLE;
#endif
	(void) job_ptr;
	(void) now;
	return SLURM_ERROR;
}

extern int omru_job_test(job_record_t *job_ptr, bitstr_t *node_bitmap,
			 uint32_t min_nodes, uint32_t max_nodes,
			 uint32_t req_nodes, uint16_t mode,
			 list_t *preemptee_candidates,
			 list_t **preemptee_job_list,
			 const struct omru_job_test_tail *tail)
{
	job_gpus_t g;
	omru_ctl_decision_t d;
	time_t now = time(NULL);
	int rc;

#define DELEGATE()                                                            \
	omru_delegate_job_test(job_ptr, node_bitmap, min_nodes, max_nodes,   \
			       req_nodes, mode, preemptee_candidates,        \
			       preemptee_job_list, tail)

	if (!ctl || !job_ptr || !job_gpu_request(job_ptr, &g) ||
	    job_ptr->het_job_id)
		return DELEGATE(); /* CPU-only jobs pass straight through */
	job_options(job_ptr, &g);
	if (!g.opts_ok || (!g.opts.set && !settings.plan_rigid_jobs))
		return DELEGATE();
	bool moldable = g.per_job && (g.opts.set & OMRU_OPT_GPUS);

	slurm_mutex_lock(&plan_lock);
	cost.tests[mode == SELECT_MODE_RUN_NOW ? 0 : mode == SELECT_MODE_TEST_ONLY ? 1 : 2]++;
	bool deferred = false;
	if (mode != SELECT_MODE_TEST_ONLY)
		deferred = want_plan(job_ptr);
	bool known = omru_ctl_lookup(ctl, job_ptr->job_id, &d);
	bool refused = mode == SELECT_MODE_RUN_NOW && d.kind == OMRU_DECIDE_PASS &&
		       refusals_has(job_ptr->job_id);
	bool over_limit = mode != SELECT_MODE_TEST_ONLY && d.kind != OMRU_DECIDE_START &&
			  limit_blocked_has(job_ptr->job_id);
	bool send_stops = planned_since_stops && settings.elastic;
	planned_since_stops = false;
	slurm_mutex_unlock(&plan_lock);
	if (send_stops)
		omru_elastic_after_plan(ctl, &plan_lock);

	if (deferred && mode == SELECT_MODE_RUN_NOW) {
		xfree(job_ptr->state_desc);
		xstrfmtcat(job_ptr->state_desc,
			   "OMRU plan: planned within %.0f s (new jobs make a plan "
			   "at most that often)", plan_forced_gap_s());
		return SLURM_ERROR;
	}
	if (over_limit && mode == SELECT_MODE_RUN_NOW) {
		/* Its user's GPU limits leave it too few now; the plan
		 * starts it when they leave it room. */
		xfree(job_ptr->state_desc);
		describe_limit(job_ptr);
		return SLURM_ERROR;
	}
	if (refused) {
		/* Left out of the plan because every node it may use refused
		 * it: it waits for a change there, not for cons_tres to put
		 * it ahead of the planned jobs. */
		return SLURM_ERROR;
	}
	if (mode == SELECT_MODE_TEST_ONLY || d.kind == OMRU_DECIDE_PASS) {
		/* Any count of the range must fit an empty cluster. */
		if (moldable)
			set_job_gpus(job_ptr, g.opts.gpus_min);
		if (g.opts.set)
			set_job_cpus(job_ptr, job_cpus_per_gpu(job_ptr, &d, node_bitmap));
		if (mode == SELECT_MODE_RUN_NOW) {
			rc = DELEGATE();
			if (rc == SLURM_SUCCESS)
				debug("%s: %pJ starts outside the plan, where "
				      "cons_tres placed it: %s", plugin_type, job_ptr,
				      known ? "the plan cannot model it" :
				      "Slurm kept it waiting when the plan was made");
			return rc;
		}
		if (d.kind == OMRU_DECIDE_PASS)
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
		return held_back_rc(job_ptr, now); /* never TEST_ONLY: see above */
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
		if (g.opts.set)
			set_job_cpus(job_ptr, job_cpus_per_gpu(job_ptr, &d, node_bitmap));
		rc = DELEGATE();
		if (rc == SLURM_SUCCESS) {
			debug("%s: %pJ starts as planned: %d GPU(s) on %d node(s)",
			      plugin_type, job_ptr, d.gpus, d.where_count);
		} else if (nodes_completing(planned)) {
			/* Not a refusal of the job: a job that ended there
			 * still completes (its epilog), and slurmctld schedules
			 * again when it is done. */
			debug("%s: %pJ: its planned nodes still complete a job; "
			      "it starts when they are done", plugin_type, job_ptr);
#if OMRU_LICENSES_IN_JOB_TEST
		} else if (rc == ESLURM_LICENSES_UNAVAILABLE) {
			/* From 23.02 cons_tres tests licenses: not a refusal
			 * of these nodes.  The plan's license pools counted
			 * one free that is not: the next pass plans again. */
			debug("%s: %pJ: its license is not free after all; "
			      "planned again", plugin_type, job_ptr);
			slurm_mutex_lock(&plan_lock);
			replan_now = true;
			omru_sync_wake();
			slurm_mutex_unlock(&plan_lock);
#endif
		} else {
			note_refusal(job_ptr, planned);
		}
		FREE_NULL_BITMAP(planned);
		return rc;
	}

	/* WILL_RUN (backfill, squeue --start): the plan's answer. */
	if (g.opts.set)
		set_job_cpus(job_ptr, job_cpus_per_gpu(job_ptr, &d, node_bitmap));
	if (d.kind == OMRU_DECIDE_START)
		return DELEGATE();
	/*
	 * Held back: the plan knows when, and cons_tres is not asked (its
	 * answer would only be overruled; backfill asks for every pending job
	 * it tests).  Planned later: its start on its planned count of the
	 * nodes offered; backfill reserves them for it then.  Beyond the
	 * planned queue: no start to give.
	 */
	if (d.kind != OMRU_DECIDE_WAIT) {
		describe_wait(job_ptr, &d, now, over_limit);
		return SLURM_ERROR;
	}
	time_t start = (time_t) ceil(d.start_s);
	if (start <= now)
		start = now + 1; /* a held job is never answered "now" */
	int keep = d.nodes > 0 ? d.nodes : 1;
	if (bit_set_count(node_bitmap) < keep)
		return SLURM_ERROR;
	for (int i = 0; i < bit_size(node_bitmap); i++)
		if (bit_test(node_bitmap, i) && keep-- <= 0)
			bit_clear(node_bitmap, i);
	job_ptr->start_time = start;
	describe_wait(job_ptr, &d, start, over_limit);
	return SLURM_SUCCESS;
#undef DELEGATE
}
