// test_free_gpu_index.cpp - the planner's indexed free GPUs place jobs
// exactly where pack_gpus does, through any sequence of takes and returns,
// on every node and in node sets (indexed or scanned).
#include "check_cxx.hpp"
#include "node_counts_text.hpp"

#include <algorithm>
#include <random>

#include "planner/free_gpu_index.hpp"
#include "planner/level_bitset.hpp"

using namespace omru;
using namespace omru::planner;

START_TEST(test_level_bitset_finds_members_across_levels)
{
	LevelBitset b(5000); // three levels of words
	ck_assert_int_eq(b.first(), -1);
	for (int i : { 4999, 63, 64, 4095, 0 })
		b.insert(i);
	ck_assert_int_eq(b.first(), 0);
	ck_assert_int_eq(b.next(1), 63);
	ck_assert_int_eq(b.next(64), 64);
	ck_assert_int_eq(b.next(65), 4095);
	ck_assert_int_eq(b.next(4096), 4999);
	ck_assert_int_eq(b.next(5000), -1);
	b.erase(0);
	b.erase(63);
	b.erase(64);
	ck_assert_int_eq(b.first(), 4095);
	b.erase(4095);
	b.erase(4999);
	ck_assert_int_eq(b.first(), -1);
	b.insert(4999);
	ck_assert_int_eq(b.next(0), 4999);
}
END_TEST

START_TEST(test_level_bitset_of_one_word)
{
	LevelBitset b(10);
	b.insert(9);
	ck_assert_int_eq(b.first(), 9);
	ck_assert_int_eq(b.next(10), -1);
	LevelBitset empty(0);
	ck_assert_int_eq(empty.first(), -1);
}
END_TEST

START_TEST(test_places_like_pack_gpus_by_hand)
{
	std::vector<std::vector<int>> sets;
	FreeGpuIndex idx({ 3, 4, 1, 2 }, 4, sets);
	ck_assert_string_eq(show(idx.pack(2, -1)), "3:2");
	ck_assert_string_eq(show(idx.pack(5, -1)), "1:4 2:1");
	ck_assert_string_eq(show(idx.pack(6, -1)), "1:4 3:2");
	ck_assert_string_eq(show(idx.pack(10, -1)), "0:3 1:4 2:1 3:2");
	ck_assert_string_eq(show(idx.pack(11, -1)), "none");
	ck_assert_string_eq(show(idx.pack(0, -1)), "none");
	idx.take({ { 1, 4 } });
	ck_assert_int_eq(idx.total(), 6);
	ck_assert_string_eq(show(idx.pack(4, -1)), "0:3 2:1");
	idx.give_back({ { 1, 2 } });
	ck_assert_string_eq(show(idx.pack(2, -1)), "1:2");
}
END_TEST

// Random clusters, node sets of both kinds and a random walk of takes and
// returns: every answer equals pack_gpus's on the same free counts, and
// the nodes by free count are those of the free counts.
START_TEST(test_agrees_with_pack_gpus_through_changes)
{
	std::mt19937_64 rng(7);
	for (int round = 0; round < 40; round++) {
		int nodes = 1 + static_cast<int>(rng() % 300);
		int per_node = 1 + static_cast<int>(rng() % 8);
		std::vector<int> cap(nodes), free(nodes);
		for (int n = 0; n < nodes; n++) {
			cap[n] = static_cast<int>(rng() % (per_node + 1));
			free[n] = cap[n] ? static_cast<int>(rng() % (cap[n] + 1)) : 0;
		}
		std::vector<std::vector<int>> sets(3);
		for (auto &s : sets) {
			int keep = 1 + static_cast<int>(rng() % 4); // 1/keep of nodes
			for (int n = 0; n < nodes; n++)
				if (rng() % keep == 0)
					s.push_back(n);
		}
		FreeGpuIndex idx(free, per_node, sets);
		for (int step = 0; step < 60; step++) {
			int max_gpus = 0;
			for (int f : free)
				max_gpus += f;
			for (int g = 0; g <= max_gpus + 2; g += 1 + g / 16) {
				ck_assert_string_eq(show(idx.pack(g, -1)),
						    show(pack_gpus(free, g)));
				for (int s = 0; s < 3; s++)
					ck_assert_string_eq(show(idx.pack(g, s)),
							    show(pack_gpus(free, g, sets[s])));
			}
			ck_assert_int_eq(idx.total(), max_gpus);
			// Nodes by free count, counted here from the free GPUs.
			std::vector<int> by_free;
			for (int s = -1; s < 3; s++) {
				std::vector<int> want(per_node + 1, 0);
				for (int n = 0; n < nodes; n++)
					if (s < 0 || std::binary_search(sets[s].begin(),
									sets[s].end(), n))
						want[free[n]]++;
				idx.nodes_by_free(s, by_free);
				ck_assert(by_free == want);
			}
			// Take what a job would get, or give a random node's GPUs back.
			int g = 1 + static_cast<int>(rng() % (2 * per_node));
			auto where = pack_gpus(free, g);
			if (where && rng() % 2) {
				idx.take(*where);
				for (auto [n, c] : *where)
					free[n] -= c;
			} else {
				int n = static_cast<int>(rng() % nodes);
				int back = cap[n] - free[n];
				if (back > 0) {
					idx.give_back({ { n, back } });
					free[n] += back;
				}
			}
			ck_assert(idx.free() == free);
		}
	}
}
END_TEST

int main()
{
	Suite *s = suite_create("free_gpu_index");
	TCase *tc = tcase_create("core");
	// Thousands of random placements: seconds under ASan beside another
	// test (Check's default is 4 s).
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_level_bitset_finds_members_across_levels);
	tcase_add_test(tc, test_level_bitset_of_one_word);
	tcase_add_test(tc, test_places_like_pack_gpus_by_hand);
	tcase_add_test(tc, test_agrees_with_pack_gpus_through_changes);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
