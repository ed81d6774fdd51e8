// test_partitioner.cpp - the pipeline-hybrid partitioner (libomru/pipeline/):
// the layer profile format and its fitted times, the job topology's chain
// order and bandwidths, hand-worked splits (data parallelism kept for a small
// model on even links, a pipeline across a slow network, the cheapest
// recomputation that fits, refusal when nothing fits), and the dynamic
// program against a brute force over every split of small random models.
#include "check_cxx.hpp"

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "omru/omru_pipeline.h"
#include "pipeline/partitioner.hpp"
#include "pipeline/pipeline_gain.hpp"

using namespace omru;
using namespace omru::pipeline;

static bool near(double a, double b)
{
	return std::fabs(a - b) <= 1e-9 * std::max(1.0, std::fabs(b));
}

#define ck_near(X, Y)                                                         \
	ck_assert_msg(near((X), (Y)), "%s == %.12g, expected %.12g", #X,      \
		      (double)(X), (double)(Y))

static const char *kHeader = "layer,batch,fwd_ms,bwd_ms,out_bytes,stash_bytes,param_bytes\n";

static LayerProfile profile_of(const std::string &rows)
{
	Parsed<LayerProfile> p = parse_layer_profile("t.csv", kHeader + rows);
	ck_assert_msg(p.ok(), "%s", p.error().c_str());
	return p.value();
}

static std::string profile_error(const std::string &text)
{
	Parsed<LayerProfile> p = parse_layer_profile("t.csv", text);
	ck_assert_msg(!p.ok(), "parsed: %s", text.c_str());
	return p.error();
}

// ------------------------------------------------------------- profile ----

START_TEST(test_two_batch_sizes_give_a_fixed_and_a_per_sample_time)
{
	LayerProfile p = profile_of("conv,8,3,6,800,1600,4096\n"
				    "conv,16,5,10,1600,3200,4096\n");
	ck_assert_int_eq(p.layers.size(), 1);
	const LayerCost &c = p.layers[0];
	ck_assert_string_eq(c.name, "conv");
	ck_near(c.fwd.fixed_s, 0.001);
	ck_near(c.fwd.per_sample_s, 0.00025);
	ck_near(c.bwd.fixed_s, 0.002);
	ck_near(c.bwd.per_sample_s, 0.0005);
	ck_near(c.out_bytes_per_sample, 100);
	ck_near(c.stash_bytes_per_sample, 200);
	ck_near(c.param_bytes, 4096);
}
END_TEST

START_TEST(test_one_batch_size_gives_a_proportional_time_and_order_is_kept)
{
	LayerProfile p = profile_of("b,4,2,4,40,80,0\n# a comment\na,2,1,3,0,0,8\n");
	ck_assert_int_eq(p.layers.size(), 2);
	ck_assert_string_eq(p.layers[0].name, "b");
	ck_assert_string_eq(p.layers[1].name, "a");
	ck_near(p.layers[0].fwd.fixed_s, 0);
	ck_near(p.layers[0].fwd.per_sample_s, 0.0005);
	ck_near(p.layers[1].bwd.per_sample_s, 0.0015);
}
END_TEST

START_TEST(test_a_negative_fixed_part_falls_back_to_proportional)
{
	// 1 ms at 8, 4 ms at 16: the line would cross zero at 6 samples.
	LayerProfile p = profile_of("x,8,1,1,0,0,0\nx,16,4,4,0,0,0\n");
	ck_near(p.layers[0].fwd.fixed_s, 0);
	ck_near(p.layers[0].fwd.per_sample_s, 5.0 / 24 / 1000);
}
END_TEST

START_TEST(test_bad_profiles_name_the_place)
{
	ck_assert_string_eq(profile_error("layer,batch,fwd_ms\nx,1,1\n"),
			    "t.csv:1:1: header has no column 'bwd_ms' (header: layer,batch,fwd_ms)");
	ck_assert_string_eq(profile_error(std::string(kHeader) + "x,0,1,1,0,0,0\n"),
			    "t.csv:2:3: column 'batch': '0' is not an integer in 1..1048576");
	ck_assert_string_eq(profile_error(std::string(kHeader) + "x,2,1,1,0,0,0\nx,2,1,1,0,0,0\n"),
			    "t.csv:3:3: column 'batch': layer 'x' batch 2 twice");
	ck_assert_string_eq(profile_error(std::string(kHeader) +
					  "x,2,1,1,0,0,0\ny,2,1,1,0,0,0\nx,4,1,1,0,0,0\n"),
			    "t.csv:4:1: column 'layer': layer 'x' again after other layers (a layer's rows "
			    "must be together)");
	ck_assert_string_eq(profile_error(std::string(kHeader) + "x,2,1,1,0,0,1\nx,4,1,1,0,0,2\n"),
			    "t.csv:3:13: column 'param_bytes': layer 'x' has other param_bytes on line 2");
	ck_assert_string_eq(profile_error(std::string(kHeader) + "x,2,0,0,0,0,1\n"),
			    "t.csv:2:1: layer 'x' takes no time");
	ck_assert_string_eq(profile_error(kHeader), "t.csv: no layer");
	ck_assert_string_eq(profile_error(std::string(kHeader) + "x,2,-1,0,0,0,1\n"),
			    "t.csv:2:5: column 'fwd_ms': '-1' is not a number >= 0");
}
END_TEST

// ------------------------------------------------------------ topology ----

static GpuLinks links_of(const std::vector<std::string> &lines)
{
	Parsed<GpuLinks> l = GpuLinks::parse_gres_links(lines);
	ck_assert_msg(l.ok(), "%s", l.error().c_str());
	return l.value();
}

// NVLink pairs 0-2 and 1-3 (two links each), PCIe otherwise.
static GpuLinks crossed_pairs()
{
	return links_of({"-1,0,2,0", "0,-1,0,2", "2,0,-1,0", "0,2,0,-1"});
}

START_TEST(test_chain_order_keeps_nvlink_partners_together)
{
	GpuLinks links = crossed_pairs();
	Parsed<JobTopology> t = JobTopology::uniform(&links, 2, 4, LinkSpeeds{});
	ck_assert(t.ok());
	const int want[] = {0, 2, 1, 3, 0, 2, 1, 3};
	for (int i = 0; i < 8; i++) {
		ck_assert_int_eq(t.value().gpu(i).slot, want[i]);
		ck_assert_int_eq(t.value().gpu(i).node, i / 4);
	}
	ck_near(t.value().bandwidth(0, 1), 50e9);   // two NVLinks
	ck_near(t.value().bandwidth(1, 2), 12e9);   // PCIe
	ck_near(t.value().bandwidth(3, 4), 12.5e9); // the network
	ck_near(t.value().latency_s(), 20e-6);
}
END_TEST

START_TEST(test_a_partial_allocation_and_no_links)
{
	GpuLinks links = crossed_pairs();
	Parsed<JobTopology> t = JobTopology::build(&links, {{3, 1}, {2}}, LinkSpeeds{});
	ck_assert(t.ok());
	ck_assert_int_eq(t.value().size(), 3);
	ck_assert_int_eq(t.value().gpu(0).slot, 1);
	ck_assert_int_eq(t.value().gpu(1).slot, 3);
	ck_assert_int_eq(t.value().gpu(2).node, 1);
	ck_near(t.value().bandwidth(0, 1), 50e9);
	Parsed<JobTopology> none = JobTopology::uniform(nullptr, 1, 2, LinkSpeeds{});
	ck_assert(none.ok());
	ck_near(none.value().bandwidth(0, 1), 12e9);
}
END_TEST

// Where select/omru puts a job on idle nodes: 2 processes on the crossed
// pairs get an NVLinked pair (0, 2), not slots 0 and 1 over PCIe.
START_TEST(test_idle_nodes_give_the_best_linked_gpus)
{
	GpuLinks links = crossed_pairs();
	Parsed<JobTopology> t = JobTopology::on_idle_nodes(&links, {2, 1}, LinkSpeeds{});
	ck_assert(t.ok());
	ck_assert_int_eq(t.value().size(), 3);
	ck_assert_int_eq(t.value().gpu(0).slot, 0);
	ck_assert_int_eq(t.value().gpu(1).slot, 2);
	ck_assert_int_eq(t.value().gpu(2).node, 1);
	ck_near(t.value().bandwidth(0, 1), 50e9);
	Parsed<JobTopology> none = JobTopology::on_idle_nodes(nullptr, {3}, LinkSpeeds{});
	ck_assert(none.ok());
	ck_assert_int_eq(none.value().gpu(2).slot, 2);
	std::string e = JobTopology::on_idle_nodes(&links, {5}, LinkSpeeds{}).error();
	ck_assert_string_eq(e, "5 processes on a node, 4 GPUs in its links matrix");
	e = JobTopology::on_idle_nodes(nullptr, {1, 0}, LinkSpeeds{}).error();
	ck_assert_string_eq(e, "a node with 0 processes");
}
END_TEST

START_TEST(test_bad_topologies_say_why)
{
	GpuLinks links = crossed_pairs();
	std::string e = JobTopology::build(&links, {{0, 4}}, LinkSpeeds{}).error();
	ck_assert_string_eq(e, "node 0: GPU slot 4 is not in the links matrix (4 GPUs)");
	e = JobTopology::build(&links, {{1}, {2, 2}}, LinkSpeeds{}).error();
	ck_assert_string_eq(e, "node 1: GPU slot 2 twice");
	e = JobTopology::build(&links, {{}}, LinkSpeeds{}).error();
	ck_assert_string_eq(e, "the job has no GPU");
	LinkSpeeds slow;
	slow.network_gbps = 0;
	e = JobTopology::uniform(&links, 1, 4, slow).error();
	ck_assert_string_eq(e, "the network speed must be a number > 0 (GB/s)");
}
END_TEST

// ----------------------------------------------------------- partition ----

static LinkSpeeds no_latency(double network_gbps = 12.5)
{
	LinkSpeeds s;
	s.latency_s = 0;
	s.network_gbps = network_gbps;
	return s;
}

static PartitionResult partition_ok(const LayerProfile &p, const JobTopology &t,
				    const PartitionSettings &s)
{
	Parsed<PartitionResult> r = partition(p, t, s);
	ck_assert_msg(r.ok(), "%s", r.error().c_str());
	return r.value();
}

// Two layers of 1 ms forward and 2 ms backward per sample, 1 MB of
// parameters each, on two GPUs joined by PCIe (12 GB/s), a batch of 2.
// Data parallel, M = 2: each GPU runs one sample through both layers,
// 6 ms, then allreduces 2 MB: 2 x 1/2 x 2e6 / 12e9 = 0.1667 ms.
// Two stages, M = 2: 3 + 3 + (2 - 1) x 3 = 9 ms.  Data parallelism wins.
START_TEST(test_a_small_model_on_even_links_stays_data_parallel)
{
	LayerProfile p = profile_of("a,1,1,2,1000,0,1000000\nb,1,1,2,1000,0,1000000\n");
	Parsed<JobTopology> t = JobTopology::uniform(nullptr, 1, 2, no_latency());
	PartitionSettings s;
	s.global_batch = 2;
	PartitionResult r = partition_ok(p, t.value(), s);
	ck_assert(r.best.is_data_parallel());
	ck_assert_int_eq(r.best.micro_batches, 2);
	ck_assert_int_eq(r.best.stages[0].gpus.size(), 2);
	ck_near(r.best.iteration_s, 0.006 + 2e6 / 12e9);
	ck_near(r.data_parallel.iteration_s, r.best.iteration_s);
}
END_TEST

// The same layers with 0.5 GB of parameters each, on two nodes joined by
// 1 GB/s; 1 MB of activations per sample between them.  Data parallel
// pays a 1 s allreduce.  Two stages of one GPU, M = 2 (one sample each):
// 3 ms per stage, 2 x 1 MB / 1 GB/s = 2 ms on the link per micro-batch:
// 3 + 3 + 2 + max(1 x 3, 1 x 2) = 11 ms; bottleneck 2 x 3 = 6 ms.
START_TEST(test_a_large_model_across_a_slow_network_is_pipelined)
{
	LayerProfile p = profile_of("a,1,1,2,1000000,0,500000000\n"
				    "b,1,1,2,1000000,0,500000000\n");
	Parsed<JobTopology> t = JobTopology::uniform(nullptr, 2, 1, no_latency(1));
	PartitionSettings s;
	s.global_batch = 2;
	PartitionResult r = partition_ok(p, t.value(), s);
	ck_assert_int_eq(r.best.stages.size(), 2);
	ck_assert_int_eq(r.best.micro_batches, 2);
	ck_assert_int_eq(r.best.stages[0].end_layer, 1);
	ck_assert_int_eq(r.best.stages[1].gpus[0], 1);
	ck_near(r.best.stages[0].send_s, 0.002);
	ck_near(r.best.iteration_s, 0.011);
	ck_near(r.best.bottleneck_s, 0.006);
	// The data-parallel plan, for comparison: 6 ms + 2 x 1/2 x 1 GB / 1 GB/s.
	ck_near(r.data_parallel.iteration_s, 1.006);
}
END_TEST

// One GPU, one sample, four layers of 1, 2, 3 and 4 ms forward keeping 100
// bytes each, 250 bytes of memory: two recomputed layers leave 200 + 100
// (one layer rebuilt) bytes, three leave 100 + 100.  The cheapest three
// are the first three: +6 ms.
START_TEST(test_recomputation_takes_the_cheapest_layers_that_make_it_fit)
{
	LayerProfile p = profile_of("a,1,1,0,0,100,0\nb,1,2,0,0,100,0\n"
				    "c,1,3,0,0,100,0\nd,1,4,0,0,100,0\n");
	Parsed<JobTopology> t = JobTopology::uniform(nullptr, 1, 1, no_latency());
	PartitionSettings s;
	s.global_batch = 1;
	s.mem_limit_bytes = 250;
	PartitionResult r = partition_ok(p, t.value(), s);
	const StagePlan &st = r.best.stages[0];
	ck_assert_int_eq(st.fit.recompute.size(), 3);
	ck_assert_int_eq(st.fit.recompute[2], 2);
	ck_near(st.fit.mem_bytes, 200);
	ck_near(r.best.iteration_s, 0.016);
	// Without a limit nothing recomputes.
	s.mem_limit_bytes = 0;
	r = partition_ok(p, t.value(), s);
	ck_assert(r.best.stages[0].fit.recompute.empty());
	ck_near(r.best.iteration_s, 0.010);
}
END_TEST

START_TEST(test_nothing_fits_is_refused_with_what_it_needs)
{
	LayerProfile p = profile_of("a,1,1,0,0,100,0\nb,1,2,0,0,1000,0\n");
	Parsed<JobTopology> t = JobTopology::uniform(nullptr, 1, 1, no_latency());
	PartitionSettings s;
	s.global_batch = 1;
	s.mem_limit_bytes = 99;
	Parsed<PartitionResult> r = partition(p, t.value(), s);
	ck_assert(!r.ok());
	ck_assert_string_eq(r.error(), "no split of the model onto 1 GPUs fits 99 bytes per GPU, "
				       "even recomputing every layer it can: layer 'b' alone "
				       "needs 1e+03 bytes");
}
END_TEST

START_TEST(test_bad_settings_are_refused)
{
	LayerProfile p = profile_of("a,1,1,0,0,100,0\n");
	Parsed<JobTopology> t = JobTopology::uniform(nullptr, 1, 1, no_latency());
	PartitionSettings s;
	ck_assert_string_eq(partition(p, t.value(), s).error(),
			    "the global batch must be at least 1 sample");
	s.global_batch = 4;
	s.param_copies = 0.5;
	ck_assert_string_eq(partition(p, t.value(), s).error(),
			    "the parameter copies must be a number >= 1");
}
END_TEST

// Four GPUs on two nodes, each node an NVLink pair (4 links, 100 GB/s), a
// 12.5 GB/s network; 8 layers of 0.8 + 0.1 m ms forward and 1.6 + 0.2 m ms
// backward for m samples, 200 MB of parameters each, 100 KB of output per
// sample; a batch of 128.  Data parallel (M = 4): 96 ms of compute and a
// ring allreduce of 1.6 GB across the network, 2 x 3/4 x 1.6 GB / 12.5
// GB/s = 192 ms: 288 ms.  The winner: two stages of four layers, each on
// one node's pair, M = 8 (16 samples, 4 per replica): 28.8 ms per
// micro-batch, 0.296 ms on the network each way and back; 2 x 28.8 +
// 0.296 + 3 x 28.8 = 144.296 ms, then the first stage's allreduce over
// NVLink, 2 x 20 us + 0.8 GB / 100 GB/s = 8.04 ms: 152.336 ms.  (Four
// stages of one GPU lose to the layers' fixed time per micro-batch.)
START_TEST(test_uneven_links_put_each_stage_on_one_nvlink_pair)
{
	std::string rows;
	for (int l = 0; l < 8; l++)
		rows += "l" + std::to_string(l) + ",32,4,8,3200000,6400000,200000000\n" +
			"l" + std::to_string(l) + ",8,1.6,3.2,800000,1600000,200000000\n";
	LayerProfile p = profile_of(rows);
	GpuLinks pairs = links_of({"-1,4", "4,-1"});
	Parsed<JobTopology> t = JobTopology::uniform(&pairs, 2, 2, LinkSpeeds{});
	PartitionSettings s;
	s.global_batch = 128;
	PartitionResult r = partition_ok(p, t.value(), s);
	ck_assert_int_eq(r.best.stages.size(), 2);
	ck_assert_int_eq(r.best.micro_batches, 8);
	for (const StagePlan &st : r.best.stages) {
		ck_assert_int_eq(st.gpus.size(), 2);
		ck_assert_int_eq(t.value().gpu(st.gpus[0]).node, t.value().gpu(st.gpus[1]).node);
	}
	ck_assert_int_eq(r.best.stages[0].end_layer, 4);
	ck_near(r.best.iteration_s, 0.152336);
	ck_near(r.data_parallel.iteration_s, 0.096 + 2 * 20e-6 * 3 + 0.192);
}
END_TEST

// Two stages of one layer on two GPUs, 4 micro-batches of one sample, 100
// bytes kept per sample: under 1F1B the first stage holds 2 micro-batches
// (the stages from it on), the last 1; under GPipe each holds all 4.  The
// time is the same.
START_TEST(test_gpipe_holds_every_micro_batch_and_1f1b_a_window)
{
	LayerProfile p = profile_of("a,1,1,2,10,100,0\nb,1,1,2,10,100,0\n");
	Parsed<JobTopology> t = JobTopology::uniform(nullptr, 1, 2, no_latency());
	PartitionSettings s;
	s.global_batch = 4;
	std::vector<StageShape> two = {StageShape{1, 1}, StageShape{2, 1}};
	StageCosts one_f(p, t.value(), s, 4);
	Parsed<PipelinePlan> a = evaluate(one_f, two);
	ck_assert(a.ok());
	ck_near(a.value().stages[0].fit.mem_bytes, 200);
	ck_near(a.value().stages[1].fit.mem_bytes, 100);
	s.schedule = Schedule::GPipe;
	StageCosts gpipe(p, t.value(), s, 4);
	Parsed<PipelinePlan> b = evaluate(gpipe, two);
	ck_assert(b.ok());
	ck_near(b.value().stages[0].fit.mem_bytes, 400);
	ck_near(b.value().stages[1].fit.mem_bytes, 400);
	ck_near(b.value().iteration_s, a.value().iteration_s);
}
END_TEST

START_TEST(test_stage_shapes_read_the_trainers_form)
{
	Parsed<std::vector<StageShape>> s = parse_stage_shapes("2:1,4:2");
	ck_assert(s.ok());
	ck_assert_int_eq(s.value().size(), 2);
	ck_assert_int_eq(s.value()[1].end_layer, 4);
	ck_assert_int_eq(s.value()[1].replicas, 2);
	ck_assert_string_eq(parse_stage_shapes("2:1,4").error(),
			    "'4' is not END:REPLICAS (whole numbers >= 1)");
	ck_assert_string_eq(parse_stage_shapes("2:0").error(),
			    "'2:0' is not END:REPLICAS (whole numbers >= 1)");
	ck_assert_string_eq(parse_stage_shapes("").error(), "no stage");
}
END_TEST

// ---------------------------------------------------------------- C API ----

START_TEST(test_the_c_api_gives_the_json_and_says_why_not)
{
	std::string csv = std::string(kHeader) + "a,1,1,2,1000,0,1000000\nb,1,1,2,1000,0,1000000\n";
	omru_partition_request_t req = {};
	req.layers_csv = csv.c_str();
	req.layers_len = csv.size();
	req.nodes = 1;
	req.gpus_per_node = 2;
	req.global_batch = 2;
	req.latency_s = 0;
	char out[4096], err[256];
	ck_assert_int_eq(omru_partition_json(&req, out, sizeof(out), err, sizeof(err)), OMRU_OK);
	std::string json = out;
	ck_assert_msg(json.rfind("{\"best\": {\"iteration_s\": 0.006167, ", 0) == 0, "%s", out);
	ck_assert_msg(json.find("\"speedup\": 1.0}") != std::string::npos, "%s", out);
	ck_assert_int_eq(omru_partition_json(&req, out, 16, err, sizeof(err)), OMRU_EINVAL);
	ck_assert_msg(std::string(err).rfind("the plan needs ", 0) == 0, "%s", err);
	req.links = "-1,1\n1\n";
	ck_assert_int_eq(omru_partition_json(&req, out, sizeof(out), err, sizeof(err)), OMRU_EINVAL);
	req.links = nullptr;
	req.mem_limit_bytes = 1;
	ck_assert_int_eq(omru_partition_json(&req, out, sizeof(out), err, sizeof(err)), OMRU_EINVAL);
	ck_assert_msg(std::string(err).rfind("no split of the model onto 2 GPUs fits 1 bytes", 0) == 0,
		      "%s", err);
	req.layers_len = 3;
	ck_assert_int_eq(omru_partition_json(&req, out, sizeof(out), err, sizeof(err)), OMRU_EINVAL);
	ck_assert_int_eq(omru_partition_json(nullptr, out, sizeof(out), err, sizeof(err)), OMRU_EINVAL);
}
END_TEST

// ------------------------------------------------- against brute force ----

// Deterministic pseudo-random numbers in [0, 1).
static double next_unit(uint64_t &x)
{
	x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	return static_cast<double>(x >> 11) / static_cast<double>(1ULL << 53);
}

// Every split of L layers into S stages with replicas summing to at most G.
static void each_shape(int L, int G, int S, const std::function<void(std::vector<StageShape> &)> &f)
{
	std::vector<StageShape> shape;
	std::function<void(int, int)> go = [&](int first, int pos) {
		int k = static_cast<int>(shape.size());
		if (k == S) {
			if (first == L)
				f(shape);
			return;
		}
		for (int end = first + 1; end <= L - (S - k - 1); end++)
			for (int r = 1; pos + r + (S - k - 1) <= G; r++) {
				shape.push_back(StageShape{end, r});
				go(end, pos + r);
				shape.pop_back();
			}
	};
	go(0, 0);
}

START_TEST(test_the_dynamic_program_finds_the_least_bottleneck_of_every_split)
{
	uint64_t seed = 12345;
	GpuLinks pairs = links_of({"-1,2", "2,-1"});
	for (int trial = 0; trial < 60; trial++) {
		int L = 1 + static_cast<int>(next_unit(seed) * 5);
		int nodes = 1 + static_cast<int>(next_unit(seed) * 2);
		std::string rows;
		double stash_total = 0;
		for (int l = 0; l < L; l++) {
			double stash = 1e6 * (1 + 20 * next_unit(seed));
			stash_total += stash;
			rows += "l" + std::to_string(l) + ",8," +
				std::to_string(1 + 9 * next_unit(seed)) + "," +
				std::to_string(2 + 18 * next_unit(seed)) + "," +
				std::to_string(1e6 * 8 * next_unit(seed)) + "," +
				std::to_string(stash) + "," +
				std::to_string(2e8 * next_unit(seed)) + "\n";
		}
		LayerProfile p = profile_of(rows);
		LinkSpeeds speeds;
		speeds.network_gbps = 0.5 + 10 * next_unit(seed);
		Parsed<JobTopology> t = JobTopology::uniform(&pairs, nodes, 2, speeds);
		PartitionSettings s;
		s.global_batch = 16;
		// Every third trial tight enough that some stages recompute;
		// every other one with no GPU left idle.
		if (trial % 3 == 0)
			s.mem_limit_bytes = 3 * 2e8 + stash_total / 4;
		s.all_gpus = trial % 2 == 1;
		const int G = t.value().size();
		for (int M : {1, 2, 4, 8, 16}) {
			StageCosts costs(p, t.value(), s, M);
			std::vector<PipelinePlan> dp = best_splits(costs, 4);
			for (int S = 1; S <= 4; S++) {
				double brute = INFINITY;
				each_shape(L, G, S, [&](std::vector<StageShape> &shape) {
					Parsed<PipelinePlan> e = evaluate(costs, shape);
					if (e.ok())
						brute = std::min(brute, e.value().bottleneck_s);
				});
				const PipelinePlan &got = dp[static_cast<size_t>(S - 1)];
				if (std::isinf(brute)) {
					ck_assert_msg(got.stages.empty(),
						      "trial %d M %d S %d: a split where none fits",
						      trial, M, S);
					continue;
				}
				ck_assert_msg(!got.stages.empty() && near(got.bottleneck_s, brute),
					      "trial %d M %d S %d: %.9g, brute force %.9g", trial,
					      M, S, got.stages.empty() ? -1.0 : got.bottleneck_s,
					      brute);
			}
		}
	}
}
END_TEST

// The planner's view (pipeline_gain): the large model above on two nodes
// (one GPU each, 1 GB/s, a sample per GPU) trains as the two-stage split
// in 11 / 1006 of data parallelism's time; the small one on two PCIe GPUs
// of a node stays data parallel; with memory for nothing the row stands.
START_TEST(test_the_gain_of_a_split_is_its_time_over_data_parallel)
{
	LayerProfile large = profile_of("a,1,1,2,1000000,0,500000000\n"
					"b,1,1,2,1000000,0,500000000\n");
	PipelineGainSettings s;
	s.batch_per_gpu = 1;
	s.speeds = no_latency(1);
	Parsed<PipelineGain> g = pipeline_gain(large, nullptr, 2, 2, 1, s);
	ck_assert_msg(g.ok(), "%s", g.error().c_str());
	ck_near(g.value().factor, 0.011 / 1.006);
	ck_assert_int_eq(g.value().stages, 2);
	ck_assert_string_eq(g.value().split, "1:1,2:1");
	LayerProfile small = profile_of("a,1,1,2,1000,0,1000000\nb,1,1,2,1000,0,1000000\n");
	g = pipeline_gain(small, nullptr, 2, 1, 2, s);
	ck_assert(g.ok());
	ck_assert_double_eq(g.value().factor, 1);
	ck_assert_int_eq(g.value().stages, 1);
	s.mem_limit_bytes = 1;
	g = pipeline_gain(large, nullptr, 2, 2, 1, s);
	ck_assert(g.ok());
	ck_assert_double_eq(g.value().factor, 1);
	// Not a spread, or past the partitioner: said.
	ck_assert_string_eq(pipeline_gain(large, nullptr, 3, 1, 2, s).error(),
			    "3 GPUs on 1 node(s) of 2 is not a spread");
	ck_assert_string_eq(pipeline_gain(large, nullptr, 1, 2, 2, s).error(),
			    "1 GPUs on 2 node(s) of 2 is not a spread");
	ck_assert(!pipeline_gain(large, nullptr, 64, 8, 8, s).ok());
}
END_TEST

START_TEST(test_the_answer_is_never_slower_than_data_parallel)
{
	uint64_t seed = 777;
	GpuLinks pairs = links_of({"-1,2", "2,-1"});
	for (int trial = 0; trial < 30; trial++) {
		std::string rows;
		for (int l = 0; l < 6; l++)
			rows += "l" + std::to_string(l) + ",16," +
				std::to_string(1 + 9 * next_unit(seed)) + "," +
				std::to_string(2 + 18 * next_unit(seed)) + "," +
				std::to_string(1e6 * 16 * next_unit(seed)) + ",1000," +
				std::to_string(3e8 * next_unit(seed)) + "\n";
		Parsed<JobTopology> t = JobTopology::uniform(&pairs, 2, 2, LinkSpeeds{});
		PartitionSettings s;
		s.global_batch = 64;
		PartitionResult r = partition_ok(profile_of(rows), t.value(), s);
		ck_assert(!r.data_parallel.stages.empty());
		ck_assert(r.best.iteration_s <= r.data_parallel.iteration_s);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("partitioner");
	TCase *prof = tcase_create("layer profile");
	tcase_add_test(prof, test_two_batch_sizes_give_a_fixed_and_a_per_sample_time);
	tcase_add_test(prof, test_one_batch_size_gives_a_proportional_time_and_order_is_kept);
	tcase_add_test(prof, test_a_negative_fixed_part_falls_back_to_proportional);
	tcase_add_test(prof, test_bad_profiles_name_the_place);
	suite_add_tcase(s, prof);
	TCase *topo = tcase_create("job topology");
	tcase_add_test(topo, test_chain_order_keeps_nvlink_partners_together);
	tcase_add_test(topo, test_a_partial_allocation_and_no_links);
	tcase_add_test(topo, test_idle_nodes_give_the_best_linked_gpus);
	tcase_add_test(topo, test_bad_topologies_say_why);
	suite_add_tcase(s, topo);
	TCase *part = tcase_create("partition");
	tcase_add_test(part, test_a_small_model_on_even_links_stays_data_parallel);
	tcase_add_test(part, test_a_large_model_across_a_slow_network_is_pipelined);
	tcase_add_test(part, test_recomputation_takes_the_cheapest_layers_that_make_it_fit);
	tcase_add_test(part, test_nothing_fits_is_refused_with_what_it_needs);
	tcase_add_test(part, test_bad_settings_are_refused);
	tcase_add_test(part, test_uneven_links_put_each_stage_on_one_nvlink_pair);
	tcase_add_test(part, test_the_c_api_gives_the_json_and_says_why_not);
	tcase_add_test(part, test_gpipe_holds_every_micro_batch_and_1f1b_a_window);
	tcase_add_test(part, test_stage_shapes_read_the_trainers_form);
	tcase_add_test(part, test_the_gain_of_a_split_is_its_time_over_data_parallel);
	suite_add_tcase(s, part);
	TCase *brute = tcase_create("brute force");
	tcase_set_timeout(brute, 60);
	tcase_add_test(brute, test_the_dynamic_program_finds_the_least_bottleneck_of_every_split);
	tcase_add_test(brute, test_the_answer_is_never_slower_than_data_parallel);
	suite_add_tcase(s, brute);
	return run_suite(s);
}
