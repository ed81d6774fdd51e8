// pipeline_profiles.hpp - omru-sim --layer-profiles DIR: models that have a
// layer profile (DIR/MODEL.csv, doc/partition-formats.md) may train as a
// pipeline-hybrid split, so every row of theirs becomes the better of data
// parallelism (the measured row) and the partitioner's best split on the
// cluster's links (pipeline/pipeline_gain.hpp).  The scaled table is the
// truth of the run and what every policy plans with, as it would be on a
// cluster where omru-train --parallel auto trains those models.
#ifndef OMRU_SIM_PIPELINE_PROFILES_HPP
#define OMRU_SIM_PIPELINE_PROFILES_HPP

#include <string>
#include <vector>

#include "model/cluster.hpp"
#include "pipeline/pipeline_gain.hpp"
#include "profile/profile_table.hpp"

namespace omru {

// IN links: the nodes' link matrix (one for all), or nullptr (PCIe).
// OUT said: a line per model with a layer profile: where splits pay.
// RET the scaled table.  Throws InputError for a layer profile that does
// not parse, UsageError for a directory without any.
ProfileTable with_pipeline_splits(const ProfileTable &p, const Cluster &c,
				  const GpuLinks *links, const std::string &dir,
				  const pipeline::PipelineGainSettings &s,
				  std::vector<std::string> *said);

} // namespace omru

#endif
