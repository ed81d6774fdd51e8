// test_plan_resources.cpp - the planner counts CPUs and memory besides GPUs
// (PlanInput node resources, PlanJob::need): a job is placed only where
// cons_tres would accept it, as jobs start and end in the plan.
#include "check_cxx.hpp"

#include <limits>
#include <stdexcept>
#include <string>

#include "omru/omru_ctl.h"
#include "planner/planner.hpp"
#include "plan_fixture.hpp"

using namespace omru;
using namespace omru::planner;
using omru_test::refusal;
using omru_test::rigid;
using omru_test::running_on_node0;

namespace {

PlanJob pending(long id, int curve, NodeNeed need = {})
{
	PlanJob j;
	j.id = id;
	j.curve = curve;
	j.remaining_epochs = 1;
	j.need = need;
	return j;
}

// `nodes` nodes of 4 GPUs, 16 CPUs and 16000 MB, all free.
PlanInput cluster(int nodes)
{
	PlanInput in;
	in.nodes = nodes;
	in.gpus_per_node = 4;
	in.free_per_node.assign(nodes, 4);
	in.node_cpus.assign(nodes, 16);
	in.node_mem.assign(nodes, 16000);
	in.free_cpus = in.node_cpus;
	in.free_mem = in.node_mem;
	return in;
}

NodeNeed mem_per_node(double mb)
{
	NodeNeed n;
	n.cpus_min = 1;
	n.mem_min = mb;
	return n;
}

NodeNeed cpus_per_gpu(double c)
{
	NodeNeed n;
	n.cpus_min = 1;
	n.cpus_per_gpu = c;
	n.mem_per_cpu = 1000;
	return n;
}

std::vector<int> nodes_of(const Action &a)
{
	std::vector<int> out;
	for (auto [node, n] : a.where)
		out.push_back(node);
	return out;
}

} // namespace

START_TEST(test_two_memory_heavy_jobs_never_share_a_node)
{
	// Three 1-GPU jobs of 9000 MB on two 16000 MB nodes: one per node,
	// the third when one ends, although 6 GPUs stay free.
	PlanInput in = cluster(2);
	in.curves = { rigid(1, 2) };
	in.jobs = { pending(1, 0, mem_per_node(9000)), pending(2, 0, mem_per_node(9000)),
		    pending(3, 0, mem_per_node(9000)) };
	Plan p = make_plan(in);
	ck_assert_int_eq(p.now.size(), 2);
	ck_assert(nodes_of(p.now[0]) != nodes_of(p.now[1]));
	ck_assert_double_eq(p.jobs[2].start_s(), 100);
	// Without node resources the same jobs all start on one node.
	in.node_cpus.clear();
	in.node_mem.clear();
	in.free_cpus.clear();
	in.free_mem.clear();
	ck_assert_int_eq(make_plan(in).now.size(), 3);
}
END_TEST

START_TEST(test_cpu_hungry_job_is_placed_where_its_cpus_fit)
{
	// 12 CPUs per GPU on 16-CPU nodes: one GPU per node, so a 2-GPU job
	// spans two nodes (its curve has the row), and a third 1-GPU job of
	// that kind waits.
	PlanInput in = cluster(2);
	in.curves = { rigid(2, 2), rigid(1, 2) };
	in.jobs = { pending(1, 0, cpus_per_gpu(12)), pending(2, 1, cpus_per_gpu(12)) };
	Plan p = make_plan(in);
	ck_assert_int_eq(p.now.size(), 1);
	ck_assert_int_eq(p.now[0].where.size(), 2);
	ck_assert_double_eq(p.jobs[1].start_s(), 100);
}
END_TEST

START_TEST(test_a_need_no_node_can_hold_is_unplaced)
{
	PlanInput in = cluster(2);
	in.curves = { rigid(1, 2) };
	in.jobs = { pending(1, 0, mem_per_node(20000)) };
	Plan p = make_plan(in);
	ck_assert_int_eq(p.unplaced, 1);
	ck_assert(p.now.empty());
}
END_TEST

START_TEST(test_running_job_frees_its_cpus_when_it_ends)
{
	// A running 1-GPU job holds 12 of node 0's CPUs until 50 s; node 1
	// runs a CPU-only job (not in the plan) holding all its CPUs.  A
	// pending job of 8 CPUs per GPU starts at 50 s on node 0.
	PlanInput in = cluster(2);
	in.free_per_node = { 3, 4 };
	in.free_cpus = { 4, 0 };
	in.free_mem = { 4000, 0 };
	in.curves = { rigid(1, 2) };
	PlanJob run = running_on_node0(pending(1, 0, cpus_per_gpu(12)), 1, 50, 1, false);
	run.holding = { { 12, 12000 } };
	in.jobs = { run, pending(2, 0, cpus_per_gpu(8)) };
	Plan p = make_plan(in);
	ck_assert(p.now.empty());
	ck_assert_double_eq(p.jobs[1].start_s(), 50);
}
END_TEST

START_TEST(test_exclusive_job_waits_for_an_idle_node)
{
	PlanInput in = cluster(2);
	NodeNeed whole;
	whole.whole_node = true;
	in.curves = { rigid(1, 2) };
	// A 1-GPU job on node 0, then an exclusive 1-GPU job: node 1, whole;
	// a second exclusive one waits for the first job to end.
	in.jobs = { pending(1, 0, mem_per_node(1000)), pending(2, 0, whole),
		    pending(3, 0, whole) };
	Plan p = make_plan(in);
	ck_assert_int_eq(p.now.size(), 2);
	ck_assert(nodes_of(p.now[0]) != nodes_of(p.now[1]));
	ck_assert_double_eq(p.jobs[2].start_s(), 100);
}
END_TEST

START_TEST(test_needs_within_each_gpus_share_do_not_bind)
{
	// 4 CPUs and 4000 MB per GPU is each node's share: such jobs can
	// always have the CPUs and memory of the GPUs they get.
	PlanInput in = cluster(2);
	in.curves = { rigid(1, 2) };
	in.jobs = { pending(1, 0, cpus_per_gpu(4)), pending(2, 0, mem_per_node(3000)) };
	ck_assert(!in.resources_bind());
	in.jobs.push_back(pending(3, 0, mem_per_node(4001)));
	ck_assert(in.resources_bind());
	in.jobs.pop_back();
	// A node whose CPUs a job outside the plan holds.
	in.free_cpus[1] = 15;
	ck_assert(in.resources_bind());
}
END_TEST

START_TEST(test_bad_node_resources_are_refused)
{
	PlanInput in = cluster(2);
	in.curves = { rigid(1, 2) };
	in.jobs = { pending(1, 0) };
	in.free_cpus = { 17, 16 };
	ck_assert_string_eq(refusal(in), "plan input: node 0: CPUs and memory must be finite, >= 0, "
				 "and free no more than it has");
	in = cluster(2);
	in.node_mem.pop_back();
	in.curves = { rigid(1, 2) };
	in.jobs = { pending(1, 0) };
	ck_assert_string_eq(refusal(in), "plan input: node resources need CPUs and memory, had and "
				 "free, per node");
	in = cluster(2);
	in.curves = { rigid(1, 2) };
	NodeNeed nan;
	nan.mem_per_gpu = std::numeric_limits<double>::quiet_NaN();
	in.jobs = { pending(1, 0, nan) };
	ck_assert_string_eq(refusal(in), "plan input: job 0: CPUs and memory it needs must be finite "
				 "and >= 0");
}
END_TEST

START_TEST(test_c_api_plans_memory_heavy_jobs_on_different_nodes)
{
	omru_ctl_t *c = omru_ctl_create();
	char err[256];
	ck_assert_int_eq(omru_ctl_configure(c, "/nonexistent/omru.conf", "/tmp", err, sizeof(err)), OMRU_OK);
	ck_assert_int_eq(omru_ctl_snapshot_begin(c, 100, 2), OMRU_OK);
	for (int n = 0; n < 2; n++) {
		ck_assert_int_eq(omru_ctl_snapshot_node(c, n, n ? "n2" : "n1", 4, 0, 1), OMRU_OK);
		ck_assert_int_eq(omru_ctl_snapshot_node_resources(c, n, 16, 0, 16000, 0), OMRU_OK);
	}
	ck_assert_int_eq(omru_ctl_snapshot_node_resources(c, 0, -1, 0, 16000, 0), OMRU_EINVAL);
	ck_assert_int_eq(omru_ctl_snapshot_node_resources(c, 2, 16, 0, 16000, 0), OMRU_EINVAL);
	int elig[] = { 0, 1 };
	omru_ctl_job_t j = {};
	j.submit_s = 90;
	j.time_limit_s = 600;
	j.gpus = 1;
	j.eligible = elig;
	j.eligible_count = 2;
	j.need_cpus_min = 1;
	j.need_mem_min_mb = 9000;
	for (uint32_t id = 1; id <= 3; id++) {
		j.job_id = id;
		ck_assert_int_eq(omru_ctl_snapshot_job(c, &j, err, sizeof(err)), OMRU_OK);
	}
	j.job_id = 4;
	j.need_mem_per_gpu_mb = -5;
	ck_assert_int_eq(omru_ctl_snapshot_job(c, &j, err, sizeof(err)), OMRU_EINVAL);
	ck_assert_str_eq(err, "the CPUs and memory it needs are out of range");
	ck_assert_int_eq(omru_ctl_plan(c, err, sizeof(err)), OMRU_OK);
	omru_ctl_decision_t d;
	int node[2] = { -1, -1 }, gpus = 0;
	for (uint32_t id = 1; id <= 2; id++) {
		ck_assert_int_eq(omru_ctl_lookup(c, id, &d), 1);
		ck_assert_int_eq(d.kind, OMRU_DECIDE_START);
		ck_assert_int_eq(omru_ctl_decision_where(&d, 0, &node[id - 1], &gpus), OMRU_OK);
	}
	ck_assert_int_ne(node[0], node[1]);
	ck_assert_int_eq(omru_ctl_lookup(c, 3, &d), 1);
	ck_assert_int_ne(d.kind, OMRU_DECIDE_START);
	omru_ctl_destroy(c);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("plan_resources");
	TCase *tc = tcase_create("plan_resources");
	tcase_add_test(tc, test_two_memory_heavy_jobs_never_share_a_node);
	tcase_add_test(tc, test_cpu_hungry_job_is_placed_where_its_cpus_fit);
	tcase_add_test(tc, test_a_need_no_node_can_hold_is_unplaced);
	tcase_add_test(tc, test_running_job_frees_its_cpus_when_it_ends);
	tcase_add_test(tc, test_exclusive_job_waits_for_an_idle_node);
	tcase_add_test(tc, test_needs_within_each_gpus_share_do_not_bind);
	tcase_add_test(tc, test_bad_node_resources_are_refused);
	tcase_add_test(tc, test_c_api_plans_memory_heavy_jobs_on_different_nodes);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
