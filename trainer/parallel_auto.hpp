// parallel_auto.hpp - omru-train --parallel auto: the partitioner
// (libomru/pipeline/) asked with the model's layer profile and the step's
// real layout (processes per node, from Slurm's environment) chooses data
// parallelism or a pipeline split, its micro-batches and recomputed
// blocks.  Every rank computes the same answer from the same inputs, so no
// rendezvous is needed to agree on it.
#ifndef OMRU_TRAINER_PARALLEL_AUTO_HPP
#define OMRU_TRAINER_PARALLEL_AUTO_HPP

#include <string>
#include <vector>

#include "slurm_env.hpp"
#include "train_options.hpp"

namespace omru {
namespace train {

// "2(x3),1" (SLURM_STEP_TASKS_PER_NODE) as {2, 2, 2, 1}; throws
// std::invalid_argument for anything else.
std::vector<int> parse_tasks_per_node(const std::string &v);

// RET the options with the choice made: pipeline_mode and its fields, or
// data parallelism; `said` gets one line saying what was chosen and why.
// Throws std::invalid_argument when the layer profile is unusable.
TrainOptions choose_parallel(const TrainOptions &o, const RankEnv &env,
			     const GetEnv &getenv_fn, std::string &said);

} // namespace train
} // namespace omru

#endif
