// jpeg_synth.cpp - see jpeg_synth.hpp.  Like the synthetic CIFAR-10 set
// (cifar_format.cpp), every number comes from SplitMix keyed by the seed
// and the image's index, never from std:: distributions, so a seed gives
// the same files on every platform, and any one image can be made without
// the others.
#include "trainer/jpeg_synth.hpp"
#include "trainer/jpeg_codec.hpp"
#include "trainer/splitmix.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <system_error>

namespace omru {
namespace train {
namespace {

namespace fs = std::filesystem;

constexpr int kMaxClasses = 1000;
constexpr int kMinSize = 8, kMaxSize = 4096;
constexpr double kPi = 3.14159265358979323846;

// What makes a class: fixed by the class number alone, not by the seed,
// so two sets of different seeds (a train and a val set) share classes.
struct ClassLook {
	float rgb[3];  // base colour, 0..255
	double angle;  // stripe direction, radians
	double cycles; // stripes across the image height
};

// HSV (all 0..1) to RGB 0..255.
void hsv_to_rgb(double h, double s, double v, float rgb[3])
{
	double f = h * 6.0;
	int i = static_cast<int>(f) % 6;
	f -= std::floor(f);
	double p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f));
	double r[6][3] = { { v, t, p }, { q, v, p }, { p, v, t },
			   { p, q, v }, { t, p, v }, { v, p, q } };
	for (int c = 0; c < 3; c++)
		rgb[c] = static_cast<float>(255.0 * r[i][c]);
}

ClassLook class_look(int cls)
{
	ClassLook look;
	// Hues by the golden ratio: neighbouring classes far apart on the
	// colour wheel, however many classes there are.
	double hue = std::fmod(0.1 + cls * 0.6180339887498949, 1.0);
	SplitMix rng(0x636c617373ULL + static_cast<uint64_t>(cls));
	double sat = 0.35 + 0.45 * (rng.next() >> 40) / 16777216.0;
	double val = 0.45 + 0.4 * (rng.next() >> 40) / 16777216.0;
	hsv_to_rgb(hue, sat, val, look.rgb);
	// 12 directions (15 degrees apart) and 8 frequencies: 96 textures,
	// spread so that classes of similar hue differ in texture.
	look.angle = (cls * 5 % 12) * (kPi / 12);
	look.cycles = 3 + (cls * 3 + cls / 12) % 8;
	return look;
}

uint8_t clamp_pixel(double v)
{
	return static_cast<uint8_t>(std::min(255.0, std::max(0.0, v + 0.5)));
}

// Image `index` of class `cls`: the class colour moved by up to +-40 per
// channel, sinusoidal stripes of the class's direction and frequency with
// a random amplitude and phase (the shift), and noise.  The noise is mostly
// luminance, as in photographs (grain, texture): sd 24 grey levels, plus
// sd 3.5 per channel.  At quality 90 a 500x375 image is then about 100 KB,
// near ImageNet's average file (110 KB) at its typical size.
RgbImage draw_image(int cls, size_t index, int width, int height, uint64_t seed)
{
	const ClassLook look = class_look(cls);
	SplitMix rng(mix64(seed) ^ (index * 0x9e3779b97f4a7c15ULL + 1));
	double base[3];
	for (int c = 0; c < 3; c++)
		base[c] = look.rgb[c] + 40.0 * rng.sym();
	double amp = 30.0 + 15.0 * rng.sym();
	double phase = kPi * (rng.sym() + 1.0);
	double k = 2 * kPi * look.cycles / height;
	double kx = k * std::cos(look.angle), ky = k * std::sin(look.angle);

	RgbImage img;
	img.width = width;
	img.height = height;
	img.pixels.resize(static_cast<size_t>(width) * height * 3);
	uint8_t *p = img.pixels.data();
	for (int y = 0; y < height; y++)
		for (int x = 0; x < width; x++, p += 3) {
			double v = amp * std::sin(kx * x + ky * y + phase);
			// About Gaussian: a sum of three uniforms.
			double luma = 24.0 * (rng.sym() + rng.sym() + rng.sym());
			for (int c = 0; c < 3; c++)
				p[c] = clamp_pixel(base[c] + v + luma + 6.0 * rng.sym());
		}
	return img;
}

std::string str(long v)
{
	return std::to_string(v);
}

void check_range(const char *what, long v, long min, long max)
{
	if (v < min || v > max)
		throw std::invalid_argument(std::string("synthetic JPEG folder: ") + what +
					    " " + str(v) + " is not " + str(min) + ".." +
					    str(max));
}

std::string class_dir(const std::string &dir, int cls)
{
	char name[32];
	std::snprintf(name, sizeof(name), "class_%03d", cls);
	return (fs::path(dir) / name).string();
}

std::string image_name(size_t index)
{
	char name[48];
	std::snprintf(name, sizeof(name), "img_%06zu.jpg", index);
	return name;
}

// Writes `bytes` to `path` through a temporary in the same directory
// renamed into place, so a reader (a trainer started on a set still being
// written) never sees half a file.  No fsync: a set cut short by a crash is
// made again, and 10000 fsyncs would cost more than the images.  The
// temporary's name ends in .tmp.PID, which JpegFolder does not read.
void write_atomically(const std::string &path, const std::vector<uint8_t> &bytes)
{
	std::string tmp = path + ".tmp." + std::to_string(::getpid());
	int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		throw std::runtime_error(path + ": cannot create " + tmp + ": " +
					 std::strerror(errno));
	const uint8_t *p = bytes.data();
	size_t left = bytes.size();
	int err = 0;
	while (left > 0) {
		ssize_t w = ::write(fd, p, left);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			err = errno;
			break;
		}
		p += w;
		left -= static_cast<size_t>(w);
	}
	if (::close(fd) != 0 && err == 0)
		err = errno;
	if (err == 0 && ::rename(tmp.c_str(), path.c_str()) != 0)
		err = errno;
	if (err != 0) {
		::unlink(tmp.c_str());
		throw std::runtime_error(path + ": cannot write: " + std::strerror(err));
	}
}

} // namespace

void write_synthetic_jpeg_folder(const std::string &dir, size_t images,
				 int classes, int width, int height,
				 int quality, uint64_t seed)
{
	if (images < 1)
		throw std::invalid_argument("synthetic JPEG folder: images 0 is not >= 1");
	check_range("classes", classes, 1, kMaxClasses);
	check_range("width", width, kMinSize, kMaxSize);
	check_range("height", height, kMinSize, kMaxSize);
	check_range("quality", quality, 1, 100);

	for (int c = 0; c < classes; c++) {
		std::string cdir = class_dir(dir, c);
		std::error_code ec;
		fs::create_directories(cdir, ec);
		if (ec)
			throw std::runtime_error(cdir + ": cannot create directory: " +
						 ec.message());
	}
	for (size_t k = 0; k < images; k++) {
		int cls = static_cast<int>(k % static_cast<size_t>(classes));
		RgbImage img = draw_image(cls, k, width, height, seed);
		std::string path = (fs::path(class_dir(dir, cls)) / image_name(k)).string();
		write_atomically(path, encode_jpeg(img, quality));
	}
}

} // namespace train
} // namespace omru
