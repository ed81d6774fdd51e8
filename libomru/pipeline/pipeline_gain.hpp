// pipeline_gain.hpp - what pipeline-hybrid training does to a job's speed
// curve.  For G GPUs spread over N nodes the partitioner's best split is
// compared with plain data parallelism, both predicted from the model's
// layer profile on the nodes' links, with the settings omru-train
// --parallel auto uses (GPipe memory, every process in a stage, the global
// batch the per-GPU batch times G as the linear scaling rule has it).  The
// gain is best / data parallel (<= 1): a measured data-parallel epoch time
// times the gain is the epoch time of the job when it trains with the split.
// Only that ratio is taken from the layer profile, so a profile timed on
// other hardware (CPU processes) still ranks splits sensibly; the measured
// rows stay the truth for data parallelism.
#ifndef OMRU_PIPELINE_PIPELINE_GAIN_HPP
#define OMRU_PIPELINE_PIPELINE_GAIN_HPP

#include <string>

#include "pipeline/job_topology.hpp"
#include "pipeline/layer_profile.hpp"

namespace omru {
namespace pipeline {

struct PipelineGainSettings {
	int batch_per_gpu = 32;	    // samples per GPU per iteration
	double mem_limit_bytes = 0; // per GPU; 0: no limit
	double param_copies = 3;    // weights + gradients + optimizer state
	LinkSpeeds speeds;
};

struct PipelineGain {
	double factor = 1; // the split's predicted time / data parallel's
	int stages = 1;	   // 1: data parallelism is the best
	std::string split; // END:REPLICAS,... as omru-train --pipeline takes it
};

// IN links: one node's Links matrix (every node alike), or nullptr (PCIe).
// IN gpus, nodes: the spread, GPUs as even as they go (the first nodes
//    one more); at most gpus_per_node on a node, on the GPUs select/omru
//    gives there on an idle node (JobTopology::on_idle_nodes).
// RET the gain; factor 1 when data parallelism is best or the split
//    cannot be compared with it (data parallelism does not fit memory, or
//    nothing does: the measured row stands).  An error only for input that
//    is not a spread (gpus < nodes, a node over gpus_per_node, bad speeds)
//    or beyond the partitioner's limits.
Parsed<PipelineGain> pipeline_gain(const LayerProfile &profile, const GpuLinks *links,
				   int gpus, int nodes, int gpus_per_node,
				   const PipelineGainSettings &s);

} // namespace pipeline
} // namespace omru

#endif
