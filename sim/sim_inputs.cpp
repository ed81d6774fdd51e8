// sim_inputs.cpp - see sim_inputs.hpp.
#include "sim_inputs.hpp"

#include "model/csv_table.hpp"
#include "sim/cluster_spec.hpp"
#include "sim/pipeline_profiles.hpp"

namespace omru {

const std::vector<OptionSpec> kInputOptions = {
	{ "cluster", true }, { "cluster-file", true }, { "gpu-links", true },
	{ "profiles", true }, { "workload", true },
	{ "restart-overhead", true },
	{ "layer-profiles", true }, { "batch-per-gpu", true }, { "gpu-mem-gib", true },
	{ "node-cpus", true }, { "node-mem-mb", true },
	{ "user-gpus", true }, { "licenses", true },
	{ "colocation", true }, { "colocation-signals", true },
};

const std::vector<OptionSpec> kPolicyOptions = {
	{ "walltime-factor", true }, { "tiresias-thresholds", true },
	{ "seed", true }, { "iterations", true }, { "population", true },
	{ "objective", true }, { "fairness", true },
	{ "no-resize", false }, { "grow-on-one-node", false },
	{ "no-phase-aware", false }, { "no-bound", false },
	{ "no-arrival-guard", false },
	{ "bound-slack", true }, { "bound-slack-s", true },
};

std::vector<OptionSpec> join(std::vector<OptionSpec> a,
			     const std::vector<OptionSpec> &b)
{
	a.insert(a.end(), b.begin(), b.end());
	return a;
}

// --gpu-links FILE: one matrix for the cluster's identical nodes.
static std::shared_ptr<const GpuLinks> read_gpu_links(const std::string &path,
						      const SimInputs &in)
{
	if (!in.node_links.empty())
		throw UsageError("--gpu-links and the Links lines of --cluster-file "
				 "both give GPU links; give one");
	if (!in.cluster.uniform())
		throw UsageError("--gpu-links gives one link matrix for identical "
				 "nodes; the cluster " + format_cluster(in.cluster) +
				 " has nodes of different sizes (give each node's "
				 "Links lines in a --cluster-file)");
	Parsed<GpuLinks> g = GpuLinks::read_file(path);
	if (!g.ok()) {
		// "FILE: message" or "FILE:LINE: message", as InputError reads.
		const std::string &e = g.error();
		size_t colon = e.find(": ", e.compare(0, path.size(), path) ? 0 : path.size());
		if (colon == std::string::npos)
			throw InputError(path, e);
		throw InputError(e.substr(0, colon), e.substr(colon + 2));
	}
	if (g.value().size() != in.cluster.gpus_per_node)
		throw InputError(path, "a link matrix for " +
					       std::to_string(g.value().size()) +
					       " GPUs; the cluster's nodes have " +
					       std::to_string(in.cluster.gpus_per_node));
	return std::make_shared<const GpuLinks>(g.value());
}

// --user-gpus USER=N,... and --licenses NAME=N,...: names with counts.
static std::vector<std::pair<std::string, int>> named_counts(const CliArgs &args,
							     const char *option, int min)
{
	std::vector<std::pair<std::string, int>> out;
	auto v = args.get(option);
	if (!v)
		return out;
	size_t pos = 0;
	while (pos <= v->size()) {
		size_t comma = v->find(',', pos);
		std::string item = v->substr(pos, comma == std::string::npos ? std::string::npos
									  : comma - pos);
		size_t eq = item.find('=');
		char *end = nullptr;
		long n = eq == std::string::npos ? -1 : std::strtol(item.c_str() + eq + 1, &end, 10);
		if (eq == 0 || eq == std::string::npos || eq + 1 == item.size() || *end ||
		    n < min || n > (1 << 20))
			throw UsageError(std::string("--") + option + " '" + *v +
					 "': expected NAME=N pairs (N >= " + std::to_string(min) +
					 "), comma-separated");
		for (const auto &seen : out)
			if (seen.first == item.substr(0, eq))
				throw UsageError(std::string("--") + option + " names " +
						 seen.first + " twice");
		out.emplace_back(item.substr(0, eq), static_cast<int>(n));
		if (comma == std::string::npos)
			break;
		pos = comma + 1;
	}
	return out;
}

// What the site adds to the GPUs: node CPUs and memory, per-user GPU
// limits, licenses (doc/sim-formats.md, Site limits).
static void read_site_limits(const CliArgs &args, SimInputs &in)
{
	in.cluster.node_cpus = args.number("node-cpus", 0, 0, 1 << 20);
	in.cluster.node_mem_mb = args.number("node-mem-mb", 0, 0, 1e12);
	if ((in.cluster.node_cpus > 0) != (in.cluster.node_mem_mb > 0))
		throw UsageError("--node-cpus and --node-mem-mb go together");
	if (in.workload.needs_node_resources() && in.cluster.node_cpus <= 0)
		throw UsageError("the workload's jobs take CPUs or memory "
				 "(cpus_per_gpu, mem_mb, mem_per_cpu_mb, mem_per_gpu_mb, "
				 "exclusive): give the nodes' --node-cpus and --node-mem-mb");
	try {
		set_site_limits(in.workload, in.cluster.nodes,
				named_counts(args, "user-gpus", 0),
				named_counts(args, "licenses", 1));
	} catch (const std::invalid_argument &e) {
		throw InputError(in.workload.name, e.what());
	}
}

SimInputs read_sim_inputs(const CliArgs &args)
{
	SimInputs in;
	if (auto file = args.get("cluster-file")) {
		if (args.has("cluster"))
			throw UsageError("--cluster and --cluster-file both describe the "
					 "cluster; give one");
		ClusterSpec spec = read_cluster_spec(*file);
		in.cluster = spec.cluster;
		in.node_links = std::move(spec.node_links);
	} else {
		if (!args.has("cluster"))
			throw UsageError("--cluster is required (or --cluster-file)");
		auto cluster = parse_cluster(*args.get("cluster"));
		if (!cluster.ok())
			throw UsageError(cluster.error());
		in.cluster = cluster.value();
	}
	if (auto path = args.get("gpu-links"))
		in.gpu_links = read_gpu_links(*path, in);
	std::string profiles = args.required("profiles");
	std::string workload = args.required("workload");
	in.restart_overhead_s = args.number("restart-overhead", 0, 0, 1e9);
	in.profiles = ProfileTable::from_csv(CsvTable::read_file(profiles));
	if (auto dir = args.get("layer-profiles")) {
		pipeline::PipelineGainSettings s;
		s.batch_per_gpu = static_cast<int>(args.integer("batch-per-gpu", 32, 1, 1 << 20));
		s.mem_limit_bytes = args.number("gpu-mem-gib", 0, 0, 1e6) * 1073741824.0;
		const GpuLinks *links = in.gpu_links ? in.gpu_links.get() : nullptr;
		for (const auto &l : in.node_links)
			if (!links && l)
				links = l.get(); // nodes alike: the first node's
		in.profiles = with_pipeline_splits(in.profiles, in.cluster, links, *dir, s,
						   &in.pipeline_notes);
	} else if (args.has("batch-per-gpu") || args.has("gpu-mem-gib")) {
		throw UsageError("--batch-per-gpu and --gpu-mem-gib go with --layer-profiles");
	}
	in.workload = workload_from_csv(CsvTable::read_file(workload), in.profiles);
	read_site_limits(args, in);
	if (args.has("colocation") || args.has("colocation-signals"))
		in.interference = std::make_shared<const InterferenceModel>(
			read_colocation(args.get("colocation").value_or(""),
					args.get("colocation-signals").value_or("")));
	return in;
}

void print_pipeline_notes(const SimInputs &in, std::ostream &out)
{
	for (const std::string &line : in.pipeline_notes)
		out << "omru-sim: --layer-profiles: " << line << "\n";
}

static std::vector<double> parse_thresholds(const std::string &v)
{
	std::vector<double> out;
	size_t pos = 0;
	while (pos <= v.size()) {
		size_t comma = v.find(',', pos);
		std::string item = v.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
		char *end = nullptr;
		double d = std::strtod(item.c_str(), &end);
		if (item.empty() || *end || !(d > 0) || d > 1e15 ||
		    (!out.empty() && d <= out.back()))
			throw UsageError("--tiresias-thresholds '" + v +
					 "': expected increasing GPU-second values > 0, comma-separated (e.g. 3600,36000)");
		out.push_back(d);
		if (comma == std::string::npos)
			break;
		pos = comma + 1;
	}
	return out;
}

PolicyOptions read_policy_options(const CliArgs &args)
{
	PolicyOptions o;
	o.walltime_factor = args.number("walltime-factor", 1.0, 1.0, 1000.0);
	if (auto t = args.get("tiresias-thresholds"))
		o.tiresias_thresholds_gpu_s = parse_thresholds(*t);
	o.seed = static_cast<uint64_t>(args.integer("seed", 1, 0, 1L << 62));
	o.ga_iterations = static_cast<int>(args.integer("iterations", 1000, 1, 10000000));
	o.ga_population = static_cast<int>(args.integer("population", 50, 2, 100000));
	if (auto obj = args.get("objective")) {
		if (*obj == "makespan")
			o.omru_objective = planner::Objective::Makespan;
		else if (*obj == "jct")
			o.omru_objective = planner::Objective::MeanJct;
		else
			throw UsageError("--objective '" + *obj +
					 "': expected makespan or jct");
	}
	o.omru_fairness = args.number("fairness", 0.0, 0.0, 1e6);
	o.omru_resize = !args.has("no-resize");
	o.omru_grow_on_one_node = args.has("grow-on-one-node");
	o.omru_phase_aware = !args.has("no-phase-aware");
	o.omru_bound.on = !args.has("no-bound");
	o.omru_arrival_guard = !args.has("no-arrival-guard");
	o.omru_bound.slack = args.number("bound-slack", o.omru_bound.slack, 0.0, 100.0);
	o.omru_bound.slack_s = args.number("bound-slack-s", o.omru_bound.slack_s, 0.0, 1e9);
	if (o.omru_fairness > 0 && o.omru_fairness < 1)
		throw UsageError("--fairness " + *args.get("fairness") +
				 ": expected 0 (off) or a factor >= 1");
	return o;
}

} // namespace omru
