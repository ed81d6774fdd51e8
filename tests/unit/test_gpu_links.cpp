// test_gpu_links.cpp - gres.conf Links= matrices are read strictly, and a
// job gets the best-linked free GPUs of a node (an NVLink island rather than
// a PCIe hop), lowest slots when there is no matrix.
#include "sim_fixture.hpp"

#include <cstdio>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <unistd.h>

#include "policy/gpu_links.hpp"
#include "policy/registry.hpp"

using namespace omru;
using namespace omru_test;

static GpuLinks links(const std::vector<std::string> &lines)
{
	Parsed<GpuLinks> p = GpuLinks::parse_gres_links(lines);
	ck_assert_msg(p.ok(), "%s", p.error().c_str());
	return p.value();
}

static std::string parse_error(const std::vector<std::string> &lines)
{
	Parsed<GpuLinks> p = GpuLinks::parse_gres_links(lines);
	return p.ok() ? "ok" : p.error();
}

static std::string show(const std::vector<int> &v)
{
	std::string s;
	for (int x : v)
		s += (s.empty() ? "" : ",") + std::to_string(x);
	return "{" + s + "}";
}

// free mask of `n` slots with the listed ones busy.
static std::vector<bool> free_but(int n, const std::vector<int> &busy)
{
	std::vector<bool> f(n, true);
	for (int b : busy)
		f[b] = false;
	return f;
}

// DGX-1 (V100) hybrid cube-mesh as nvidia-smi topo -m shows it: two fully
// linked quads 0-3 and 4-7 plus 0-4, 1-5, 2-6, 3-7; NV1 or NV2 per pair,
// six NVLinks per GPU.
static const std::vector<std::string> kDgx1 = {
	"-1,1,1,2,2,0,0,0", //
	"1,-1,2,1,0,2,0,0", //
	"1,2,-1,2,0,0,1,0", //
	"2,1,2,-1,0,0,0,1", //
	"2,0,0,0,-1,1,1,2", //
	"0,2,0,0,1,-1,2,1", //
	"0,0,1,0,1,2,-1,2", //
	"0,0,0,1,2,1,2,-1", //
};

// Four GPUs as two NVLink pairs, 0-1 and 2-3, PCIe between the pairs.
static const std::vector<std::string> kTwoPairs = {
	"-1,2,0,0",
	"2,-1,0,0",
	"0,0,-1,2",
	"0,0,2,-1",
};

START_TEST(test_parse_reads_a_symmetric_matrix)
{
	GpuLinks g = links({ "Links=-1, 2,0", " 2,-1,1\r", "0,1,-1" });
	ck_assert_int_eq(g.size(), 3);
	ck_assert_int_eq(g.strength(0, 1), 2);
	ck_assert_int_eq(g.strength(1, 0), 2);
	ck_assert_int_eq(g.strength(1, 2), 1);
	ck_assert_int_eq(g.strength(0, 2), 0);
	ck_assert_int_eq(g.strength(2, 2), -1);
	ck_assert_int_eq(links(kDgx1).size(), 8);
}
END_TEST

START_TEST(test_parse_errors_name_the_gpu_and_the_entry)
{
	ck_assert_string_eq(parse_error({ "-1,1,0", "1,-1", "0,0,-1" }),
			    "GPU 1: Links '1,-1' has 2 entries, expected 3 "
			    "(one per GPU of the node)");
	ck_assert_string_eq(parse_error({ "-1,1", "1,0" }),
			    "GPU 1, entry 1: '0' must be -1 (the GPU itself)");
	ck_assert_string_eq(parse_error({ "-1,-2", "-2,-1" }),
			    "GPU 0, entry 1: '-2' must be >= 0 "
			    "(0: no direct link, N: N NVLinks)");
	ck_assert_string_eq(parse_error({ "-1,2,0", "2,-1,1", "0,2,-1" }),
			    "GPU 2, entry 1: '2' differs from GPU 1, entry 2: '1' "
			    "(links must be symmetric)");
	ck_assert_string_eq(parse_error({ "-1,x", "1,-1" }),
			    "GPU 0, entry 1: 'x' is not an integer");
	ck_assert_string_eq(parse_error({ "-1,1.5", "1,-1" }),
			    "GPU 0, entry 1: '1.5' is not an integer");
	ck_assert_string_eq(parse_error({ "-1,", "1,-1" }),
			    "GPU 0, entry 1: '' is not an integer");
	ck_assert_string_eq(parse_error({ "-1,99999999999", "1,-1" }),
			    "GPU 0, entry 1: '99999999999' is not an integer");
	ck_assert_string_eq(parse_error({}),
			    "no Links lines: expected one per GPU of the node");
	ck_assert_string_eq(parse_error(std::vector<std::string>(65, "-1")),
			    "65 Links lines: at most 64 GPUs per node");
}
END_TEST

START_TEST(test_read_file_skips_comments_and_names_the_line)
{
	char path[] = "/tmp/test_gpu_links.XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	{
		std::ofstream out(path);
		out << "# two NVLink pairs\n-1,2,0,0\n2,-1,0,0\n\n  # pair 2-3\n"
		       "0,0,-1,2\n0,0,2,-1\n";
	}
	Parsed<GpuLinks> ok = GpuLinks::read_file(path);
	ck_assert_msg(ok.ok(), "%s", ok.error().c_str());
	ck_assert_int_eq(ok.value().size(), 4);
	ck_assert_int_eq(ok.value().strength(3, 2), 2);
	{
		std::ofstream out(path);
		out << "# bad\n-1,2\n\n2,0\n";
	}
	Parsed<GpuLinks> bad = GpuLinks::read_file(path);
	ck_assert(!bad.ok());
	ck_assert_string_eq(bad.error(), std::string(path) +
			    ":4: GPU 1, entry 1: '0' must be -1 (the GPU itself)");
	{
		std::ofstream out(path);
		out << "# nothing\n\n";
	}
	ck_assert_string_eq(GpuLinks::read_file(path).error(),
			    std::string(path) +
				    ": no Links lines: expected one per GPU of the node");
	unlink(path);
	ck_assert_string_eq(GpuLinks::read_file(path).error(),
			    std::string(path) + ": cannot read: No such file or directory");
}
END_TEST

START_TEST(test_no_links_takes_the_lowest_free_slots)
{
	ck_assert_string_eq(show(select_gpus(nullptr, free_but(8, { 1, 4 }), 3)),
			    "{0,2,3}");
	ck_assert_string_eq(show(select_gpus(nullptr, free_but(4, {}), 4)),
			    "{0,1,2,3}");
}
END_TEST

START_TEST(test_too_few_free_gives_nothing)
{
	GpuLinks g = links(kTwoPairs);
	ck_assert_string_eq(show(select_gpus(&g, free_but(4, { 0, 1 }), 3)), "{}");
	ck_assert_string_eq(show(select_gpus(nullptr, free_but(4, { 0, 1 }), 3)), "{}");
	ck_assert_string_eq(show(select_gpus(&g, free_but(4, {}), 0)), "{}");
	// A matrix for another node size is a caller's bug.
	ck_assert_int_eq(select_gpus(&g, free_but(4, {}), 4).size(), 4);
	bool threw = false;
	try {
		select_gpus(&g, free_but(8, {}), 2);
	} catch (const std::invalid_argument &) {
		threw = true;
	}
	ck_assert(threw);
}
END_TEST

START_TEST(test_dgx1_four_gpus_get_a_quad)
{
	GpuLinks g = links(kDgx1);
	// Both quads are the only fully NVLinked 4-sets and tie on every
	// rule: the lower one.
	ck_assert_string_eq(show(select_gpus(&g, free_but(8, {}), 4)), "{0,1,2,3}");
	// With one GPU of the low quad busy, the other quad.
	ck_assert_string_eq(show(select_gpus(&g, free_but(8, { 2 }), 4)), "{4,5,6,7}");
}
END_TEST

START_TEST(test_dgx1_two_gpus_get_a_directly_linked_pair)
{
	GpuLinks g = links(kDgx1);
	// Free 1, 3, 6, 7: lowest slots 1-3 have NV1, 6-7 has NV2.
	ck_assert_string_eq(show(select_gpus(&g, free_but(8, { 0, 2, 4, 5 }), 2)),
			    "{6,7}");
	// Free 0, 5, 6: 0 links to neither; 5-6 is NV2.
	ck_assert_string_eq(show(select_gpus(&g, free_but(8, { 1, 2, 3, 4, 7 }), 2)),
			    "{5,6}");
	// All free: an NV2 pair; every GPU has six NVLinks, so every NV2 pair
	// cuts as much off the rest and the lowest one wins.
	ck_assert_string_eq(show(select_gpus(&g, free_but(8, {}), 2)), "{0,3}");
}
END_TEST

START_TEST(test_two_pairs_keep_pairs_together)
{
	GpuLinks g = links(kTwoPairs);
	ck_assert_string_eq(show(select_gpus(&g, free_but(4, {}), 2)), "{0,1}");
	ck_assert_string_eq(show(select_gpus(&g, free_but(4, { 0 }), 2)), "{2,3}");
	// Three GPUs cannot avoid a PCIe hop; the first pair plus the lowest.
	ck_assert_string_eq(show(select_gpus(&g, free_but(4, {}), 3)), "{0,1,2}");
}
END_TEST

START_TEST(test_single_gpu_leaves_a_pair_intact)
{
	GpuLinks g = links(kTwoPairs);
	ck_assert_string_eq(show(select_gpus(&g, free_but(4, { 3 }), 1)), "{2}");
	// Everything linked alike: the lowest slot.
	ck_assert_string_eq(show(select_gpus(&g, free_but(4, {}), 1)), "{0}");
	ck_assert_string_eq(show(select_gpus(nullptr, free_but(4, { 0 }), 1)), "{1}");
}
END_TEST

START_TEST(test_large_node_uses_the_greedy_pass)
{
	// 32 GPUs as eight NVLink quads (4k..4k+3, strength 2), PCIe between:
	// C(30, 4) = 27405 sets is past the exhaustive limit.
	std::vector<std::string> lines;
	for (int i = 0; i < 32; i++) {
		std::string l;
		for (int j = 0; j < 32; j++)
			l += std::string(j ? "," : "") +
			     (i == j ? "-1" : i / 4 == j / 4 ? "2" : "0");
		lines.push_back(l);
	}
	GpuLinks g = links(lines);
	// Quads 0 and 1 are broken: a whole one further up, not the strong
	// pairs left in the broken ones.
	ck_assert_string_eq(show(select_gpus(&g, free_but(32, { 0, 5 }), 4)),
			    "{8,9,10,11}");
	// Six of 32 (906192 sets): a whole quad and a pair of the next.
	ck_assert_string_eq(show(select_gpus(&g, free_but(32, {}), 6)),
			    "{0,1,2,3,4,5}");
}
END_TEST

// m: 1 GPU 10 s/epoch, 2 GPUs 6 s.
static const char kProfiles[] = "model,gpus,epoch_s\nm,1,10\nm,2,6\n";
// a (1 GPU) from 0 to 10, b (2 GPUs) from 1 to 7.
static const char kWorkload[] =
	"job_id,submit_s,model,epochs,gpus,gpus_min,gpus_max\n"
	"a,0,m,1,1,1,1\nb,1,m,1,2,2,2\n";

static Schedule simulate_with(const Inputs &in, const GpuLinks *g)
{
	auto p = make_fifo(PolicyOptions{});
	SimOptions so;
	so.gpu_links = g;
	SimResult r = simulate(in.cluster, in.profiles, in.workload, *p, so);
	auto v = validate_schedule(in.cluster, in.profiles, in.workload, r.schedule, 0);
	ck_assert_msg(v.empty(), "invalid schedule: %s",
		      v.empty() ? "" : v.front().message.c_str());
	return r.schedule;
}

START_TEST(test_simulator_places_jobs_on_linked_gpus)
{
	// Pairs 0-2 (NV2) and 1-3 (NV1) on each node of 2x4.
	GpuLinks g = links({ "-1,0,2,0", "0,-1,0,1", "2,0,-1,0", "0,1,0,-1" });
	Inputs in = make_inputs("2x4", kProfiles, kWorkload);

	// a takes a GPU of the weaker pair (1, lowest of 1 and 3), b the
	// NV2 pair 0-2, both on node 0 (best fit).
	Schedule s = simulate_with(in, &g);
	ck_assert_segment(segments_of(in, s, "a")[0], 0, 10, 1, 1);
	ck_assert_segment(segments_of(in, s, "b")[0], 1, 7, 2, 1);
	ck_assert_string_eq(show(segments_of(in, s, "a")[0].gpu_ids), "{1}");
	ck_assert_string_eq(show(segments_of(in, s, "b")[0].gpu_ids), "{0,2}");

	// Without links: lowest free slots, as before.
	s = simulate_with(in, nullptr);
	ck_assert_string_eq(show(segments_of(in, s, "a")[0].gpu_ids), "{0}");
	ck_assert_string_eq(show(segments_of(in, s, "b")[0].gpu_ids), "{1,2}");

	// A matrix for another node size is refused.
	Inputs in8 = make_inputs("2x8", kProfiles, kWorkload);
	bool threw = false;
	try {
		simulate_with(in8, &g);
	} catch (const std::invalid_argument &e) {
		threw = true;
		ck_assert_string_eq(e.what(), "GPU link matrix is for 4 GPUs per "
					      "node, the cluster has 8");
	}
	ck_assert(threw);
}
END_TEST

// m on 2 to 4 GPUs; a (3 GPUs) at 0, b (2) at 1, c (4) at 2, all running
// together on 1x6+2x4: fifo puts a on node 1, b on node 2, c on node 0.
static const char kMixedProfiles[] = "model,gpus,epoch_s\nm,2,6\nm,3,5\nm,4,4\n";
static const char kMixedWorkload[] =
	"job_id,submit_s,model,epochs,gpus\na,0,m,10,3\nb,1,m,10,2\nc,2,m,10,4\n";

static Schedule simulate_per_node(const Inputs &in,
				  const std::vector<std::shared_ptr<const GpuLinks>> &node_links)
{
	auto p = make_fifo(PolicyOptions{});
	SimOptions so;
	so.node_links = node_links;
	SimResult r = simulate(in.cluster, in.profiles, in.workload, *p, so);
	auto v = validate_schedule(in.cluster, in.profiles, in.workload, r.schedule, 0);
	ck_assert_msg(v.empty(), "invalid schedule: %s",
		      v.empty() ? "" : v.front().message.c_str());
	return r.schedule;
}

static std::string ids_of(const Inputs &in, const Schedule &s, const char *job)
{
	return show(segments_of(in, s, job)[0].gpu_ids);
}

START_TEST(test_simulator_uses_each_nodes_own_links)
{
	Inputs in = make_inputs("1x6+2x4", kMixedProfiles, kMixedWorkload);
	// GPU ids: node 0 has 0-5, node 1 6-9, node 2 10-13.
	auto quad = std::make_shared<const GpuLinks>(links({ // 2-5 all NV1
		"-1,0,0,0,0,0", "0,-1,0,0,0,0", "0,0,-1,1,1,1",
		"0,0,1,-1,1,1", "0,0,1,1,-1,1", "0,0,1,1,1,-1" }));
	auto pair13 = std::make_shared<const GpuLinks>(
		links({ "-1,0,0,0", "0,-1,0,2", "0,0,-1,0", "0,2,0,-1" }));
	auto pair23 = std::make_shared<const GpuLinks>(
		links({ "-1,0,0,0", "0,-1,0,0", "0,0,-1,2", "0,0,2,-1" }));

	// Without links: the lowest free slots of each node.
	Schedule s = simulate_per_node(in, {});
	ck_assert_string_eq(ids_of(in, s, "a"), "{6,7,8}");
	ck_assert_string_eq(ids_of(in, s, "b"), "{10,11}");
	ck_assert_string_eq(ids_of(in, s, "c"), "{0,1,2,3}");

	// Each job gets its node's linked GPUs: a the pair 1-3 of node 1 and
	// the lowest other, b the pair 2-3 of node 2, c the quad of node 0.
	s = simulate_per_node(in, { quad, pair13, pair23 });
	ck_assert_string_eq(ids_of(in, s, "a"), "{6,7,9}");
	ck_assert_string_eq(ids_of(in, s, "b"), "{12,13}");
	ck_assert_string_eq(ids_of(in, s, "c"), "{2,3,4,5}");
	// Same times as without links: links choose slots, not speed.
	ck_assert_segment(segments_of(in, s, "a")[0], 0, 50, 3, 10);
	ck_assert_segment(segments_of(in, s, "c")[0], 2, 42, 4, 10);

	// The two 4-GPU nodes' matrices swapped: the jobs follow them.
	s = simulate_per_node(in, { quad, pair23, pair13 });
	ck_assert_string_eq(ids_of(in, s, "a"), "{6,8,9}");
	ck_assert_string_eq(ids_of(in, s, "b"), "{11,13}");
	// A node without a matrix: its lowest free slots.
	s = simulate_per_node(in, { nullptr, pair13, pair23 });
	ck_assert_string_eq(ids_of(in, s, "c"), "{0,1,2,3}");
	ck_assert_string_eq(ids_of(in, s, "b"), "{12,13}");

	// Refused: a matrix of another size (named by its node), a count
	// of matrices that is not the cluster's nodes, both kinds of links.
	auto p = make_fifo(PolicyOptions{});
	auto refusal = [&](const SimOptions &so) -> std::string {
		try {
			simulate(in.cluster, in.profiles, in.workload, *p, so);
		} catch (const std::invalid_argument &e) {
			return e.what();
		}
		return "(accepted)";
	};
	SimOptions so;
	so.node_links = { quad, pair13, quad };
	ck_assert_string_eq(refusal(so), "GPU link matrix of node 2 is for 6 GPUs, "
					 "the node has 4");
	so.node_links = { quad, pair13 };
	ck_assert_string_eq(refusal(so), "GPU link matrices for 2 nodes, the "
					 "cluster has 3");
	Inputs uniform = make_inputs("2x4", kMixedProfiles, kMixedWorkload);
	so.node_links = { pair13, pair23 };
	so.gpu_links = pair13.get();
	bool threw = false;
	try {
		simulate(uniform.cluster, uniform.profiles, uniform.workload, *p, so);
	} catch (const std::invalid_argument &e) {
		threw = std::string(e.what()).find("give one") != std::string::npos;
	}
	ck_assert(threw);
	// One matrix for identical nodes still works, as node_links alike.
	so.node_links.clear();
	Schedule one = simulate_with(uniform, pair13.get());
	Schedule per = simulate_per_node(uniform, { pair13, pair13 });
	ck_assert_same_schedule(one, per);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("gpu_links");
	TCase *parse = tcase_create("parse");
	tcase_add_test(parse, test_parse_reads_a_symmetric_matrix);
	tcase_add_test(parse, test_parse_errors_name_the_gpu_and_the_entry);
	tcase_add_test(parse, test_read_file_skips_comments_and_names_the_line);
	suite_add_tcase(s, parse);
	TCase *select = tcase_create("select_gpus");
	tcase_add_test(select, test_no_links_takes_the_lowest_free_slots);
	tcase_add_test(select, test_too_few_free_gives_nothing);
	tcase_add_test(select, test_dgx1_four_gpus_get_a_quad);
	tcase_add_test(select, test_dgx1_two_gpus_get_a_directly_linked_pair);
	tcase_add_test(select, test_two_pairs_keep_pairs_together);
	tcase_add_test(select, test_single_gpu_leaves_a_pair_intact);
	tcase_add_test(select, test_large_node_uses_the_greedy_pass);
	suite_add_tcase(s, select);
	TCase *sim = tcase_create("simulator");
	tcase_add_test(sim, test_simulator_places_jobs_on_linked_gpus);
	tcase_add_test(sim, test_simulator_uses_each_nodes_own_links);
	suite_add_tcase(s, sim);
	return run_suite(s);
}
