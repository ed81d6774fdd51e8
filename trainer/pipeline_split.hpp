// pipeline_split.hpp - where omru-train's pipeline mode cuts the model: the
// stages (block ranges), each stage's replicas (consecutive ranks), the
// micro-batches and the blocks that recompute.  From --pipeline
// "END:REPLICAS,..." (blocks [previous END, END) on REPLICAS ranks), as the
// partitioner's plan reads (omru-partition: stage end_layer and gpus).
#ifndef OMRU_TRAINER_PIPELINE_SPLIT_HPP
#define OMRU_TRAINER_PIPELINE_SPLIT_HPP

#include <string>
#include <vector>

namespace omru {
namespace train {

struct PipelineStage {
	int first_block = 0, end_block = 0; // blocks [first, end)
	int first_rank = 0, replicas = 1;   // ranks [first, first + replicas)
};

struct PipelineSplit {
	std::vector<PipelineStage> stages;
	int micro_batches = 1;
	std::vector<bool> recompute; // per block

	// The stage rank r serves.
	int stage_of(int rank) const;
};

// IN spec: "END:REPLICAS,..."; IN recompute: block names, comma-separated
// ("" none); IN block_names: the model's blocks; IN world: ranks, which the
// replicas must add up to; IN micro_batches: >= stage 0's replicas and a
// multiple of them.  Throws std::invalid_argument saying what is wrong.
PipelineSplit parse_pipeline_split(const std::string &spec, const std::string &recompute,
				   const std::vector<std::string> &block_names, int world,
				   int micro_batches);

} // namespace train
} // namespace omru

#endif
