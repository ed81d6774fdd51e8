// jpeg_folder.cpp - see jpeg_folder.hpp.  The transforms follow torchvision
// on PIL images (the ImageNet reference recipe) closely enough that a model
// trained here sees what it would see there: the same crop distribution,
// the same resampling filter, the same normalisation.  They are written as
// plain loops with no torch dependency, so the data path is tested and
// timed without libtorch.
#include "trainer/jpeg_folder.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <stdexcept>
#include <system_error>

namespace omru {
namespace train {

const float kImageNetMean[3] = { 0.485f, 0.456f, 0.406f };
const float kImageNetStd[3] = { 0.229f, 0.224f, 0.225f };

namespace {

namespace fs = std::filesystem;

constexpr int kMinSide = 8, kMaxSide = 1024;

bool hidden(const std::string &name)
{
	return name.empty() || name[0] == '.';
}

// *.jpg or *.jpeg, any case (ImageNet's files are *.JPEG).
bool jpeg_name(const std::string &name)
{
	size_t dot = name.rfind('.');
	if (dot == std::string::npos || hidden(name))
		return false;
	std::string ext = name.substr(dot + 1);
	for (char &c : ext)
		c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
	return ext == "jpg" || ext == "jpeg";
}

// The non-hidden entries of `dir` for which `keep` holds, sorted by name.
// RET false (with `ec`) when the directory cannot be listed.
template <typename Keep>
bool list_dir(const fs::path &dir, Keep keep, std::vector<std::string> &names,
	      std::error_code &ec)
{
	names.clear();
	fs::directory_iterator it(dir, ec), end;
	for (; !ec && it != end; it.increment(ec)) {
		std::string name = it->path().filename().string();
		if (!hidden(name) && keep(*it, name))
			names.push_back(name);
	}
	if (ec)
		return false;
	std::sort(names.begin(), names.end());
	return true;
}

// is_directory and is_regular_file follow symbolic links, as ImageFolder
// does: a set assembled from links to another tree reads the same.  An
// entry whose status cannot be read is skipped, not an error.
bool is_dir(const fs::directory_entry &e)
{
	std::error_code ec;
	return e.is_directory(ec);
}

bool is_jpeg_file(const fs::directory_entry &e, const std::string &name)
{
	std::error_code ec;
	return jpeg_name(name) && e.is_regular_file(ec);
}

// U[0, 1) from 53 bits.
double uniform(SplitMix &rng)
{
	return static_cast<double>(rng.next() >> 11) * (1.0 / 9007199254740992.0);
}

// Python's round(), half to even, as torchvision's int(round(...)).
int round_even(double v)
{
	return static_cast<int>(std::nearbyint(v));
}

// PIL's bilinear resampling coefficients (ImagingResample's
// precompute_coeffs with the triangle filter, support 1): output sample o
// of `out` covers input [first[o], first[o] + count[o]) of `in`, with
// weights w[o * max ...].
struct Taps {
	int max = 0;
	std::vector<int> first, count;
	std::vector<float> w;

	Taps(int in, int out)
	{
		double scale = static_cast<double>(in) / out;
		// Shrinking widens the filter to the scale: every input pixel
		// counts.  Growing keeps support 1: plain bilinear.
		double filterscale = std::max(scale, 1.0);
		double support = filterscale;
		max = static_cast<int>(std::ceil(support)) * 2 + 1;
		first.resize(out);
		count.resize(out);
		w.assign(static_cast<size_t>(out) * max, 0.0f);
		std::vector<double> k(max);
		for (int o = 0; o < out; o++) {
			double center = (o + 0.5) * scale;
			int lo = std::max(static_cast<int>(center - support + 0.5), 0);
			int hi = std::min(static_cast<int>(center + support + 0.5), in);
			int n = std::min(hi - lo, max);
			double sum = 0;
			for (int j = 0; j < n; j++) {
				double x = std::fabs((lo + j - center + 0.5) / filterscale);
				k[j] = x < 1.0 ? 1.0 - x : 0.0;
				sum += k[j];
			}
			first[o] = lo;
			count[o] = n;
			for (int j = 0; j < n; j++)
				w[static_cast<size_t>(o) * max + j] =
					static_cast<float>(sum > 0 ? k[j] / sum : 0.0);
		}
	}
};

// acc[0 .. n) += w * row[0 .. n), in blocks of 8: GCC's -O2 vectorises a
// loop of known count but not one that needs a remainder loop.
template <typename T>
void add_scaled(float *__restrict acc, const T *__restrict row, float w, size_t n)
{
	size_t k = 0;
	for (; k + 8 <= n; k += 8)
		for (int i = 0; i < 8; i++)
			acc[k + i] += w * row[k + i];
	for (; k < n; k++)
		acc[k] += w * row[k];
}

// Row pass: output row o (of ty's outputs) is the weighted sum of input
// rows first[o] .. first[o] + count[o] - 1, each `n` values, input rows
// `stride` apart.  Contiguous, hence vectorised.
template <typename T>
void resample_rows(const T *in, size_t stride, const Taps &ty, size_t n, float *out)
{
	for (size_t o = 0; o < ty.first.size(); o++) {
		float *acc = out + o * n;
		std::fill(acc, acc + n, 0.0f);
		const float *w = ty.w.data() + o * ty.max;
		for (int j = 0; j < ty.count[o]; j++)
			add_scaled(acc, in + (ty.first[o] + j) * stride, w[j], n);
	}
}

// Column pass over `rows` rows of interleaved RGB, input rows `stride`
// apart: output pixel o of a row is the weighted sum of input pixels
// first[o] .. first[o] + count[o] - 1 of tx.  Output rows are packed.
template <typename T>
void resample_columns(const T *in, size_t stride, int rows, const Taps &tx, float *out)
{
	const size_t side = tx.first.size();
	for (int r = 0; r < rows; r++) {
		const T *row = in + r * stride;
		float *dst = out + r * side * 3;
		for (size_t o = 0; o < side; o++) {
			const T *p = row + 3 * tx.first[o];
			const float *w = tx.w.data() + o * tx.max;
			float a0 = 0, a1 = 0, a2 = 0;
			for (int j = 0; j < tx.count[o]; j++, p += 3) {
				a0 += w[j] * p[0];
				a1 += w[j] * p[1];
				a2 += w[j] * p[2];
			}
			dst[3 * o] = a0;
			dst[3 * o + 1] = a1;
			dst[3 * o + 2] = a2;
		}
	}
}

} // namespace

CropBox random_resized_crop_box(int width, int height, SplitMix &rng)
{
	const double area = static_cast<double>(width) * height;
	const double min_ratio = 3.0 / 4.0, max_ratio = 4.0 / 3.0;
	const double log_lo = std::log(min_ratio), log_hi = std::log(max_ratio);
	for (int attempt = 0; attempt < 10; attempt++) {
		double target = area * (0.08 + (1.0 - 0.08) * uniform(rng));
		double aspect = std::exp(log_lo + (log_hi - log_lo) * uniform(rng));
		int w = round_even(std::sqrt(target * aspect));
		int h = round_even(std::sqrt(target / aspect));
		if (0 < w && w <= width && 0 < h && h <= height) {
			CropBox b;
			b.w = w;
			b.h = h;
			// torchvision draws the top first.
			b.y = static_cast<int>(rng.below(static_cast<uint32_t>(height - h + 1)));
			b.x = static_cast<int>(rng.below(static_cast<uint32_t>(width - w + 1)));
			return b;
		}
	}
	// Only a very long or very tall image gets here (no box of a tenth of
	// its area fits with a ratio in range): the central crop with the
	// nearest allowed ratio.
	CropBox b;
	double in_ratio = static_cast<double>(width) / height;
	b.w = width;
	b.h = height;
	if (in_ratio < min_ratio)
		b.h = std::clamp(round_even(width / min_ratio), 1, height);
	else if (in_ratio > max_ratio)
		b.w = std::clamp(round_even(height * max_ratio), 1, width);
	b.x = (width - b.w) / 2;
	b.y = (height - b.h) / 2;
	return b;
}

CropBox centre_crop_box(int width, int height)
{
	CropBox b;
	b.w = b.h = std::max(1, round_even(0.875 * std::min(width, height)));
	b.x = round_even((width - b.w) / 2.0);
	b.y = round_even((height - b.h) / 2.0);
	return b;
}

void resize_normalise(const RgbImage &img, const CropBox &box, int side,
		      bool flip, float *dst)
{
	if (box.w <= 0 || box.h <= 0 || box.x < 0 || box.y < 0 ||
	    box.x + box.w > img.width || box.y + box.h > img.height || side <= 0 ||
	    img.pixels.size() != static_cast<size_t>(img.width) * img.height * 3)
		throw std::invalid_argument(
			"resize_normalise: box " + std::to_string(box.w) + "x" +
			std::to_string(box.h) + "+" + std::to_string(box.x) + "+" +
			std::to_string(box.y) + " is not inside a " +
			std::to_string(img.width) + "x" + std::to_string(img.height) +
			" image, or side " + std::to_string(side) + " is not positive");
	// Separable, in whichever order does less work.  The column pass
	// (along a row, 3 interleaved channels, scalar) costs about four times
	// what the vectorised row pass costs a value, so when the box is much
	// taller than the output (shrinking) the rows go first and the column
	// pass runs on `side` rows instead of box.h.  Either way the result is
	// `hwc`, side x side x 3; the coefficients are computed once per
	// image, not per pixel.
	Taps tx(box.w, side), ty(box.h, side);
	const size_t stride = static_cast<size_t>(img.width) * 3;
	const uint8_t *origin = img.pixels.data() + box.y * stride + static_cast<size_t>(box.x) * 3;
	const size_t out3 = static_cast<size_t>(side) * 3, box3 = static_cast<size_t>(box.w) * 3;
	double rows_first = 0.25 * ty.max * side * box3 + 3.0 * tx.max * side * side;
	double cols_first = 3.0 * tx.max * box.h * side + 0.25 * ty.max * side * out3;
	std::vector<float> tmp, hwc(side * out3);
	if (rows_first < cols_first) {
		tmp.resize(side * box3);
		resample_rows(origin, stride, ty, box3, tmp.data());
		resample_columns(tmp.data(), box3, side, tx, hwc.data());
	} else {
		tmp.resize(box.h * out3);
		resample_columns(origin, stride, box.h, tx, tmp.data());
		resample_rows(tmp.data(), out3, ty, out3, hwc.data());
	}

	// v / 255 - mean over std, as one multiply-add, into CHW.
	float mul[3], add[3];
	for (int c = 0; c < 3; c++) {
		mul[c] = 1.0f / (255.0f * kImageNetStd[c]);
		add[c] = -kImageNetMean[c] / kImageNetStd[c];
	}
	const size_t plane = static_cast<size_t>(side) * side;
	for (int y = 0; y < side; y++) {
		const float *in = hwc.data() + y * out3;
		for (int c = 0; c < 3; c++) {
			float *out = dst + c * plane + static_cast<size_t>(y) * side;
			if (flip)
				for (int x = 0; x < side; x++)
					out[side - 1 - x] = in[3 * x + c] * mul[c] + add[c];
			else
				for (int x = 0; x < side; x++)
					out[x] = in[3 * x + c] * mul[c] + add[c];
		}
	}
}

JpegFolder::JpegFolder(const std::string &dir, int side) : dir_(dir), side_(side)
{
	if (side < kMinSide || side > kMaxSide)
		throw std::invalid_argument("JPEG folder " + dir + ": image side " +
					    std::to_string(side) + " is not " +
					    std::to_string(kMinSide) + ".." +
					    std::to_string(kMaxSide));
	std::error_code ec;
	auto classes = [](const fs::directory_entry &e, const std::string &) {
		return is_dir(e);
	};
	if (!list_dir(dir, classes, class_names_, ec))
		throw std::runtime_error(dir + ": cannot list the JPEG folder: " +
					 ec.message());
	if (class_names_.empty())
		throw std::runtime_error(dir + ": no class directories (an ImageNet-style "
					       "folder has one sub-directory of .jpg/.jpeg files per class)");
	std::vector<std::string> files;
	for (size_t c = 0; c < class_names_.size(); c++) {
		fs::path cdir = fs::path(dir) / class_names_[c];
		if (!list_dir(cdir, is_jpeg_file, files, ec))
			throw std::runtime_error(cdir.string() + ": cannot list: " +
						 ec.message());
		for (const std::string &f : files) {
			paths_.push_back((cdir / f).string());
			labels_.push_back(static_cast<int>(c));
		}
	}
	if (paths_.empty())
		throw std::runtime_error(dir + ": no .jpg or .jpeg files in its " +
					 std::to_string(class_names_.size()) +
					 " class directories");
}

bool JpegFolder::looks_like(const std::string &dir)
{
	try {
		std::error_code ec;
		fs::directory_iterator it(dir, ec), end;
		for (; !ec && it != end; it.increment(ec)) {
			std::string name = it->path().filename().string();
			if (hidden(name) || !is_dir(*it))
				continue;
			std::error_code ec2;
			fs::directory_iterator f(it->path(), ec2);
			for (; !ec2 && f != end; f.increment(ec2))
				if (is_jpeg_file(*f, f->path().filename().string()))
					return true;
		}
	} catch (...) { // bad_alloc: say no rather than throw
	}
	return false;
}

void JpegFolder::load(size_t i, bool augment, SplitMix &rng, float *dst) const
{
	if (i >= paths_.size())
		throw std::out_of_range(describe() + ": no sample " + std::to_string(i));
	const std::string &p = paths_[i];
	std::vector<uint8_t> bytes = read_file_bytes(p);
	RgbImage img = decode_jpeg(bytes.data(), bytes.size(), p);
	CropBox box;
	bool flip = false;
	if (augment) {
		box = random_resized_crop_box(img.width, img.height, rng);
		flip = (rng.next() >> 63) != 0;
	} else {
		box = centre_crop_box(img.width, img.height);
	}
	resize_normalise(img, box, side_, flip, dst);
}

std::string JpegFolder::describe() const
{
	return "JPEG folder " + dir_ + ": " + std::to_string(paths_.size()) +
	       " images, " + std::to_string(class_names_.size()) + " classes, side " +
	       std::to_string(side_);
}

} // namespace train
} // namespace omru
