// pipeline_gain.cpp - see pipeline_gain.hpp.
#include "pipeline/pipeline_gain.hpp"

#include "pipeline/partitioner.hpp"

namespace omru {
namespace pipeline {

Parsed<PipelineGain> pipeline_gain(const LayerProfile &profile, const GpuLinks *links,
				   int gpus, int nodes, int gpus_per_node,
				   const PipelineGainSettings &s)
{
	if (nodes < 1 || gpus < nodes || gpus_per_node < 1 ||
	    gpus > static_cast<long>(nodes) * gpus_per_node)
		return Parsed<PipelineGain>::fail(std::to_string(gpus) + " GPUs on " +
						  std::to_string(nodes) + " node(s) of " +
						  std::to_string(gpus_per_node) +
						  " is not a spread");
	if (gpus > kMaxPipelineGpus)
		return Parsed<PipelineGain>::fail("more than " +
						  std::to_string(kMaxPipelineGpus) +
						  " GPUs: beyond the partitioner");
	if (s.batch_per_gpu < 1)
		return Parsed<PipelineGain>::fail("a batch per GPU below 1");
	std::vector<int> per_node;
	for (int n = 0; n < nodes; n++)
		per_node.push_back(gpus / nodes + (n < gpus % nodes ? 1 : 0));
	Parsed<JobTopology> topo = JobTopology::on_idle_nodes(links, per_node, s.speeds);
	if (!topo.ok())
		return Parsed<PipelineGain>::fail(topo.error());
	PartitionSettings ps;
	ps.global_batch = gpus * s.batch_per_gpu;
	ps.schedule = Schedule::GPipe;
	ps.all_gpus = true;
	ps.mem_limit_bytes = s.mem_limit_bytes;
	ps.param_copies = s.param_copies;
	PipelineGain g;
	Parsed<PartitionResult> r = partition(profile, topo.value(), ps);
	if (!r.ok())
		return g; // nothing fits: no row of this spread is changed
	const PartitionResult &pr = r.value();
	if (pr.data_parallel.stages.empty() || pr.best.is_data_parallel() ||
	    !(pr.data_parallel.iteration_s > 0) ||
	    !(pr.best.iteration_s < pr.data_parallel.iteration_s))
		return g;
	g.factor = pr.best.iteration_s / pr.data_parallel.iteration_s;
	g.stages = static_cast<int>(pr.best.stages.size());
	for (const StagePlan &st : pr.best.stages)
		g.split += (g.split.empty() ? "" : ",") + std::to_string(st.end_layer) + ":" +
			   std::to_string(st.gpus.size());
	return g;
}

} // namespace pipeline
} // namespace omru
