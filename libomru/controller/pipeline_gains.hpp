// pipeline_gains.hpp - omru.conf LayerProfileDir=: the layer profiles of
// models that may train as pipeline-hybrid splits (omru-train --parallel
// auto), and what a split does to their speed curves in slurmctld's plans.
// A profiled model's epoch time at G GPUs over K nodes is multiplied by
// pipeline_gain's factor (the partitioner's best split over data
// parallelism, <= 1), so the plan gives GPUs where a split makes them pay.
// The factors are computed once per (model, G, K, node size) and kept; the
// files are read at configure time, never while planning.
#ifndef OMRU_CONTROLLER_PIPELINE_GAINS_HPP
#define OMRU_CONTROLLER_PIPELINE_GAINS_HPP

#include <map>
#include <string>
#include <tuple>

#include "job_options.hpp" // Parsed
#include "pipeline/pipeline_gain.hpp"

namespace omru {
namespace controller {

constexpr int kMaxLayerProfiles = 4096; // files in LayerProfileDir

class PipelineGains {
    public:
	PipelineGains() = default;
	PipelineGains(std::map<std::string, pipeline::LayerProfile> profiles,
		      pipeline::PipelineGainSettings s)
		: profiles_(std::move(profiles)), s_(s)
	{
	}
	bool empty() const { return profiles_.empty(); }
	size_t size() const { return profiles_.size(); }

	// The gain of `model` at `gpus` over `nodes` nodes of `gpus_per_node`
	// (PCIe inside a node, the network across); factor 1 without a layer
	// profile or where data parallelism is best.
	const pipeline::PipelineGain &gain(const std::string &model, int gpus, int nodes,
					   int gpus_per_node);

    private:
	std::map<std::string, pipeline::LayerProfile> profiles_;
	pipeline::PipelineGainSettings s_;
	std::map<std::tuple<std::string, int, int, int>, pipeline::PipelineGain> cache_;
	pipeline::PipelineGain none_;
};

// Reads DIR/MODEL.csv for every regular file ending in .csv (the model is
// the name without it).  RET the profiles, or "FILE:LINE:COL: ..." for one
// that does not parse, or why DIR cannot be read.
Parsed<std::map<std::string, pipeline::LayerProfile>>
load_layer_profiles(const std::string &dir);

} // namespace controller
} // namespace omru

#endif
