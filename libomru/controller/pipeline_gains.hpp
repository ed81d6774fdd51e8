// pipeline_gains.hpp - omru.conf LayerProfileDir=: the layer profiles of
// models that may train as pipeline-hybrid splits (omru-train --parallel
// auto), and what a split does to their speed curves in slurmctld's plans.
// A profiled model's epoch time at G GPUs over K nodes is multiplied by
// pipeline_gain's factor (the partitioner's best split over data
// parallelism, <= 1), so the plan gives GPUs where a split makes them pay.
//
// A partition can take up to a second (32 GPUs), too long for slurmctld's
// scheduling path, so the plan only reads factors already known and notes
// the ones it missed (factor 1, data parallelism, meanwhile); the glue's
// background thread takes them (take_wanted), computes them without the
// lock (compute) and installs them, and the next plan uses them.  The
// packed spreads of every GPU count the cluster holds are wanted as soon
// as a plan sees the cluster, so they are known before most jobs arrive.
// Files are read at configure time, never while planning.
#ifndef OMRU_CONTROLLER_PIPELINE_GAINS_HPP
#define OMRU_CONTROLLER_PIPELINE_GAINS_HPP

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "job_options.hpp" // Parsed
#include "pipeline/pipeline_gain.hpp"

namespace omru {
namespace controller {

constexpr int kMaxLayerProfiles = 4096; // files in LayerProfileDir

// model, GPUs, nodes, GPUs per node
using GainKey = std::tuple<std::string, int, int, int>;

// One factor to compute off the lock: everything it needs, copied.
struct GainWork {
	GainKey key;
	std::shared_ptr<const pipeline::LayerProfile> profile;
	std::shared_ptr<const GpuLinks> links; // null: PCIe
	pipeline::PipelineGainSettings settings;
	uint64_t generation = 0; // the links it was asked on
	pipeline::PipelineGain result;
};

class PipelineGains {
    public:
	PipelineGains() = default;
	PipelineGains(std::map<std::string, pipeline::LayerProfile> profiles,
		      pipeline::PipelineGainSettings s);
	bool empty() const { return profiles_.empty(); }
	size_t size() const { return profiles_.size(); }

	// The cluster a plan sees: its largest node's GPU links (null:
	// PCIe), node count and size.  New links forget every factor; a new
	// shape wants the packed spreads of every count up to the
	// partitioner's limit.
	void see_cluster(const GpuLinks *links, int nodes, int gpus_per_node);
	// The gain of `model` at `gpus` over `nodes` nodes of `gpus_per_node`
	// when known; otherwise factor 1 (data parallelism), and it is wanted.
	// Factor 1 also without a layer profile or where data parallelism is
	// best.
	const pipeline::PipelineGain &gain(const std::string &model, int gpus, int nodes,
					   int gpus_per_node);

	// Up to `max` wanted factors, for compute() off the lock.
	std::vector<GainWork> take_wanted(size_t max);
	// RET how many were installed (those asked on older links are not).
	size_t install(const std::vector<GainWork> &done);
	bool has_wanted() const { return !wanted_.empty(); }
	size_t known() const { return cache_.size(); }

    private:
	std::map<std::string, std::shared_ptr<const pipeline::LayerProfile>> profiles_;
	pipeline::PipelineGainSettings s_;
	std::shared_ptr<const GpuLinks> links_;
	uint64_t generation_ = 0;
	std::pair<int, int> shape_{ 0, 0 };
	std::map<GainKey, pipeline::PipelineGain> cache_;
	std::set<GainKey> wanted_, taken_;
	pipeline::PipelineGain none_;
};

// Computes each work's result (pipeline_gain; factor 1 where it fails).
void compute(std::vector<GainWork> &work);

// Reads DIR/MODEL.csv for every regular file ending in .csv (the model is
// the name without it).  RET the profiles, or "FILE:LINE:COL: ..." for one
// that does not parse, or why DIR cannot be read.
Parsed<std::map<std::string, pipeline::LayerProfile>>
load_layer_profiles(const std::string &dir);

} // namespace controller
} // namespace omru

#endif
