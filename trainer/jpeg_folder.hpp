// jpeg_folder.hpp - an ImageNet-style folder of JPEG files as a SampleSet:
// the layout of torchvision's ImageFolder (one sub-directory per class),
// each image read and decoded when it is loaded, then transformed as the
// torchvision ImageNet recipe does: RandomResizedCrop + RandomHorizontalFlip
// for training, a centre crop for evaluation, ImageNet normalisation.
#ifndef OMRU_TRAINER_JPEG_FOLDER_HPP
#define OMRU_TRAINER_JPEG_FOLDER_HPP

#include <cstddef>
#include <string>
#include <vector>

#include "jpeg_codec.hpp"
#include "sample_set.hpp"

namespace omru {
namespace train {

class JpegFolder final : public SampleSet {
    public:
	// Every sub-directory of `dir` is a class, labelled 0..C-1 in the
	// byte order of the names (as ImageFolder sorts them, so a train and
	// a val folder with the same class names agree on labels, even when a
	// class has no images); its files named *.jpg or *.jpeg (any case) are
	// its images, in name order.  Other files, nested directories and
	// names starting with '.' are ignored.  Only paths are kept: every
	// load() reads and decodes its file, the real cost of ImageNet
	// training.  Throws std::invalid_argument for `side` outside 8..1024,
	// std::runtime_error naming `dir` when it cannot be listed, has no
	// class directories or no images.
	JpegFolder(const std::string &dir, int side);

	// True when `dir` has a (non-hidden) sub-directory holding a .jpg or
	// .jpeg file: how omru-train's --data tells this layout from a CIFAR-10
	// binary directory.  Never throws; false for a missing directory.
	static bool looks_like(const std::string &dir);

	size_t size() const override { return paths_.size(); }
	int classes() const override { return static_cast<int>(class_names_.size()); }
	int side() const override { return side_; }
	int label(size_t i) const override { return labels_[i]; }
	// Augmenting draws the crop (random_resized_crop_box), then the flip
	// (one next(), its top bit), from `rng`; evaluation draws nothing.
	void load(size_t i, bool augment, SplitMix &rng, float *dst) const override;
	// "JPEG folder DIR: N images, C classes, side S".
	std::string describe() const override;

	const std::string &path(size_t i) const { return paths_[i]; }
	const std::vector<std::string> &class_names() const { return class_names_; }

    private:
	std::string dir_;
	int side_;
	std::vector<std::string> class_names_;
	std::vector<std::string> paths_;
	std::vector<int> labels_;
};

// The pieces of load(), exposed for tests.

// A crop: columns [x, x + w), rows [y, y + h) of the image.
struct CropBox {
	int x = 0, y = 0, w = 0, h = 0;
};

// torchvision's RandomResizedCrop.get_params(scale=(0.08, 1), ratio=(3/4,
// 4/3)): up to 10 draws of an area fraction and a log-uniform aspect ratio
// (then, when the box fits, its top and left); else the centre crop with
// the image's aspect ratio clamped to [3/4, 4/3].
CropBox random_resized_crop_box(int width, int height, SplitMix &rng);

// The evaluation crop: the centred square of side round(0.875 min(W, H)),
// ImageNet's resize-to-256, crop-224 ratio.
CropBox centre_crop_box(int width, int height);

// Resizes `box` of `img` to side x side with PIL's bilinear filter (what
// torchvision uses on PIL images: half-pixel centres, a triangle filter
// widened by the scale factor when shrinking, so a 4x reduction averages
// instead of aliasing; growing, it is plain bilinear with
// align_corners=false), mirrors it left-right when `flip`, and writes it
// normalised with the ImageNet channel means and deviations to `dst`,
// 3 x side x side floats, CHW: (v / 255 - mean[c]) / std[c].
void resize_normalise(const RgbImage &img, const CropBox &box, int side,
		      bool flip, float *dst);

// The ImageNet channel statistics (RGB) used by resize_normalise.
extern const float kImageNetMean[3];
extern const float kImageNetStd[3];

} // namespace train
} // namespace omru

#endif
