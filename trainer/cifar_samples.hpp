// cifar_samples.hpp - CIFAR-10 records as a SampleSet: 32x32 images kept
// decoded in memory (the whole set is 150 MB), augmented as torchvision's
// CIFAR recipe does: RandomCrop(32, padding=4) + RandomHorizontalFlip.
#ifndef OMRU_TRAINER_CIFAR_SAMPLES_HPP
#define OMRU_TRAINER_CIFAR_SAMPLES_HPP

#include <cstdint>
#include <memory>

#include "cifar_format.hpp"
#include "sample_set.hpp"

namespace omru {
namespace train {

class CifarSamples final : public SampleSet {
    public:
	// Throws std::invalid_argument for no set or an inconsistent one.
	explicit CifarSamples(std::shared_ptr<const CifarSet> data);
	size_t size() const override { return data_->size(); }
	int classes() const override { return kCifarClasses; }
	int side() const override { return kCifarSide; }
	int label(size_t i) const override { return data_->labels[i]; }
	// Augmenting draws dx, dy (0..8) and the flip from `rng`, in that order.
	void load(size_t i, bool augment, SplitMix &rng, float *dst) const override;
	std::string describe() const override;

    private:
	std::shared_ptr<const CifarSet> data_;
};

// The preprocessing of one image, exposed for tests: uint8 CHW -> float CHW
// normalised with the CIFAR-10 channel means and deviations; with
// augmentation, padded by 4 (zeros), cropped at (dx, dy) in 0..8, and
// flipped horizontally when `flip`.
void preprocess_image(const uint8_t *src, float *dst, bool augment, int dx,
		      int dy, bool flip);

} // namespace train
} // namespace omru

#endif
