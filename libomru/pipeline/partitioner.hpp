// partitioner.hpp - pipeline-hybrid partitioning (Pipe-Torch, PipeDream's
// planner): split a model's layers into stages of consecutive layers, give
// each stage a run of the job's GPUs (its data-parallel replicas), pick the
// number of micro-batches and the layers each stage recomputes, so that one
// training iteration (one global batch, 1F1B or GPipe schedule, flushed at
// the end: the same time, GPipe holds more in memory) takes the least
// predicted time.  Pure data parallelism is the one-stage
// split, so the answer is never slower than it by this model.
//
// The model of an iteration (costs per stage from stage_costs.hpp; t_s its
// compute per micro-batch, n_s the micro-batches each replica runs, x_b the
// send time per micro-batch across boundary b, nb_b = ceil(M / min(r_s,
// r_s+1)) the sends on that boundary's busiest GPU, AR_s its allreduce):
//
//   pipeline  T_pipe = sum t_s + sum x_b + max(max (n_s - 1) t_s,
//                                               max (nb_b - 1) x_b)
//             (one micro-batch's way through and back, then the busiest
//             stage or link for the rest: the 1F1B steady state)
//   allreduce stage s's gradients are ready when its last backward ends,
//             sum_{s' < s} (bwd_s' + x_s' / 2) before T_pipe;
//             T = max(T_pipe, max_s (that end + AR_s))
//   bottleneck max(max_s n_s t_s + AR_s, max_b nb_b x_b): the busiest
//             resource's work per iteration, a lower bound on T
//
// The search.  For each micro-batch count M (the divisors of the global
// batch up to kMaxMicroBatches) one dynamic program finds, for every stage
// count S, the split with the least bottleneck: W[k][i][p][r] is the best
// bottleneck of the last k stages when the first of them starts at layer i
// on chain position p with r replicas; a transition picks its end layer j
// and the next stage's replicas r2.  It is exact for the bottleneck over
// all splits into contiguous layer ranges on consecutive chain runs
// (GPUs may stay unused at the chain's end).  Cost O(S L^2 G^3) per M for
// L layers, G GPUs, S <= min(L, G, kMaxStages) stages; 24 layers on 8 GPUs
// take milliseconds.  Each S's winner is then timed with T and the
// fastest (M, S) is the answer; T and the bottleneck rank splits nearly
// alike but not always, which is where this is not exact in T.
#ifndef OMRU_PIPELINE_PARTITIONER_HPP
#define OMRU_PIPELINE_PARTITIONER_HPP

#include <string>
#include <vector>

#include "pipeline/stage_costs.hpp"

namespace omru {
namespace pipeline {

constexpr int kMaxPipelineLayers = 128; // group finer models into blocks
constexpr int kMaxPipelineGpus = 32;
constexpr int kMaxStages = 16;
constexpr int kMaxMicroBatches = 256;

struct StagePlan {
	int first_layer = 0, end_layer = 0; // layers [first, end)
	std::vector<int> gpus;		    // chain positions of its replicas
	int micro_batches_each = 0;	    // n: what each replica runs
	StageFit fit;			    // recomputation, times, memory
	double allreduce_s = 0;
	double send_s = 0; // per micro-batch to the next stage (0: last)
};

struct PipelinePlan {
	std::vector<StagePlan> stages;
	int micro_batches = 0;
	double micro_batch = 0; // samples
	double bottleneck_s = 0;
	double iteration_s = 0;
	bool is_data_parallel() const { return stages.size() == 1; }
};

// One stage of a split: where it ends and how many replicas it has.
struct StageShape {
	int end_layer = 0;
	int replicas = 0;
};

// "END:REPLICAS,..." (omru-train --pipeline's form) as stage shapes.
Parsed<std::vector<StageShape>> parse_stage_shapes(const std::string &text);

// Times a split (stages in order from chain position 0).
// RET the plan, or why it cannot run: a shape that does not cover the
// layers or has more replicas than GPUs, or a stage that does not fit
// memory even recomputing every layer it can.
Parsed<PipelinePlan> evaluate(StageCosts &costs, const std::vector<StageShape> &shape);

// RET for S = 1..max_stages, the least-bottleneck split with S stages at
// costs' micro-batch count (index S - 1; an empty plan when none fits).
std::vector<PipelinePlan> best_splits(StageCosts &costs, int max_stages);

struct PartitionResult {
	PipelinePlan best;
	// Every GPU one replica of the whole model, at its best M; absent
	// (no stages) when it does not fit memory, with the reason.
	PipelinePlan data_parallel;
	std::string data_parallel_why;
};

// RET the fastest plan, or why there is none: bad input, or no split fits
// the memory limit (the message gives the least memory any stage needed).
Parsed<PartitionResult> partition(const LayerProfile &profile, const JobTopology &topo,
				  const PartitionSettings &settings);

} // namespace pipeline
} // namespace omru

#endif
