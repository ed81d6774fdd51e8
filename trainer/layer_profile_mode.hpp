// layer_profile_mode.hpp - omru-train --profile-layers FILE: time every
// block of the model (models.hpp) forward and backward at the training batch
// size and at a quarter of it, and measure what each block sends on (its
// output) and keeps from forward to backward (its stash), for the pipeline
// partitioner (omru-partition, doc/partition-formats.md).
//
// Times are taken on the device training would use, each block on its own
// input (the output of the blocks before it, computed once), the median of
// several runs after warm-up.  Bytes are counted on the CPU by an allocator
// that wraps torch's: the stash is what a block's forward allocates and
// still holds when it returns (its output included), which is what autograd
// keeps for backward.  Input images are random: a block's time and sizes do
// not depend on the pixel values.
#ifndef OMRU_TRAINER_LAYER_PROFILE_MODE_HPP
#define OMRU_TRAINER_LAYER_PROFILE_MODE_HPP

#include <string>

#include <torch/torch.h>

namespace omru {
namespace train {

struct LayerProfileOptions {
	std::string model;
	int batch = 128;      // the larger profiled batch; the other is batch / 4
	int image_size = 32;  // input side
	std::string out;      // CSV path; written whole (a temporary, then renamed)
};

// Writes the profile and prints one line per block on stdout.  Throws
// std::runtime_error when the file cannot be written.
void profile_layers(const LayerProfileOptions &o, torch::Device device);

} // namespace train
} // namespace omru

#endif
