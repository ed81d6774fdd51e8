// parallel_auto.cpp - see parallel_auto.hpp.
#include "parallel_auto.hpp"

#include <cstdio>
#include <optional>
#include <stdexcept>

#include "pipeline/partitioner.hpp"
#include "policy/gpu_links.hpp"

namespace omru {
namespace train {

std::vector<int> parse_tasks_per_node(const std::string &v)
{
	std::vector<int> out;
	size_t pos = 0;
	while (pos < v.size()) {
		size_t end = v.find(',', pos);
		std::string item = v.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
		int count = 0, times = 1;
		char x = 0, close = 0, extra = 0;
		int got = std::sscanf(item.c_str(), "%d(%c%d%c%c", &count, &x, &times, &close, &extra);
		bool plain = got == 1 && item.find('(') == std::string::npos;
		bool repeated = got == 4 && x == 'x' && close == ')';
		if ((!plain && !repeated) || count < 1 || times < 1 || times > 1 << 16)
			throw std::invalid_argument("tasks per node '" + v + "' is not N or N(xM),...");
		for (int i = 0; i < times; i++)
			out.push_back(count);
		if (end == std::string::npos)
			break;
		pos = end + 1;
	}
	if (out.empty())
		throw std::invalid_argument("tasks per node '" + v + "' is empty");
	return out;
}

TrainOptions choose_parallel(const TrainOptions &o, const RankEnv &env,
			     const GetEnv &getenv_fn, std::string &said)
{
	using namespace omru::pipeline;
	TrainOptions out = o;
	out.pipeline_mode = false;
	if (env.world < 2) {
		said = "--parallel auto: one process, data parallelism";
		return out;
	}
	const char *dist = getenv_fn("SLURM_DISTRIBUTION");
	if (dist && std::string(dist).find("cyclic") != std::string::npos) {
		said = "--parallel auto: tasks spread cyclically across nodes; data parallelism";
		return out;
	}
	const char *tpn = getenv_fn("SLURM_STEP_TASKS_PER_NODE");
	if (!tpn)
		tpn = getenv_fn("SLURM_TASKS_PER_NODE");
	std::vector<int> per_node = tpn ? parse_tasks_per_node(tpn) : std::vector<int>{ env.world };
	std::optional<GpuLinks> links;
	if (!o.gpu_links.empty()) {
		Parsed<GpuLinks> l = GpuLinks::read_file(o.gpu_links);
		if (!l.ok())
			throw std::invalid_argument("--gpu-links: " + l.error());
		links = l.value();
	}
	// Every rank must reach the same answer from what all of them know, so
	// a node's processes are placed on the GPUs select/omru gives a job on
	// an idle node, not on what this node's SLURM_STEP_GPUS says.
	int total = 0;
	for (int n : per_node) {
		if (links && n > links->size())
			throw std::invalid_argument("--parallel auto: " + std::to_string(n) +
						    " processes on a node, " +
						    std::to_string(links->size()) +
						    " GPUs in --gpu-links");
		total += n;
	}
	if (total != env.world)
		throw std::invalid_argument("--parallel auto: " + std::to_string(total) +
					    " tasks per node in all, " + std::to_string(env.world) +
					    " processes");
	Parsed<LayerProfile> prof = read_layer_profile(o.layer_profile);
	if (!prof.ok())
		throw std::invalid_argument("--layer-profile: " + prof.error());
	Parsed<JobTopology> topo =
		JobTopology::on_idle_nodes(links ? &*links : nullptr, per_node, LinkSpeeds{});
	if (!topo.ok())
		throw std::invalid_argument("--parallel auto: " + topo.error());
	PartitionSettings s;
	s.global_batch = env.world * o.batch_size;
	s.schedule = Schedule::GPipe;
	s.all_gpus = true;
	Parsed<PartitionResult> r = partition(prof.value(), topo.value(), s);
	if (!r.ok())
		throw std::invalid_argument("--parallel auto: " + r.error());
	const PipelinePlan &best = r.value().best;
	char times[160];
	std::snprintf(times, sizeof(times), "predicted %.0f ms per iteration, data parallel %.0f ms",
		      best.iteration_s * 1e3, r.value().data_parallel.iteration_s * 1e3);
	if (best.is_data_parallel()) {
		said = std::string("--parallel auto: data parallelism (") + times + ")";
		return out;
	}
	out.pipeline_mode = true;
	out.pipeline.clear();
	out.recompute.clear();
	for (const StagePlan &st : best.stages) {
		out.pipeline += (out.pipeline.empty() ? "" : ",") + std::to_string(st.end_layer) +
				":" + std::to_string(st.gpus.size());
		for (int l : st.fit.recompute)
			out.recompute += (out.recompute.empty() ? "" : ",") +
					 prof.value().layers[static_cast<size_t>(l)].name;
	}
	out.micro_batches = best.micro_batches;
	// Profile mode times data-parallel epochs, which this run will not do.
	out.profile_skipped = !out.profile_gpus.empty();
	out.profile_gpus.clear();
	said = "--parallel auto: pipeline " + out.pipeline + ", " +
	       std::to_string(out.micro_batches) + " micro-batches" +
	       (out.recompute.empty() ? "" : ", recomputing " + out.recompute) + " (" + times + ")";
	return out;
}

} // namespace train
} // namespace omru
