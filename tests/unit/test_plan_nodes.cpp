// test_plan_nodes.cpp - the planner on heterogeneous clusters: nodes with
// different GPU counts (PlanInput::node_gpus) and jobs confined to node sets
// (PlanJob::node_set: Slurm partitions, --nodelist, --exclude).
#include "check_cxx.hpp"

#include <stdexcept>

#include "planner/planner.hpp"
#include "plan_fixture.hpp"

using namespace omru;
using namespace omru::planner;
using omru_test::rigid;

namespace {

PlanJob pending(long id, int curve, int set = -1)
{
	PlanJob j;
	j.id = id;
	j.curve = curve;
	j.submit_s = 0;
	j.remaining_epochs = 1;
	j.node_set = set;
	return j;
}

// Nodes: 0 and 1 with 4 GPUs, 2 with 8.
PlanInput mixed()
{
	PlanInput in;
	in.nodes = 3;
	in.gpus_per_node = 8;
	in.node_gpus = { 4, 4, 8 };
	in.free_per_node = { 4, 4, 8 };
	return in;
}

} // namespace

START_TEST(test_eight_gpu_job_goes_to_the_eight_gpu_node)
{
	PlanInput in = mixed();
	in.curves = { rigid(8, 3) };
	in.jobs = { pending(1, 0) };
	Plan p = make_plan(in);
	ck_assert_int_eq(p.now.size(), 1);
	ck_assert_int_eq(p.now[0].where.size(), 1);
	ck_assert_int_eq(p.now[0].where[0].first, 2);
	ck_assert_int_eq(p.now[0].where[0].second, 8);
}
END_TEST

START_TEST(test_job_confined_to_a_set_never_lands_elsewhere)
{
	PlanInput in = mixed();
	in.node_sets = { { 0, 1 } };
	in.curves = { rigid(4, 3) };
	// Three 4-GPU jobs in the set {0, 1}: two start now, the third waits
	// although node 2 has 8 free GPUs.
	in.jobs = { pending(1, 0, 0), pending(2, 0, 0), pending(3, 0, 0) };
	Plan p = make_plan(in);
	ck_assert_int_eq(p.now.size(), 2);
	for (const Action &a : p.now)
		for (auto [node, n] : a.where)
			ck_assert(node == 0 || node == 1);
	ck_assert_double_eq(p.jobs[2].start_s(), 100);
}
END_TEST

START_TEST(test_job_too_big_for_its_set_is_unplaced)
{
	PlanInput in = mixed();
	in.node_sets = { { 0 } };
	in.curves = { rigid(8, 3) };
	in.jobs = { pending(1, 0, 0) };
	Plan p = make_plan(in);
	ck_assert_int_eq(p.unplaced, 1);
	ck_assert(p.now.empty());
	ck_assert(p.jobs[0].segments.empty());
}
END_TEST

START_TEST(test_free_gpus_never_exceed_a_nodes_capacity)
{
	PlanInput in = mixed();
	in.free_per_node = { 5, 4, 8 };
	in.curves = { rigid(1, 3) };
	in.jobs = { pending(1, 0) };
	try {
		check_plan_input(in);
		ck_abort_msg("accepted 5 free GPUs on a 4-GPU node");
	} catch (const std::invalid_argument &e) {
		ck_assert_str_eq(e.what(), "plan input: a node has 5 free GPUs");
	}
}
END_TEST

START_TEST(test_bad_node_set_is_refused)
{
	PlanInput in = mixed();
	in.node_sets = { { 1, 0 } };
	in.curves = { rigid(1, 3) };
	in.jobs = { pending(1, 0, 0) };
	try {
		check_plan_input(in);
		ck_abort_msg("accepted an unsorted node set");
	} catch (const std::invalid_argument &e) {
		ck_assert_str_eq(e.what(), "plan input: node set 0 must list distinct "
					   "node indices in ascending order");
	}
	in.node_sets = { { 0 } };
	in.jobs[0].node_set = 3;
	try {
		check_plan_input(in);
		ck_abort_msg("accepted a missing node set");
	} catch (const std::invalid_argument &e) {
		ck_assert_str_eq(e.what(), "plan input: job 0 names a node set that does not exist");
	}
}
END_TEST

START_TEST(test_uniform_input_without_sets_plans_as_before)
{
	// The same jobs with node_gpus given explicitly (all 4) and with none.
	PlanInput a;
	a.nodes = 2;
	a.gpus_per_node = 4;
	a.free_per_node = { 4, 4 };
	a.curves = { rigid(2, 2), rigid(4, 2) };
	a.jobs = { pending(1, 0), pending(2, 1), pending(3, 0), pending(4, 1) };
	PlanInput b = a;
	b.node_gpus = { 4, 4 };
	Plan pa = make_plan(a), pb = make_plan(b);
	ck_assert_double_eq(pa.makespan_s, pb.makespan_s);
	ck_assert_int_eq(pa.now.size(), pb.now.size());
	for (size_t i = 0; i < pa.now.size(); i++)
		ck_assert(pa.now[i].where == pb.now[i].where);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("plan_nodes");
	TCase *tc = tcase_create("plan_nodes");
	tcase_add_test(tc, test_eight_gpu_job_goes_to_the_eight_gpu_node);
	tcase_add_test(tc, test_job_confined_to_a_set_never_lands_elsewhere);
	tcase_add_test(tc, test_job_too_big_for_its_set_is_unplaced);
	tcase_add_test(tc, test_free_gpus_never_exceed_a_nodes_capacity);
	tcase_add_test(tc, test_bad_node_set_is_refused);
	tcase_add_test(tc, test_uniform_input_without_sets_plans_as_before);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
