// omru_partition.cpp - omru-partition: the pipeline-hybrid partitioner on
// files.  Reads a layer profile (what omru-train --profile-layers writes),
// the job's GPUs and their links, and prints the fastest split it predicts
// next to plain data parallelism.  Exit status: 0 a plan, 1 nothing fits
// memory, 2 bad usage or input.
#include <iostream>

#include "cli_args.hpp"
#include "pipeline/partition_report.hpp"

using namespace omru;
using namespace omru::pipeline;

static const char kUsage[] =
	"usage: omru-partition --layers FILE --batch N [--nodes N] [--gpus-per-node G]\n"
	"                      [--links FILE] [--mem-gib X] [--param-copies C]\n"
	"                      [--nvlink-gbps X] [--pcie-gbps X] [--network-gbps X]\n"
	"                      [--latency-us X] [--schedule 1f1b|gpipe]\n"
	"                      [--evaluate END:R,... --micro-batches M] [--json]\n"
	"       omru-partition --help\n";

static void print_help()
{
	std::cout << kUsage << "\n"
		"Splits a model into pipeline stages of consecutive layers, each stage\n"
		"data-parallel over a run of the job's GPUs, picks the micro-batch count and\n"
		"the layers to recompute so each GPU fits its memory, and prints the split\n"
		"with the least predicted time per iteration (1F1B schedule), next to plain\n"
		"data parallelism.\n\n"
		"  --layers FILE       the layer profile (layer,batch,fwd_ms,bwd_ms,out_bytes,\n"
		"                      stash_bytes,param_bytes; doc/partition-formats.md)\n"
		"  --batch N           the global batch: samples per iteration, all GPUs\n"
		"  --nodes N           nodes of the job (default 1)\n"
		"  --gpus-per-node G   GPUs on each node (default 1)\n"
		"  --links FILE        one node's gres.conf Links= values, one line per GPU\n"
		"                      (N > 0: N NVLinks; 0: PCIe); default: all PCIe\n"
		"  --mem-gib X         memory per GPU for parameters and activations\n"
		"                      (default 0: no limit)\n"
		"  --param-copies C    parameter-sized buffers per GPU: weights, gradients,\n"
		"                      optimizer state (default 3: SGD with momentum)\n"
		"  --nvlink-gbps X     GB/s per NVLink (default 25)\n"
		"  --pcie-gbps X       GB/s between GPUs without NVLink (default 12)\n"
		"  --network-gbps X    GB/s between nodes (default 12.5)\n"
		"  --latency-us X      microseconds per message (default 20)\n"
		"  --schedule S        1f1b (default: a stage holds at most as many micro-\n"
		"                      batches as stages from it on) or gpipe (all of them;\n"
		"                      omru-train --parallel pipeline)\n"
		"  --evaluate SPLIT    time this split instead of searching: END:R,... as\n"
		"                      omru-train --pipeline takes it, with --micro-batches M\n"
		"  --json              one JSON object instead of the table\n\n"
		"Exit status: 0 a plan, 1 nothing fits the memory, 2 bad usage or input.\n";
}

int main(int argc, char **argv)
{
	std::vector<std::string> args(argv + 1, argv + argc);
	try {
		CliArgs a(args, {{"layers", true},	 {"batch", true},
				 {"nodes", true},	 {"gpus-per-node", true},
				 {"links", true},	 {"mem-gib", true},
				 {"param-copies", true}, {"nvlink-gbps", true},
				 {"pcie-gbps", true},	 {"network-gbps", true},
				 {"latency-us", true},	 {"json", false},
				 {"schedule", true},	 {"evaluate", true},
				 {"micro-batches", true}, {"help", false}});
		if (a.has("help")) {
			print_help();
			return 0;
		}
		Parsed<LayerProfile> prof = read_layer_profile(a.required("layers"));
		if (!prof.ok()) {
			std::cerr << "omru-partition: " << prof.error() << "\n";
			return 2;
		}
		PartitionSettings s;
		s.global_batch = static_cast<int>(a.integer("batch", 0, 1, 1 << 24));
		if (!a.has("batch"))
			throw UsageError("--batch is required");
		s.mem_limit_bytes = a.number("mem-gib", 0, 0, 1 << 20) * (1 << 30);
		s.param_copies = a.number("param-copies", 3, 1, 64);
		std::string schedule = a.get("schedule").value_or("1f1b");
		if (schedule != "1f1b" && schedule != "gpipe")
			throw UsageError("--schedule '" + schedule + "': 1f1b or gpipe");
		s.schedule = schedule == "gpipe" ? Schedule::GPipe : Schedule::OneFOneB;
		if (a.has("evaluate") != a.has("micro-batches"))
			throw UsageError("--evaluate and --micro-batches go together");
		LinkSpeeds speeds;
		speeds.nvlink_gbps = a.number("nvlink-gbps", speeds.nvlink_gbps, 1e-6, 1e6);
		speeds.pcie_gbps = a.number("pcie-gbps", speeds.pcie_gbps, 1e-6, 1e6);
		speeds.network_gbps = a.number("network-gbps", speeds.network_gbps, 1e-6, 1e6);
		speeds.latency_s = a.number("latency-us", speeds.latency_s * 1e6, 0, 1e7) / 1e6;
		Parsed<GpuLinks> links = Parsed<GpuLinks>::fail("");
		if (a.has("links")) {
			links = GpuLinks::read_file(a.required("links"));
			if (!links.ok()) {
				std::cerr << "omru-partition: " << links.error() << "\n";
				return 2;
			}
		}
		int nodes = static_cast<int>(a.integer("nodes", 1, 1, kMaxPipelineGpus));
		int per_node = static_cast<int>(a.integer("gpus-per-node", 1, 1, kMaxPipelineGpus));
		Parsed<JobTopology> topo = JobTopology::uniform(links.ok() ? &links.value() : nullptr,
								nodes, per_node, speeds);
		if (!topo.ok()) {
			std::cerr << "omru-partition: " << topo.error() << "\n";
			return 2;
		}
		Parsed<PartitionResult> r = partition(prof.value(), topo.value(), s);
		if (!r.ok()) {
			std::cerr << "omru-partition: " << r.error() << "\n";
			return r.error().rfind("no split", 0) == 0 ? 1 : 2;
		}
		if (a.has("evaluate")) {
			int M = static_cast<int>(a.integer("micro-batches", 1, 1, kMaxMicroBatches));
			if (s.global_batch % M)
				throw UsageError("--micro-batches " + std::to_string(M) +
						 " does not divide the batch");
			Parsed<std::vector<StageShape>> shape = parse_stage_shapes(a.required("evaluate"));
			if (!shape.ok())
				throw UsageError("--evaluate: " + shape.error());
			StageCosts costs(prof.value(), topo.value(), s, M);
			Parsed<PipelinePlan> plan = evaluate(costs, shape.value());
			if (!plan.ok()) {
				std::cerr << "omru-partition: --evaluate: " << plan.error() << "\n";
				return plan.error().find("needs") != std::string::npos ? 1 : 2;
			}
			PartitionResult given = r.value();
			given.best = plan.value();
			r = given;
		}
		if (a.has("json"))
			std::cout << partition_json(r.value(), prof.value(), topo.value()) << "\n";
		else
			std::cout << partition_text(r.value(), prof.value(), topo.value(), s);
		return 0;
	} catch (const UsageError &e) {
		std::cerr << "omru-partition: " << e.what() << "\n" << kUsage;
		return 2;
	}
}
