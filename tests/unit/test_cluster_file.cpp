// test_cluster_file.cpp - clusters whose nodes differ: the slurm.conf subset
// of `omru-sim --cluster-file` (doc/sim-formats.md) with its gres.conf Links
// lines, the N1xG1+N2xG2 spec, the GPU numbering of Cluster, and every
// policy running (and validating) on mixed 8- and 4-GPU nodes.
#include <map>
#include <set>

#include "model/cluster_file.hpp"
#include "sim/cluster_spec.hpp"
#include "sim_fixture.hpp"

using namespace omru;
using namespace omru_test;

// The error a bad cluster file gives, or "(no error)".
static std::string file_error(const char *text)
{
	try {
		parse_cluster_spec("cluster.conf", text);
	} catch (const InputError &e) {
		return e.what();
	}
	return "(no error)";
}

#define ck_assert_file_error(text, want)                                      \
	do {                                                                  \
		std::string got_ = file_error(text);                          \
		ck_assert_msg(got_ == (want), "got: %s", got_.c_str());       \
	} while (0)

START_TEST(test_node_lines_give_the_nodes_in_order)
{
	ClusterFile f = parse_cluster_file("cluster.conf",
					   "# four 4-GPU nodes, then an 8-GPU one\n"
					   "SlurmctldHost=ctl\n"
					   "NodeName=n[1-4] Gres=gpu:4 CPUs=32 RealMemory=256000\n"
					   "NodeName=n5 Gres=gpu:a100:8   # the big one\n"
					   "PartitionName=all Nodes=n[1-5] Default=YES\n");
	const Cluster &c = f.cluster;
	std::vector<std::string> names = { "n1", "n2", "n3", "n4", "n5" };
	ck_assert(f.node_names == names);
	ck_assert(f.links_lines.empty() && f.node_links.empty());
	ck_assert_int_eq(c.nodes, 5);
	ck_assert_int_eq(c.gpus_per_node, 8);
	ck_assert(!c.uniform());
	ck_assert_int_eq(c.total_gpus(), 24);
	ck_assert_int_eq(c.gpus_of(0), 4);
	ck_assert_int_eq(c.gpus_of(4), 8);
	ck_assert_int_eq(c.first_gpu(4), 16);
	ck_assert_int_eq(c.node_of(15), 3);
	ck_assert_int_eq(c.node_of(16), 4);
	ck_assert_int_eq(c.node_of(23), 4);
	// Fewest nodes: the largest first.
	ck_assert_int_eq(c.min_nodes(8), 1);
	ck_assert_int_eq(c.min_nodes(9), 2);
	ck_assert_int_eq(c.min_nodes(12), 2);
	ck_assert_int_eq(c.min_nodes(13), 3);
	ck_assert_int_eq(c.min_nodes(24), 5);
	ck_assert(format_cluster(c) == "4x4+1x8");
}
END_TEST

START_TEST(test_identical_nodes_give_the_plain_cluster)
{
	Cluster f = parse_cluster_file("c", "NodeName=gpu[01-04] Gres=gpu:tesla:4\n").cluster;
	Cluster p = parse_cluster("4x4").value();
	ck_assert(f.uniform());
	ck_assert_int_eq(f.nodes, p.nodes);
	ck_assert_int_eq(f.gpus_per_node, p.gpus_per_node);
	ck_assert(f.node_gpus.empty() && f.first_gpus.empty() && f.largest_gpus.empty());
	ck_assert(format_cluster(f) == "4x4");
	Cluster runs = parse_cluster("1x4+3x4").value();
	ck_assert(runs.uniform());
	ck_assert(format_cluster(runs) == "4x4");
}
END_TEST

START_TEST(test_defaults_gres_forms_and_other_lines)
{
	Cluster c = parse_cluster_file(
		"c",
		"nodename=DEFAULT gres=gpu:2 CPUs=8\n"
		"NodeName=a[01-02]\n"                                // 2 each
		"NodeName=b Gres=gpu:v100:2,gpu:t4:1,mps:100\n"      // 3
		"NodeName=c Gres=gpu:4(S:0-1)\n"                     // 4
		"NodeName=d Gres=gpu\n"                              // 1
		"NodeName=e Gres=gpu:k80\n"                          // 1
		"NodeName=a01 Name=gpu File=/dev/nvidia[0-1]\n"      // gres.conf, no Links:
		"NodeName=a02 AutoDetect=nvml\n"                     // ignored
		"NodeName=DEFAULT Gres=\n"
		"NodeName=login CPUs=4\n"                            // no GPUs: not simulated
		"\r\n   \n").cluster;
	ck_assert_int_eq(c.nodes, 6);
	std::vector<int> want = { 2, 2, 3, 4, 1, 1 };
	ck_assert(c.node_gpus == want);
	ck_assert_int_eq(c.gpus_per_node, 4);
}
END_TEST

START_TEST(test_hostlists_expand_like_slurm)
{
	std::vector<std::string> h = expand_hostlist("r[1-2]n[01-02],x,y[3,5-6]", 100);
	std::vector<std::string> want = { "r1n01", "r1n02", "r2n01", "r2n02",
					  "x", "y3", "y5", "y6" };
	ck_assert(h == want);
	ck_assert_int_eq(expand_hostlist("n[8-10]", 10).back().size(), 3); // n10
	ck_assert(expand_hostlist("n[008-010]", 10).front() == "n008");
	for (const char *bad : { "n[1-", "n1]", "n[4-1]", "n[a-b]", "a,,b", "n[]", "" }) {
		bool refused = false;
		try {
			expand_hostlist(bad, 100);
		} catch (const std::invalid_argument &) {
			refused = true;
		}
		ck_assert_msg(refused, "accepted '%s'", bad);
	}
	// A huge range is refused before anything is built.
	bool refused = false;
	try {
		expand_hostlist("r[1-100000]n[1-100000]", 65536);
	} catch (const std::invalid_argument &e) {
		refused = std::string(e.what()).find("more than 65536") != std::string::npos;
	}
	ck_assert(refused);
}
END_TEST

START_TEST(test_bad_files_name_the_line_and_column)
{
	ck_assert_file_error("NodeName=n[1-2] Gres=gpu:4\nNodeName=n2 Gres=gpu:4\n",
			 "cluster.conf:2:1: node n2 is named again (first on line 1)");
	ck_assert_file_error("NodeName=n1 Gres=gpu:65\n",
			 "cluster.conf:1:13: Gres: more than 64 GPUs on a node");
	ck_assert_file_error("NodeName=n1 Gres=gpu:a:b:4\n",
			 "cluster.conf:1:13: Gres: 'gpu:a:b:4': expected gpu[:TYPE]:COUNT");
	ck_assert_file_error("NodeName=n[3-1] Gres=gpu:4\n",
			 "cluster.conf:1:1: NodeName: '[3-1]': expected numbers and ranges "
			 "LOW-HIGH (LOW <= HIGH), comma-separated");
	ck_assert_file_error("NodeName=n1 gpu:4\n",
			 "cluster.conf:1:13: 'gpu:4': expected KEY=VALUE");
	ck_assert_file_error("PartitionName=p Nodes=n1\nNodeName=login\n",
			 "cluster.conf: no node with GPUs (expected lines such as "
			 "'NodeName=n[1-4] Gres=gpu:4')");
	ck_assert_file_error("NodeName=n[1-40000] Gres=gpu:1\n"
				    "NodeName=m[1-40000] Gres=gpu:1\n",
			 "cluster.conf:2:1: more than 65536 nodes in the file");
	bool unreadable = false;
	try {
		read_cluster_file("/nonexistent/cluster.conf");
	} catch (const InputError &e) {
		unreadable = std::string(e.what()).find("cannot read") != std::string::npos;
	}
	ck_assert(unreadable);
}
END_TEST

// Two 4-GPU nodes with NVLink pairs 0-2 (NV2) and 1-3 (NV1), written once
// for both (a hostlist); a 2-GPU node whose gres.conf lines come before its
// node line; a node with gres.conf lines but no Links.
static const char kLinksFile[] =
	"NodeName=a[1-2] Gres=gpu:t4:4\n"
	"NodeName=c Gres=gpu:4\n"
	"# gres.conf\n"
	"NodeName=b Name=gpu File=/dev/nvidia1 Links=-1,4\n"
	"NodeName=b Name=gpu File=/dev/nvidia[0] Links=4,-1  # a range of one\n"
	"NodeName=a[1-2] Name=gpu Type=t4 File=/dev/nvidia0 Links=-1,0,2,0\n"
	"NodeName=a[1-2] Name=gpu Type=t4 File=/dev/nvidia1 Links=0,-1,0,1\n"
	"nodename=a[1-2] name=gpu type=t4 file=/dev/nvidia2 links=2,0,-1,0\n"
	"NodeName=a[1-2] Name=gpu Type=t4 File=/dev/nvidia3 Links=0,1,0,-1 Cores=0-7\n"
	"NodeName=c Name=gpu File=/dev/nvidia[0-3]\n"              // no Links: none
	"NodeName=c Name=mps Count=400 File=/dev/nvidia0 Links=-1\n" // not a GPU's
	"NodeName=b Gres=gpu:2\n";

START_TEST(test_links_lines_give_each_nodes_matrix)
{
	ClusterFile f = parse_cluster_file("cluster.conf", kLinksFile);
	std::vector<int> gpus = { 4, 4, 4, 2 };
	ck_assert(f.cluster.node_gpus == gpus);
	std::vector<std::string> names = { "a1", "a2", "c", "b" };
	ck_assert(f.node_names == names);
	// The lines in file order, each node's in slot order.
	ck_assert_int_eq(f.links_lines.size(), 6);
	ck_assert_str_eq(f.links_lines[2].value.c_str(), "-1,0,2,0");
	ck_assert_int_eq(f.links_lines[2].line, 6);
	ck_assert_int_eq(f.links_lines[2].column, 52);
	ck_assert_int_eq(f.node_links.size(), 4);
	std::vector<int> a = { 2, 3, 4, 5 }, b = { 0, 1 };
	ck_assert(f.node_links[0] == a && f.node_links[1] == a);
	ck_assert(f.node_links[2].empty());
	ck_assert(f.node_links[3] == b);

	ClusterSpec spec = parse_cluster_spec("cluster.conf", kLinksFile);
	ck_assert(spec.has_links());
	ck_assert_int_eq(spec.node_links.size(), 4);
	// One matrix for the hostlist's two nodes.
	ck_assert_ptr_nonnull(spec.node_links[0].get());
	ck_assert_ptr_eq(spec.node_links[0].get(), spec.node_links[1].get());
	const GpuLinks &g = *spec.node_links[0];
	ck_assert_int_eq(g.size(), 4);
	ck_assert_int_eq(g.strength(0, 2), 2);
	ck_assert_int_eq(g.strength(3, 1), 1);
	ck_assert_int_eq(g.strength(0, 1), 0);
	ck_assert_int_eq(g.strength(2, 2), -1);
	ck_assert_ptr_null(spec.node_links[2].get());
	ck_assert_int_eq(spec.node_links[3]->size(), 2);
	ck_assert_int_eq(spec.node_links[3]->strength(0, 1), 4);

	// No Links lines: no links at all, whatever other gres.conf lines say.
	ClusterSpec none = parse_cluster_spec(
		"c", "NodeName=n[1-2] Gres=gpu:2\n"
		     "NodeName=n[1-2] Name=gpu File=/dev/nvidia[0-1]\n");
	ck_assert(!none.has_links());
	ck_assert(none.cluster.uniform());
}
END_TEST

START_TEST(test_bad_links_lines_name_the_node_and_line)
{
	// Fewer Links lines than GPUs: the last one; more: the first extra.
	ck_assert_file_error("NodeName=n[1-2] Gres=gpu:2\n"
			     "NodeName=n[1-2] Name=gpu File=/dev/nvidia0 Links=-1,1\n",
			     "cluster.conf:2:44: node n1 (2 GPUs, line 1) has 1 Links "
			     "line: expected one per GPU, slot 0 first");
	ck_assert_file_error("NodeName=n[1-2] Gres=gpu:1\n"
			     "NodeName=n[1-2] Name=gpu File=/dev/nvidia0 Links=-1\n"
			     "NodeName=n2 Name=gpu File=/dev/nvidia1 Links=-1\n",
			     "cluster.conf:3:40: node n2 (1 GPU, line 1) has 2 Links "
			     "lines: expected one per GPU, slot 0 first");
	// Values: GpuLinks::parse_gres_links's message, at the GPU's line.
	ck_assert_file_error("NodeName=n[1-2] Gres=gpu:2\n"
			     "NodeName=n[1-2] Name=gpu File=/dev/nvidia0 Links=-1,2\n"
			     "NodeName=n[1-2] Name=gpu File=/dev/nvidia1 Links=x,-1\n",
			     "cluster.conf:3:44: node n1, GPU 1, entry 0: 'x' is not an "
			     "integer");
	ck_assert_file_error("NodeName=n1 Gres=gpu:2\n"
			     "NodeName=n1 Name=gpu File=/dev/nvidia0 Links=-1,2\n"
			     "NodeName=n1 Name=gpu File=/dev/nvidia1 Links=1,-1\n",
			     "cluster.conf:3:40: node n1, GPU 1, entry 0: '1' differs from "
			     "GPU 0, entry 1: '2' (links must be symmetric)");
	ck_assert_file_error("NodeName=n1 Gres=gpu:2\n"
			     "NodeName=n1 Name=gpu File=/dev/nvidia0 Links=-1\n"
			     "NodeName=n1 Name=gpu File=/dev/nvidia1 Links=0,-1\n",
			     "cluster.conf:2:40: node n1, GPU 0: Links '-1' has 1 entries, "
			     "expected 2 (one per GPU of the node)");
	// Only the node whose lines are bad is named, after good ones.
	ck_assert_file_error("NodeName=n1 Gres=gpu:1\nNodeName=m1 Gres=gpu:1\n"
			     "NodeName=n1 Name=gpu File=/dev/nvidia0 Links=-1\n"
			     "NodeName=m1 Name=gpu File=/dev/nvidia0 Links=0\n",
			     "cluster.conf:4:40: node m1, GPU 0, entry 0: '0' must be -1 "
			     "(the GPU itself)");
	// One GPU per Links line, as Slurm requires.
	ck_assert_file_error("NodeName=n1 Gres=gpu:2\n"
			     "NodeName=n1 Name=gpu File=/dev/nvidia[0-1] Links=-1,1\n",
			     "cluster.conf:2:22: File: '/dev/nvidia[0-1]' names 2 devices; "
			     "a line with Links= is for one GPU (Slurm: one File per "
			     "Links line)");
	ck_assert_file_error("NodeName=n1 Gres=gpu:1\nNodeName=n1 Name=gpu Links=-1\n",
			     "cluster.conf:2:22: Links= without File=: a Links line is "
			     "one GPU's, named by its device (File=/dev/nvidiaN), as "
			     "Slurm requires");
	ck_assert_file_error("NodeName=n1 Gres=gpu:1\n"
			     "NodeName=n1 File=/dev/nvidia0 Links=-1\n",
			     "cluster.conf:2:31: Links= without Name=gpu: expected "
			     "NodeName=... Name=gpu File=/dev/nvidiaN Links=...");
	ck_assert_file_error("NodeName=n1 Gres=gpu:1\n"
			     "Name=gpu File=/dev/nvidia0 Links=-1\n",
			     "cluster.conf:2:28: Links= on a line without NodeName=: "
			     "expected NodeName=... Name=gpu File=/dev/nvidiaN Links=...");
	ck_assert_file_error("NodeName=n1 Gres=gpu:1\n"
			     "NodeName=DEFAULT Name=gpu File=/dev/nvidia0 Links=-1\n",
			     "cluster.conf:2:1: NodeName=DEFAULT: a line with Links= "
			     "names its nodes");
	// Links for a node the file does not simulate.
	ck_assert_file_error("NodeName=n1 Gres=gpu:1\nNodeName=login CPUs=4\n"
			     "NodeName=n1,login Name=gpu File=/dev/nvidia0 Links=-1\n",
			     "cluster.conf:3:46: node login has Links lines but no GPUs "
			     "in the file (expected a line NodeName=login Gres=gpu:COUNT)");
	ck_assert_file_error("NodeName=n1 Gres=gpu:1\n"
			     "NodeName=n[1-9] Name=gpu File=/dev/nvidia0 Links=-1\n",
			     "cluster.conf:2:44: node n2 has Links lines but no GPUs in "
			     "the file (expected a line NodeName=n2 Gres=gpu:COUNT)");
	ck_assert_file_error("NodeName=n1 Gres=gpu:1\n"
			     "NodeName=n[1-2 Name=gpu File=/dev/nvidia0 Links=-1\n",
			     "cluster.conf:2:1: NodeName: 'n[1-2': unbalanced '[' and ']'");
}
END_TEST

START_TEST(test_cluster_spec_with_runs)
{
	auto c = parse_cluster("2x8+4x4");
	ck_assert(c.ok());
	ck_assert_int_eq(c.value().nodes, 6);
	ck_assert_int_eq(c.value().total_gpus(), 32);
	ck_assert_int_eq(c.value().gpus_of(1), 8);
	ck_assert_int_eq(c.value().gpus_of(2), 4);
	ck_assert_int_eq(c.value().min_nodes(17), 3);
	ck_assert(format_cluster(c.value()) == "2x8+4x4");
	for (const char *bad : { "2x8+", "+2x8", "2x8++1x4", "2x8+0x4", "2x8+1x65",
				 "40000x1+30000x1" }) {
		auto b = parse_cluster(bad);
		ck_assert_msg(!b.ok(), "accepted '%s'", bad);
		ck_assert(b.error().find("expected NxG") != std::string::npos);
	}
}
END_TEST

static const char kProfiles[] =
	"model,gpus,epoch_s,nodes\n"
	"m,1,100,\nm,2,52,\nm,4,27,\nm,8,15,\nm,8,18,2\nm,12,12,\nm,16,10,\n"
	"r,8,40,1\n";
// Moldable m jobs (1..16) and rigid 8-GPU r jobs that only run on one node.
static const char kWorkload[] =
	"job_id,submit_s,model,epochs,gpus,gpus_min,gpus_max\n"
	"a,0,m,6,4,1,16\nb,0,r,2,8,8,8\nc,0,m,3,2,1,16\nd,5,r,1,8,8,8\n"
	"e,10,m,4,4,1,16\nf,10,m,2,1,1,16\ng,20,r,1,8,8,8\nh,30,m,5,8,1,16\n";

static Inputs mixed_inputs()
{
	Inputs in = make_inputs("1x4", kProfiles, kWorkload);
	in.cluster = parse_cluster_file("cluster.conf",
					"NodeName=small[1-2] Gres=gpu:4\n"
					"NodeName=big Gres=gpu:8\n")
			     .cluster;
	return in;
}

START_TEST(test_every_policy_validates_on_mixed_nodes)
{
	// Online (the workload's own submit times) and offline (all at 0,
	// which omru-ga requires).
	for (bool offline : { false, true }) {
		Inputs in = mixed_inputs();
		if (offline)
			for (Job &j : in.workload.jobs)
				j.submit_s = 0;
		for (const PolicyInfo &p : policy_registry()) {
			PolicyOptions o;
			o.ga_iterations = 20;
			if (!offline &&
			    !p.make(o)->refuse(in.workload, in.profiles, in.cluster).empty()) {
				ck_assert_str_eq(p.name, "omru-ga");
				continue;
			}
			Schedule s = run_policy(in, p.name, 30, o); // validates
			for (const Segment &g : s) {
				// GPU ids: node 2 has 8..15, nodes 0 and 1 four each.
				for (size_t k = 0; k < g.gpu_ids.size(); k++)
					ck_assert_int_eq(in.cluster.node_of(g.gpu_ids[k]),
							 g.nodes[k]);
				std::map<int, int> per_node;
				for (int n : g.nodes)
					per_node[n]++;
				for (auto [n, count] : per_node)
					ck_assert_int_le(count, in.cluster.gpus_of(n));
			}
		}
	}
}
END_TEST

START_TEST(test_omru_on_mixed_nodes)
{
	Inputs in = mixed_inputs();
	for (bool resize : { true, false }) {
		PolicyOptions o;
		o.omru_resize = resize;
		Schedule s = run_policy(in, "omru", 30, o);
		ck_assert_same_schedule(s, run_policy(in, "omru", 30, o));
		for (const Segment &g : s) {
			// The rigid 8-GPU jobs have a one-node row only: the
			// 8-GPU node.
			if (in.profiles.model_name(in.workload.jobs[g.job].model) == "r")
				ck_assert(std::set<int>(g.nodes.begin(), g.nodes.end()) ==
					  std::set<int>{ 2 });
			if (!resize)
				ck_assert_int_eq(segments_of(in, s, in.workload.jobs[g.job].id.c_str()).size(), 1);
		}
	}
}
END_TEST

START_TEST(test_validator_checks_each_nodes_own_capacity)
{
	Inputs in = mixed_inputs();
	Schedule s;
	Segment g;
	g.job = 0;            // a: 6 epochs of m
	g.start_s = 0;
	g.end_s = 6 * 52;
	g.epochs = 6;
	g.nodes = { 0, 0 };   // 2 GPUs on a 4-GPU node: fine
	g.line = 2;
	s.push_back(g);
	g.nodes = { 1, 1, 1, 1, 1, 2, 2, 2 }; // job b: 5 GPUs on node 1
	g.job = 1;
	g.end_s = 100;
	g.epochs = 2;
	g.line = 3;
	s.push_back(g);
	auto v = validate_schedule(in.cluster, in.profiles, in.workload, s, 0);
	bool found = false;
	for (const Violation &x : v)
		found |= x.message.find("node 1 runs 5 GPUs at 0 s; it has 4") != std::string::npos;
	ck_assert_msg(found, "%s", v.empty() ? "no violation" : v.front().message.c_str());
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cluster_file");
	TCase *tc = tcase_create("cluster_file");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_node_lines_give_the_nodes_in_order);
	tcase_add_test(tc, test_identical_nodes_give_the_plain_cluster);
	tcase_add_test(tc, test_defaults_gres_forms_and_other_lines);
	tcase_add_test(tc, test_hostlists_expand_like_slurm);
	tcase_add_test(tc, test_bad_files_name_the_line_and_column);
	tcase_add_test(tc, test_links_lines_give_each_nodes_matrix);
	tcase_add_test(tc, test_bad_links_lines_name_the_node_and_line);
	tcase_add_test(tc, test_cluster_spec_with_runs);
	tcase_add_test(tc, test_every_policy_validates_on_mixed_nodes);
	tcase_add_test(tc, test_omru_on_mixed_nodes);
	tcase_add_test(tc, test_validator_checks_each_nodes_own_capacity);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
