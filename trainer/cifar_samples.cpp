// cifar_samples.cpp - see cifar_samples.hpp.
#include "trainer/cifar_samples.hpp"

#include <algorithm>
#include <stdexcept>

namespace omru {
namespace train {
namespace {

constexpr int kPad = 4;
constexpr float kMean[3] = { 0.4914f, 0.4822f, 0.4465f };
constexpr float kStd[3] = { 0.2470f, 0.2435f, 0.2616f };

// lut[c][v] = (v / 255 - mean[c]) / std[c], for all 256 byte values.
struct Lut {
	float v[3][256];
	Lut()
	{
		for (int c = 0; c < 3; c++)
			for (int b = 0; b < 256; b++)
				v[c][b] = (b / 255.0f - kMean[c]) / kStd[c];
	}
};
const Lut kLut;

} // namespace

CifarSamples::CifarSamples(std::shared_ptr<const CifarSet> data)
	: data_(std::move(data))
{
	if (!data_ || data_->images.size() != data_->size() * kCifarImageBytes)
		throw std::invalid_argument("CIFAR samples: no data set, or an inconsistent one");
}

void CifarSamples::load(size_t i, bool augment, SplitMix &rng, float *dst) const
{
	int dx = 0, dy = 0;
	bool flip = false;
	if (augment) {
		dx = static_cast<int>(rng.below(2 * kPad + 1));
		dy = static_cast<int>(rng.below(2 * kPad + 1));
		flip = rng.next() >> 63;
	}
	preprocess_image(data_->image(i), dst, augment, dx, dy, flip);
}

std::string CifarSamples::describe() const
{
	return "CIFAR-10 binary, " + std::to_string(size()) + " images";
}

void preprocess_image(const uint8_t *src, float *dst, bool augment, int dx,
		      int dy, bool flip)
{
	constexpr int S = kCifarSide;
	if (!augment) {
		for (int c = 0; c < 3; c++) {
			const float *lut = kLut.v[c];
			for (int i = c * S * S; i < (c + 1) * S * S; i++)
				dst[i] = lut[src[i]];
		}
		return;
	}
	// Output (x, y) is the padded image's (dx + x', dy + y) with x' = x,
	// or 31 - x when flipped (crop, then flip, as torchvision's
	// RandomCrop(32, padding=4) + RandomHorizontalFlip); the padding is
	// black pixels, normalised like any other.
	for (int c = 0; c < 3; c++) {
		const float *lut = kLut.v[c];
		const uint8_t *plane = src + c * S * S;
		for (int y = 0; y < S; y++) {
			float *out = dst + (c * S + y) * S;
			int sy = dy + y - kPad;
			if (sy < 0 || sy >= S) {
				std::fill(out, out + S, lut[0]);
				continue;
			}
			const uint8_t *row = plane + sy * S;
			for (int x = 0; x < S; x++) {
				int sx = dx + (flip ? S - 1 - x : x) - kPad;
				out[x] = lut[sx >= 0 && sx < S ? row[sx] : 0];
			}
		}
	}
}

} // namespace train
} // namespace omru
