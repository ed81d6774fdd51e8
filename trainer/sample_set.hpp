// sample_set.hpp - what the data loader reads: a labelled set of images that
// gives each sample as a normalised float image, 3 x side x side, CHW.
// CIFAR-10 records (cifar_samples.hpp) and an ImageNet-style folder of JPEG
// files (jpeg_folder.hpp) are the two kinds; the loader's sampler, sharding,
// worker pool and wait measurement are the same for both.
#ifndef OMRU_TRAINER_SAMPLE_SET_HPP
#define OMRU_TRAINER_SAMPLE_SET_HPP

#include <cstddef>
#include <string>

#include "splitmix.hpp"

namespace omru {
namespace train {

class SampleSet {
    public:
	virtual ~SampleSet() = default;
	virtual size_t size() const = 0;
	virtual int classes() const = 0;
	// Output images are 3 x side() x side() floats.
	virtual int side() const = 0;
	virtual int label(size_t i) const = 0;
	// Writes sample i into `dst` (3 x side x side floats, normalised).
	// With `augment`, every random choice comes from `rng` alone, so the
	// same stream gives the same image whichever thread asks.  Thread-safe
	// (const, no shared mutable state).  Throws std::runtime_error naming
	// the sample's file when it cannot be read or decoded.
	virtual void load(size_t i, bool augment, SplitMix &rng, float *dst) const = 0;
	// One line for logs: "CIFAR-10 binary, 50000 images" and the like.
	virtual std::string describe() const = 0;
};

} // namespace train
} // namespace omru

#endif
