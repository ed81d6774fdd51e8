// data_source.hpp - what `omru-train --data DIR` trains on: the layout of
// DIR says which kind of set it is, so a job script names a directory and
// nothing else.
#ifndef OMRU_TRAINER_DATA_SOURCE_HPP
#define OMRU_TRAINER_DATA_SOURCE_HPP

#include <memory>
#include <string>

#include "sample_set.hpp"

namespace omru {
namespace train {

// JPEG sets' default side: small enough that a CPU node trains a few
// epochs in minutes, large enough that decoding, not the crop, costs.
constexpr int kDefaultJpegSide = 64;

// The training set in `dir`: CIFAR-10 binary (data_batch_1.bin there) or an
// ImageNet-style folder (a sub-directory of JPEG files per class), whose
// images are cropped to `image_size` (0: kDefaultJpegSide).  Throws
// std::runtime_error naming the directory when it is neither, and
// std::invalid_argument when `image_size` is given for a CIFAR set (its
// images are 32x32; silently ignoring the option would mislead).
std::shared_ptr<const SampleSet> open_training_set(const std::string &dir, int image_size);

} // namespace train
} // namespace omru

#endif
