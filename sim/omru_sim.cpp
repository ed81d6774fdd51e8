// omru_sim.cpp - omru-sim: replay a workload on a simulated GPU cluster under
// one policy (default command), check a schedule (validate), or compare
// policies (compare).  Formats: doc/sim-formats.md.  Exit status: 0 done,
// 1 the policy or the schedule failed, 2 bad usage or malformed input.
#include <cstdio>
#include <fstream>
#include <iostream>

#include <unistd.h>

#include "compare.hpp"
#include "gantt_svg.hpp"
#include "model/csv_table.hpp"
#include "run_policy.hpp"
#include "sim/validator.hpp"

using namespace omru;

static const char kUsage[] =
	"usage: omru-sim --cluster NxG --profiles P.csv --workload W.csv --policy NAME\n"
	"                [--gpu-links FILE] [--schedule-out S.csv] [--json]\n"
	"                [--gantt OUT.svg] [--restart-overhead SECONDS] [policy options]\n"
	"                [site limits] [--layer-profiles DIR [--batch-per-gpu N] [--gpu-mem-gib X]]\n"
	"                [--colocation PAIRS.csv [--colocation-signals SIGNALS.csv]]\n"
	"       omru-sim validate --cluster NxG --profiles P.csv --workload W.csv\n"
	"                --schedule S.csv [--restart-overhead SECONDS]\n"
	"       omru-sim compare --cluster NxG --profiles P.csv --workload W.csv\n"
	"                [--policies A,B,...] [--baseline POLICY] [--gpu-links FILE]\n"
	"                [--gantt OUT.svg] [--json] [--restart-overhead SECONDS]\n"
	"                [policy options]\n"
	"       omru-sim --list-policies | --help | --version\n";

static void print_help()
{
	std::cout << kUsage << "\n"
		"Replays a training workload on N nodes of G GPUs under one scheduling\n"
		"policy and reports the schedule; file formats in sim-formats.md.\n"
		"Every command takes --cluster-file FILE in place of --cluster NxG.\n\n"
		"  --cluster NxG            N identical nodes with G GPUs each; nodes that\n"
		"                           differ as runs joined by '+', e.g. 2x8+4x4\n"
		"  --cluster-file FILE      the nodes of a slurm.conf: NodeName=n[1-4] Gres=gpu:4;\n"
		"                           gres.conf lines in it give GPU links, a line per GPU\n"
		"                           in slot order: NodeName=n[1-4] Name=gpu\n"
		"                           File=/dev/nvidia0 Links=-1,2,0,0\n"
		"  --gpu-links FILE         GPU links of every node (identical nodes): a Links\n"
		"                           value per line, a line per GPU; not with Links lines\n"
		"                           in the cluster file.  With links a job gets its\n"
		"                           node's best-linked free GPUs, else the lowest slots\n"
		"  --profiles FILE          model,gpus,epoch_s[,nodes]: epoch times (the truth)\n"
		"  --workload FILE          job_id,submit_s,model,epochs,gpus[,gpus_min,gpus_max]\n"
		"                           [,elastic,late_after,priority,account] and the\n"
		"                           site-limit columns\n"
		"  --policy NAME            see --list-policies\n"
		"  --schedule-out FILE      per-segment schedule CSV ('-' for stdout)\n"
		"  --json                   print the summary as one JSON object\n"
		"  --gantt FILE             write a Gantt chart (SVG)\n"
		"  --restart-overhead S     seconds a job pays each time it resumes (default 0)\n"
		"  --baseline POLICY        compare: each job's JCT / its JCT under POLICY\n"
		"                           (default backfill; run even when not in --policies):\n"
		"                           jobs later by > 5%, p99, worst; with the workload\n"
		"                           column account, per account its GPU-seconds share\n"
		"site limits (workload columns user, node_list, cpus_per_gpu, mem_mb,\n"
		"mem_per_cpu_mb, mem_per_gpu_mb, exclusive, license; fifo, backfill, omru):\n"
		"  --node-cpus N            every node's CPUs (with --node-mem-mb)\n"
		"  --node-mem-mb MB         every node's memory\n"
		"  --user-gpus USER=N,...   GPUs a user's running jobs may hold at once\n"
		"  --licenses NAME=N,...    the site's license counts\n"
		"  --colocation FILE        model_a,model_b,slowdown_a,slowdown_b: co-located jobs\n"
		"                           slow each other down (the truth of the run, and what\n"
		"                           omru plans with; omru-oblivious ignores it): a job's\n"
		"                           epoch time x 1 + the sum of (slowdown - 1) over the\n"
		"                           other jobs on its nodes\n"
		"  --colocation-signals F   model,gpu_util,mem_util: solo signals; pairs without\n"
		"                           a row are predicted from them (omru-planner.md)\n"
		"  --layer-profiles DIR     models with a layer profile DIR/MODEL.csv (omru-train\n"
		"                           --profile-layers) train as the partitioner's best\n"
		"                           pipeline-hybrid split where it beats data parallelism\n"
		"                           on the nodes' links: each row's epoch time x (split /\n"
		"                           data parallel), both predicted (omru-partition(1))\n"
		"  --batch-per-gpu N        with --layer-profiles: samples per GPU (default 32)\n"
		"  --gpu-mem-gib X          with --layer-profiles: memory per GPU (default: none)\n"
		"policy options:\n"
		"  --walltime-factor F      backfill: walltime estimate = F x true runtime (>= 1, default 1);\n"
		"                           omru: its reference's time limits\n"
		"  --tiresias-thresholds L  tiresias: queue thresholds, GPU-seconds (default 3600)\n"
		"  --seed N                 omru-ga: random seed (default 1)\n"
		"  --iterations N           omru-ga: generations (default 1000)\n"
		"  --population N           omru-ga: population size (default 50)\n"
		"  --objective makespan|jct omru: what the plan minimises (default jct)\n"
		"  --no-bound               omru: plan without the reference bound (no job\n"
		"                           ends later than under backfill, beyond the slack)\n"
		"  --no-arrival-guard       omru: widen or narrow jobs that are not elastic\n"
		"                           while jobs keep arriving (default: they start at\n"
		"                           the count they asked then, as ArrivalGuard=yes)\n"
		"  --bound-slack F          omru: the bound's share (default 0.05)\n"
		"  --bound-slack-s S        omru: the bound's seconds (default 1)\n"
		"  --fairness F             omru: no job finishes later, from its submission,\n"
		"                           than F x its time under FIFO (F >= 1; 0 = off, default)\n"
		"  --no-resize              omru: never grow running jobs (GPU reuse off), as\n"
		"                           select/omru_cons_tres with Elastic=no\n"
		"  --grow-on-one-node       omru: grow running jobs onto one node only, as\n"
		"                           select/omru_cons_tres resizes elastic jobs\n"
		"  --no-phase-aware         omru: never shrink a running job to start a\n"
		"                           waiting one (workload column late_after), as\n"
		"                           select/omru_cons_tres with PhaseAware=no\n\n"
		"Exit status: 0 done, 1 the policy failed or the schedule is invalid,\n"
		"2 bad usage or malformed input.  See omru-sim(1).\n";
}

static int run_main(const std::vector<std::string> &argv)
{
	CliArgs args(argv, join(join(kInputOptions, kPolicyOptions),
				{ { "policy", true }, { "schedule-out", true },
				  { "json", false }, { "gantt", true } }));
	if (args.get("schedule-out").value_or("") == "-" && args.has("json"))
		throw UsageError("--schedule-out - and --json would both write to "
				 "standard output; send one to a file");
	SimInputs in = read_sim_inputs(args);
	print_pipeline_notes(in, std::cerr);
	PolicyRun run = run_policy(args.required("policy"), in,
				   read_policy_options(args), isatty(2));
	if (!run.error.empty()) {
		std::cerr << "omru-sim: " << run.policy << ": " << run.error << "\n";
		return 1;
	}
	if (auto path = args.get("schedule-out")) {
		if (*path == "-") {
			write_schedule_csv(std::cout, run.result.schedule, in.workload);
		} else {
			std::ofstream f(*path);
			write_schedule_csv(f, run.result.schedule, in.workload);
			if (!f.flush())
				throw InputError(*path, "cannot write the schedule");
		}
	}
	if (auto path = args.get("gantt")) {
		std::ofstream f(*path);
		write_gantt_svg(f, in.cluster, in.workload,
				{ { chart_title(run.summary), &run.result.schedule } });
		if (!f.flush())
			throw InputError(*path, "cannot write the chart");
	}
	if (args.has("json"))
		std::cout << summary_json(run.summary) << "\n";
	else if (args.get("schedule-out").value_or("") != "-")
		print_summary(std::cout, run.summary, in);
	return 0;
}

static int validate_main(const std::vector<std::string> &argv)
{
	CliArgs args(argv, join(kInputOptions, { { "schedule", true } }));
	SimInputs in = read_sim_inputs(args);
	print_pipeline_notes(in, std::cerr);
	std::string path = args.required("schedule");
	Schedule s = schedule_from_csv(CsvTable::read_file(path), in.workload);
	auto violations = validate_schedule(in.cluster, in.profiles, in.workload,
					    s, in.restart_overhead_s);
	for (const Violation &v : violations)
		std::cout << path << ":" << (v.line ? std::to_string(v.line) + ":" : "")
			  << " " << v.message << "\n";
	if (!violations.empty()) {
		std::cout << violations.size() << " violation(s)\n";
		return 1;
	}
	std::cout << path << ": valid (" << s.size() << " segments, "
		  << in.workload.jobs.size() << " jobs)\n";
	return 0;
}

int main(int argc, char **argv)
{
	std::vector<std::string> args(argv + 1, argv + argc);
	try {
		if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h")) {
			print_help();
			return 0;
		}
		if (args.size() == 1 && args[0] == "--version") {
			std::cout << "omru-sim " OMRU_VERSION "\n";
			return 0;
		}
		if (args.size() == 1 && args[0] == "--list-policies") {
			for (const PolicyInfo &p : policy_registry())
				std::printf("%-10s %s\n", p.name, p.summary);
			return 0;
		}
		if (!args.empty() && args[0] == "validate")
			return validate_main({ args.begin() + 1, args.end() });
		if (!args.empty() && args[0] == "compare")
			return compare_main({ args.begin() + 1, args.end() });
		return run_main(args);
	} catch (const UsageError &e) {
		std::cerr << "omru-sim: " << e.what() << "\n" << kUsage;
		return 2;
	} catch (const InputError &e) {
		std::cerr << "omru-sim: " << e.what() << "\n";
		return 2;
	} catch (const std::exception &e) {
		std::cerr << "omru-sim: internal error: " << e.what() << "\n";
		return 1;
	}
}
