// test_placement.cpp - jobs go on as few nodes as possible, preferring the
// fullest node that fits.
#include "check_cxx.hpp"

#include "policy/placement.hpp"

using namespace omru;

static std::string show(const std::optional<NodeCounts> &p)
{
	if (!p)
		return "none";
	std::string s;
	for (auto [node, count] : *p)
		s += (s.empty() ? "" : " ") + std::to_string(node) + ":" + std::to_string(count);
	return s;
}

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

int main(void)
{
	Suite *s = suite_create("placement");
	TCase *tc = tcase_create("pack_gpus");
	tcase_add_test(tc, test_single_node_job_goes_to_the_fullest_node_that_fits);
	tcase_add_test(tc, test_spread_job_uses_the_fewest_nodes);
	tcase_add_test(tc, test_not_enough_free_gpus_gives_nothing);
	tcase_add_test(tc, test_ties_go_to_the_lower_node_index);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
