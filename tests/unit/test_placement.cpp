// test_placement.cpp - jobs go on as few nodes as possible, preferring the
// fullest node that fits.
#include "check_cxx.hpp"
#include "node_counts_text.hpp"

#include <random>

#include "policy/placement.hpp"

using namespace omru;

START_TEST(test_single_node_job_goes_to_the_fullest_node_that_fits)
{
	ck_assert_string_eq(show(pack_gpus({ 4, 2, 3, 2 }, 2)), "1:2");
	ck_assert_string_eq(show(pack_gpus({ 4, 2, 3, 2 }, 3)), "2:3");
	ck_assert_string_eq(show(pack_gpus({ 4, 2, 3, 2 }, 4)), "0:4");
}
END_TEST

START_TEST(test_spread_job_uses_the_fewest_nodes)
{
	// 6 GPUs: 4 + 2 (two nodes), not 3 + 2 + 1.
	ck_assert_string_eq(show(pack_gpus({ 3, 4, 1, 2 }, 6)), "1:4 3:2");
	// 5 GPUs: 4 + the fullest node holding 1 (node 2, one free).
	ck_assert_string_eq(show(pack_gpus({ 3, 4, 1, 2 }, 5)), "1:4 2:1");
	// Everything.
	ck_assert_string_eq(show(pack_gpus({ 3, 4, 1, 2 }, 10)), "0:3 1:4 2:1 3:2");
}
END_TEST

START_TEST(test_not_enough_free_gpus_gives_nothing)
{
	ck_assert_string_eq(show(pack_gpus({ 1, 1 }, 3)), "none");
	ck_assert_string_eq(show(pack_gpus({ 0, 0 }, 1)), "none");
	ck_assert_string_eq(show(pack_gpus({ 4 }, 0)), "none");
}
END_TEST

START_TEST(test_ties_go_to_the_lower_node_index)
{
	ck_assert_string_eq(show(pack_gpus({ 2, 2, 2 }, 2)), "0:2");
	ck_assert_string_eq(show(pack_gpus({ 2, 2, 2 }, 3)), "0:2 1:1");
}
END_TEST

START_TEST(test_confined_to_a_node_list)
{
	// Nodes {2, 3} only: node 0 with 4 free is never used.
	ck_assert_string_eq(show(pack_gpus({ 4, 4, 2, 3 }, 2, { 2, 3 })), "2:2");
	ck_assert_string_eq(show(pack_gpus({ 4, 4, 2, 3 }, 4, { 2, 3 })), "2:1 3:3");
	ck_assert_string_eq(show(pack_gpus({ 4, 4, 2, 3 }, 5, { 2, 3 })), "2:2 3:3");
	// More than the set holds, an empty set: nothing.
	ck_assert_string_eq(show(pack_gpus({ 4, 4, 2, 3 }, 6, { 2, 3 })), "none");
	ck_assert_string_eq(show(pack_gpus({ 4, 4, 2, 3 }, 1, {})), "none");
	// Ties still go to the lower index within the set.
	ck_assert_string_eq(show(pack_gpus({ 2, 2, 2, 2 }, 3, { 1, 3 })), "1:2 3:1");
}
END_TEST

START_TEST(test_node_list_equals_masking_the_others)
{
	// The restricted packing is pack_gpus with every other node at 0, on
	// mixed node sizes (0..8 free) and random sets.
	std::mt19937 rng(7);
	for (int rep = 0; rep < 5000; rep++) {
		int n = 1 + static_cast<int>(rng() % 12);
		std::vector<int> free(n), nodes, masked(n, 0);
		for (int i = 0; i < n; i++) {
			free[i] = static_cast<int>(rng() % 9);
			if (rng() % 2) {
				nodes.push_back(i);
				masked[i] = free[i];
			}
		}
		int gpus = static_cast<int>(rng() % 30);
		ck_assert_string_eq(show(pack_gpus(free, gpus, nodes)),
				    show(pack_gpus(masked, gpus)));
		// Every node listed: the unrestricted packing itself.
		std::vector<int> all;
		for (int i = 0; i < n; i++)
			all.push_back(i);
		ck_assert_string_eq(show(pack_gpus(free, gpus, all)),
				    show(pack_gpus(free, gpus)));
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("placement");
	TCase *tc = tcase_create("pack_gpus");
	tcase_add_test(tc, test_single_node_job_goes_to_the_fullest_node_that_fits);
	tcase_add_test(tc, test_spread_job_uses_the_fewest_nodes);
	tcase_add_test(tc, test_not_enough_free_gpus_gives_nothing);
	tcase_add_test(tc, test_ties_go_to_the_lower_node_index);
	tcase_add_test(tc, test_confined_to_a_node_list);
	tcase_add_test(tc, test_node_list_equals_masking_the_others);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
