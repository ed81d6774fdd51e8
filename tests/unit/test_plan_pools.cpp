// test_plan_pools.cpp - limits shared by jobs that are not about nodes
// (PlanInput::pool_capacity, PlanJob::pools: a user's GPU limit, a license):
// the plan never holds more of a pool than its capacity, running jobs and
// growths included, offers no count beyond it, and a job waiting for its
// pool stays in the plan with a start; the C API builds the pools from the
// rooms slurmctld reports.
#include "check_cxx.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "omru/omru_ctl.h"
#include "planner/planner.hpp"
#include "plan_fixture.hpp"

using namespace omru;
using namespace omru::planner;
using omru_test::moldable;
using omru_test::refusal;
using omru_test::rigid;
using omru_test::running_on_node0;

namespace {

PlanJob pending(long id, int curve, std::vector<PoolUse> pools)
{
	PlanJob j;
	j.id = id;
	j.curve = curve;
	j.remaining_epochs = 1;
	j.pools = std::move(pools);
	return j;
}

PlanInput cluster(int nodes)
{
	return omru_test::gpu_cluster(nodes);
}

// The most of each pool the plan's segments hold at any moment.
std::vector<double> peak_use(const PlanInput &in, const Plan &p)
{
	std::vector<double> peak(in.pool_capacity.size(), 0);
	std::vector<double> moments;
	for (const PlannedJob &j : p.jobs)
		for (const PlannedSegment &s : j.segments)
			moments.push_back(s.start_s);
	for (double t : moments) {
		std::vector<double> use(in.pool_capacity.size(), 0);
		for (size_t k = 0; k < p.jobs.size(); k++)
			for (const PlannedSegment &s : p.jobs[k].segments)
				if (s.start_s <= t && t < s.end_s)
					for (const PoolUse &u : in.jobs[k].pools)
						use[u.pool] += u.of(s.gpus);
		for (size_t i = 0; i < use.size(); i++)
			peak[i] = std::max(peak[i], use[i]);
	}
	return peak;
}

} // namespace

START_TEST(test_a_users_gpu_limit_holds_its_jobs_and_no_one_elses)
{
	// alice may hold 2 GPUs: of her three 1-GPU jobs two start, the third
	// when one ends; bob's job starts at once on the GPUs she may not use.
	PlanInput in = cluster(1);
	in.pool_capacity = { 2 };
	in.curves = { rigid(1, 1) };
	const PoolUse alice{ 0, 1, 0 };
	in.jobs = { pending(1, 0, { alice }), pending(2, 0, { alice }),
		    pending(3, 0, { alice }), pending(4, 0, {}) };
	Plan p = make_plan(in);
	ck_assert_int_eq(p.unplaced, 0);
	ck_assert_int_eq(p.now.size(), 3);
	ck_assert_double_eq(p.jobs[3].start_s(), 0);
	ck_assert_double_eq(p.jobs[2].start_s(), 100);
	ck_assert_double_le(peak_use(in, p)[0], 2);
	// Without the pool all four start at once.
	in.pool_capacity.clear();
	for (PlanJob &j : in.jobs)
		j.pools.clear();
	ck_assert_int_eq(make_plan(in).now.size(), 4);
}
END_TEST

START_TEST(test_a_license_is_held_by_one_job_at_a_time)
{
	PlanInput in = cluster(2);
	in.pool_capacity = { 1 };
	in.curves = { rigid(2, 2) };
	const PoolUse lic{ 0, 0, 1 };
	in.jobs = { pending(1, 0, { lic }), pending(2, 0, { lic }), pending(3, 0, { lic }) };
	Plan p = make_plan(in);
	ck_assert_int_eq(p.now.size(), 1);
	ck_assert_double_le(peak_use(in, p)[0], 1);
	ck_assert_double_eq(p.makespan_s, 300);
}
END_TEST

START_TEST(test_no_count_beyond_a_pool_is_offered)
{
	// A moldable job (fastest on 4) whose user may hold 3 GPUs runs on 3;
	// a job whose only count exceeds its pool is unplaced, not waiting
	// for ever in the queue.
	PlanInput in = cluster(1);
	in.pool_capacity = { 3, 1 };
	in.curves = { moldable(), rigid(2, 1) };
	in.jobs = { pending(1, 0, { { 0, 1, 0 } }), pending(2, 1, { { 1, 1, 0 } }) };
	Plan p = make_plan(in);
	ck_assert_int_eq(p.unplaced, 1);
	ck_assert_int_eq(p.now.size(), 1);
	ck_assert_int_eq(p.now[0].gpus, 3);
}
END_TEST

START_TEST(test_a_running_job_holds_its_pool_until_it_ends)
{
	// alice's running 2-GPU job (until 50 s) fills her limit of 2: her
	// pending job is planned to start at 50 s, though 2 GPUs are free.
	PlanInput in = cluster(1);
	in.free_per_node = { 2 };
	in.pool_capacity = { 2 };
	in.curves = { rigid(2, 1), rigid(1, 1) };
	in.jobs = { running_on_node0(pending(1, 0, { { 0, 1, 0 } }), 2, 50, 1, false),
		    pending(2, 1, { { 0, 1, 0 } }) };
	Plan p = make_plan(in);
	ck_assert(p.now.empty());
	ck_assert_double_eq(p.jobs[1].start_s(), 50);
}
END_TEST

START_TEST(test_growth_stays_within_the_pool)
{
	// GPU reuse grows an elastic job into idle GPUs, up to its user's
	// limit of 2 and no further.
	PlanInput in = cluster(1);
	in.free_per_node = { 3 };
	in.pool_capacity = { 2 };
	in.curves = { moldable() };
	in.jobs = { running_on_node0(pending(1, 0, { { 0, 1, 0 } }), 1, 400, 10, true) };
	Plan p = make_plan(in);
	ck_assert_int_eq(p.now.size(), 1);
	ck_assert(p.now[0].kind == Action::Kind::Resize);
	ck_assert_int_eq(p.now[0].gpus, 2);
	ck_assert_double_le(peak_use(in, p)[0], 2);
}
END_TEST

START_TEST(test_random_plans_never_exceed_a_pool)
{
	// Mixed rigid and moldable jobs over two users' limits and a license,
	// on 2 nodes: every plan's segments keep every pool within capacity.
	unsigned seed = 7;
	auto next = [&seed](int n) {
		seed = seed * 1103515245u + 12345u;
		return static_cast<int>((seed >> 16) % n);
	};
	for (int round = 0; round < 40; round++) {
		PlanInput in = cluster(2);
		in.pool_capacity = { 1.0 + next(4), 1.0 + next(4), 1 };
		in.curves = { rigid(1, 2), rigid(2, 2), moldable(2) };
		for (long id = 1; id <= 10; id++) {
			std::vector<PoolUse> pools;
			if (next(3))
				pools.push_back({ next(2), 1, 0 });
			if (!next(4))
				pools.push_back({ 2, 0, 1 });
			PlanJob j = pending(id, next(3), pools);
			j.remaining_epochs = 1 + next(3);
			j.submit_s = -next(50);
			in.jobs.push_back(j);
		}
		Plan p = make_plan(in);
		std::vector<double> peak = peak_use(in, p);
		for (size_t i = 0; i < peak.size(); i++)
			ck_assert_msg(peak[i] <= in.pool_capacity[i] + 1e-9,
				      "round %d: pool %zu holds %g of %g", round, i, peak[i],
				      in.pool_capacity[i]);
		int placed = 0;
		for (const PlannedJob &j : p.jobs)
			placed += !j.segments.empty();
		ck_assert_int_eq(placed + p.unplaced, 10);
	}
}
END_TEST

START_TEST(test_bad_pools_are_refused)
{
	PlanInput in = cluster(1);
	in.curves = { rigid(1, 1) };
	in.jobs = { pending(1, 0, { { 0, 1, 0 } }) };
	ck_assert(refusal(in).find("a pool it counts against must exist") != std::string::npos);
	in.pool_capacity = { std::numeric_limits<double>::quiet_NaN() };
	ck_assert(refusal(in).find("capacity must be finite") != std::string::npos);
	in.pool_capacity = { 2 };
	in.jobs[0].pools = { { 0, -1, 0 } };
	ck_assert(refusal(in).find("amounts be finite and >= 0") != std::string::npos);
	in.jobs[0].pools = { { 0, 1, 0 }, { 0, 0, 1 } };
	ck_assert(refusal(in).find("names a pool twice") != std::string::npos);
	in.jobs[0].pools = { { 0, 1, 0 } };
	ck_assert(refusal(in).empty());
}
END_TEST

START_TEST(test_c_api_builds_pools_from_slurms_rooms)
{
	// One 4-GPU node, empty.  alice's limit leaves 1 GPU now and her
	// running job holds 1: capacity 2.  Her two pending 1-GPU jobs: one
	// starts, the other waits for the running job with a planned start.
	// A key with no room reported is no limit (bob's job starts).  Keys
	// and rooms out of range are refused.
	omru_ctl_t *c = omru_ctl_create();
	char err[256];
	ck_assert_int_eq(omru_ctl_configure(c, "/nonexistent/omru.conf", "/tmp", err, sizeof(err)),
			 OMRU_OK);
	ck_assert_int_eq(omru_ctl_snapshot_begin(c, 100, 1), OMRU_OK);
	ck_assert_int_eq(omru_ctl_snapshot_node(c, 0, "n1", 4, 1, 1), OMRU_OK);
	ck_assert_int_eq(omru_ctl_snapshot_pool(c, "qos:1:user:1000", 1), OMRU_OK);
	ck_assert_int_eq(omru_ctl_snapshot_pool(c, "", 1), OMRU_EINVAL);
	ck_assert_int_eq(omru_ctl_snapshot_pool(c, "x", std::numeric_limits<double>::infinity()),
			 OMRU_EINVAL);
	ck_assert_int_eq(omru_ctl_snapshot_pool(c, std::string(OMRU_POOL_KEY_MAX, 'k').c_str(), 1),
			 OMRU_EINVAL);
	omru_ctl_pool_use_t alice = {};
	snprintf(alice.key, sizeof(alice.key), "qos:1:user:1000");
	alice.per_gpu = 1;
	omru_ctl_pool_use_t bob = {};
	snprintf(bob.key, sizeof(bob.key), "qos:1:user:1001");
	bob.per_gpu = 1;
	int elig[] = { 0 }, where_node[] = { 0 }, where_gpus[] = { 1 };
	omru_ctl_job_t run = {};
	run.job_id = 1;
	run.running = 1;
	run.submit_s = run.start_s = 90;
	run.time_limit_s = 600;
	run.gpus = 1;
	run.where_node = where_node;
	run.where_gpus = where_gpus;
	run.where_count = 1;
	run.pools = &alice;
	run.pool_count = 1;
	ck_assert_int_eq(omru_ctl_snapshot_job(c, &run, err, sizeof(err)), OMRU_OK);
	omru_ctl_job_t j = {};
	j.submit_s = 95;
	j.time_limit_s = 600;
	j.gpus = 1;
	j.eligible = elig;
	j.eligible_count = 1;
	j.pools = &alice;
	j.pool_count = 1;
	for (uint32_t id = 2; id <= 3; id++) {
		j.job_id = id;
		ck_assert_int_eq(omru_ctl_snapshot_job(c, &j, err, sizeof(err)), OMRU_OK);
	}
	j.job_id = 4;
	j.pools = &bob;
	ck_assert_int_eq(omru_ctl_snapshot_job(c, &j, err, sizeof(err)), OMRU_OK);
	j.job_id = 5;
	j.pool_count = -1;
	ck_assert_int_eq(omru_ctl_snapshot_job(c, &j, err, sizeof(err)), OMRU_EINVAL);
	ck_assert_int_eq(omru_ctl_plan(c, err, sizeof(err)), OMRU_OK);
	omru_ctl_decision_t d;
	ck_assert_int_eq(omru_ctl_lookup(c, 2, &d), 1);
	ck_assert_int_eq(d.kind, OMRU_DECIDE_START);
	ck_assert_int_eq(omru_ctl_lookup(c, 3, &d), 1);
	ck_assert_int_eq(d.kind, OMRU_DECIDE_WAIT);
	ck_assert_int_eq(omru_ctl_lookup(c, 4, &d), 1);
	ck_assert_int_eq(d.kind, OMRU_DECIDE_START);
	omru_ctl_destroy(c);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("plan_pools");
	TCase *tc = tcase_create("plan_pools");
	tcase_add_test(tc, test_a_users_gpu_limit_holds_its_jobs_and_no_one_elses);
	tcase_add_test(tc, test_a_license_is_held_by_one_job_at_a_time);
	tcase_add_test(tc, test_no_count_beyond_a_pool_is_offered);
	tcase_add_test(tc, test_a_running_job_holds_its_pool_until_it_ends);
	tcase_add_test(tc, test_growth_stays_within_the_pool);
	tcase_add_test(tc, test_random_plans_never_exceed_a_pool);
	tcase_add_test(tc, test_bad_pools_are_refused);
	tcase_add_test(tc, test_c_api_builds_pools_from_slurms_rooms);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
