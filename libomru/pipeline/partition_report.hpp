// partition_report.hpp - a partition as people and programs read it: a
// table for omru-partition, and one JSON object (doc/partition-formats.md)
// for --json, the C API and the trainer's --parallel auto.
#ifndef OMRU_PIPELINE_PARTITION_REPORT_HPP
#define OMRU_PIPELINE_PARTITION_REPORT_HPP

#include <string>

#include "pipeline/partitioner.hpp"

namespace omru {
namespace pipeline {

std::string partition_text(const PartitionResult &r, const LayerProfile &profile,
			   const JobTopology &topo, const PartitionSettings &settings);
std::string partition_json(const PartitionResult &r, const LayerProfile &profile,
			   const JobTopology &topo);

} // namespace pipeline
} // namespace omru

#endif
