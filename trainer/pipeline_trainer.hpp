// pipeline_trainer.hpp - omru-train --parallel pipeline: the model's blocks
// split into stages (pipeline_split.hpp), each stage on its own ranks and
// data-parallel over them, micro-batches through a GPipe schedule (every
// micro-batch forward, then every one backward, gradients accumulated, one
// optimizer step per global batch: the same update as data parallelism on
// the same global batch).
//
// Micro-batch k of the global batch goes to replica k mod r of each stage.
// Activations (and the labels, which the last stage needs) go forward and
// their gradients back with point-to-point sends (Gloo on CPUs, NCCL on
// GPUs); sends never block the sender, receives wait, and both directions
// keep one order, so no stage waits on a stage that waits on it.  A stage's
// replicas sum their gradients with one allreduce per step.  Blocks named
// in --recompute keep only their input from forward to backward and run
// their forward again before their backward (as torch.utils.checkpoint).
// Only the first stage loads data: its replica i the micro-batches k with
// k mod r0 = i, as a data-parallel rank i of r0 would.
#ifndef OMRU_TRAINER_PIPELINE_TRAINER_HPP
#define OMRU_TRAINER_PIPELINE_TRAINER_HPP

#include "slurm_env.hpp"
#include "train_options.hpp"

namespace omru {
namespace train {

// Trains o.epochs epochs.  RET the exit status (0 done).  Throws
// std::invalid_argument for a split the model or the job cannot take, and
// std::runtime_error when training fails.
int train_pipeline(const TrainOptions &o, const RankEnv &env);

} // namespace train
} // namespace omru

#endif
