// cifar_format.cpp - see cifar_format.hpp.  The reader and writer keep the
// byte layout of the CIFAR-10 binary version exactly (so the real data set
// and ours are interchangeable), check everything they read, and write
// atomically so a reader never sees half a file.  The synthetic set is
// built from its own generator, not from std:: distributions, whose output
// differs between standard libraries: the same seed gives the same bytes
// everywhere.
#include "trainer/cifar_format.hpp"
#include "trainer/splitmix.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <system_error>

namespace omru {
namespace train {
namespace {

namespace fs = std::filesystem;

std::runtime_error file_error(const std::string &path, const std::string &msg)
{
	return std::runtime_error(path + ": " + msg);
}

std::string str(uintmax_t v)
{
	return std::to_string(v);
}

std::string join(const std::string &dir, const std::string &name)
{
	return (fs::path(dir) / name).string();
}

std::string train_file(int k) // 0-based
{
	return "data_batch_" + std::to_string(k + 1) + ".bin";
}

const char kTestFile[] = "test_batch.bin";

// Appends the records of `path` to `set`.
void append_file(const std::string &path, CifarSet &set)
{
	std::error_code ec;
	// file_size() refuses a directory, which fopen() would accept.
	uintmax_t bytes = fs::file_size(path, ec);
	if (ec)
		throw file_error(path, "cannot read: " + ec.message());
	if (bytes % kCifarRecordBytes != 0)
		throw file_error(path, str(bytes) +
			" bytes is not a whole number of 3073-byte records: record " +
			str(bytes / kCifarRecordBytes) + " is truncated (" +
			str(bytes % kCifarRecordBytes) + " bytes)");
	std::vector<uint8_t> raw(bytes);
	FILE *f = std::fopen(path.c_str(), "rb");
	if (!f)
		throw file_error(path, std::string("cannot open: ") +
					       std::strerror(errno));
	size_t got = std::fread(raw.data(), 1, raw.size(), f);
	int err = std::ferror(f) ? errno : 0;
	std::fclose(f);
	if (got != raw.size()) // a read error, or the file shrank meanwhile
		throw file_error(path, "read " + str(got) + " of " + str(bytes) +
			" bytes" + (err ? ": " + std::string(std::strerror(err)) : ""));

	size_t n = bytes / kCifarRecordBytes, first = set.size();
	set.labels.resize(first + n);
	set.images.resize((first + n) * kCifarImageBytes);
	for (size_t i = 0; i < n; i++) {
		const uint8_t *rec = raw.data() + i * kCifarRecordBytes;
		if (rec[0] >= kCifarClasses)
			throw file_error(path, "record " + str(i) + ": label " +
				str(rec[0]) + " is not 0..9");
		set.labels[first + i] = rec[0];
		std::memcpy(&set.images[(first + i) * kCifarImageBytes],
			    rec + 1, kCifarImageBytes);
	}
}

void write_all(int fd, const uint8_t *p, size_t n)
{
	while (n > 0) {
		ssize_t w = ::write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			throw std::system_error(errno, std::generic_category());
		p += w;
		n -= static_cast<size_t>(w);
	}
}

using Rng = SplitMix;

// One colour per class, far enough apart that colour alone gets a model
// started, close enough (with the per-image jitter below) that it needs
// the pattern to finish.
const uint8_t kPalette[kCifarClasses][3] = {
	{ 190, 70, 70 },  { 70, 160, 70 },   { 70, 90, 190 },
	{ 190, 180, 70 }, { 170, 80, 180 },  { 70, 170, 180 },
	{ 210, 130, 60 }, { 128, 128, 128 }, { 120, 90, 60 },
	{ 150, 190, 220 },
};

// The class-specific texture at (x, y) (already shifted): true on the
// bright half.  Stripes of two periods in two directions, diagonals,
// checkers of two sizes, a grid and rings: a 3x3 convolution sees the
// difference, a colour histogram does not.
bool pattern(int cls, int x, int y)
{
	switch (cls) {
	case 0: return (y / 2) & 1;             // horizontal, period 4
	case 1: return (x / 2) & 1;             // vertical, period 4
	case 2: return ((x + y) / 3) & 1;       // diagonal
	case 3: return ((x / 4) + (y / 4)) & 1; // checker 4
	case 4: return (y / 4) & 1;             // horizontal, period 8
	case 5: return (x / 4) & 1;             // vertical, period 8
	case 6: return ((x - y + 96) / 3) & 1;  // anti-diagonal
	case 7: return ((x / 2) + (y / 2)) & 1; // checker 2
	case 8: return x % 6 == 0 || y % 6 == 0; // grid
	default: {                              // rings
		// Centred at (19, 19) before the shift: 12..19 after it.
		int dx = x - 19, dy = y - 19;
		int r2 = dx * dx + dy * dy, r = 0;
		while ((r + 1) * (r + 1) <= r2)
			r++;
		return (r / 3) & 1;
	}
	}
}

uint8_t clamp_pixel(float v)
{
	return static_cast<uint8_t>(std::min(255.0f, std::max(0.0f, v + 0.5f)));
}

// One image of class `cls`.  The pattern's phase moves by up to 7 pixels,
// so the model must learn the texture, not fixed pixel positions; colour
// (+-60 per channel) and contrast vary, so neither the mean colour nor the
// pattern alone is enough.
void draw_image(Rng &rng, int cls, uint8_t *img)
{
	constexpr int S = kCifarSide;
	int sx = static_cast<int>(rng.below(8));
	int sy = static_cast<int>(rng.below(8));
	float base[3];
	for (int c = 0; c < 3; c++)
		base[c] = kPalette[cls][c] + 60.0f * rng.sym();
	float amp = 12.0f + 14.0f * (rng.sym() + 1.0f);
	for (int y = 0; y < S; y++)
		for (int x = 0; x < S; x++) {
			float v = pattern(cls, x + sx, y + sy) ? amp : -amp;
			for (int c = 0; c < 3; c++) {
				// About Gaussian, sd 30: a sum of uniforms.
				float noise = 26.0f * (rng.sym() + rng.sym() +
						       rng.sym() + rng.sym());
				img[(c * S + y) * S + x] =
					clamp_pixel(base[c] + v + noise);
			}
		}
}

} // namespace

CifarSet read_cifar_file(const std::string &path)
{
	CifarSet set;
	append_file(path, set);
	return set;
}

CifarSet read_cifar_dir(const std::string &dir, bool train)
{
	CifarSet set;
	if (!train) {
		append_file(join(dir, kTestFile), set);
		return set;
	}
	for (int k = 0; k < kCifarTrainFiles; k++)
		append_file(join(dir, train_file(k)), set);
	return set;
}

void write_cifar_file(const std::string &path, const CifarSet &set,
		      size_t begin, size_t end)
{
	if (begin > end || end > set.size() ||
	    set.images.size() != set.size() * kCifarImageBytes)
		throw std::invalid_argument(path + ": records [" + str(begin) +
			", " + str(end) + ") of an inconsistent or smaller set");
	for (size_t i = begin; i < end; i++)
		if (set.labels[i] >= kCifarClasses)
			throw std::invalid_argument(path + ": record " + str(i) +
				": label " + str(set.labels[i]) + " is not 0..9");

	// Same directory as the target, so rename() is atomic; the pid keeps
	// two processes writing the same set from clobbering each other's
	// temporary.
	std::string tmp = path + ".tmp." + std::to_string(::getpid());
	int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			0644);
	if (fd < 0)
		throw file_error(path, "cannot create " + tmp + ": " +
					       std::strerror(errno));
	try {
		// Records are interleaved on disk but not in memory: assemble
		// them in chunks so a 10000-record file needs no 30 MB copy.
		constexpr size_t kChunk = 1024;
		std::vector<uint8_t> buf(kChunk * kCifarRecordBytes);
		for (size_t i = begin; i < end; i += kChunk) {
			size_t n = std::min(kChunk, end - i);
			for (size_t j = 0; j < n; j++) {
				uint8_t *rec = &buf[j * kCifarRecordBytes];
				rec[0] = set.labels[i + j];
				std::memcpy(rec + 1, set.image(i + j),
					    kCifarImageBytes);
			}
			write_all(fd, buf.data(), n * kCifarRecordBytes);
		}
		// Without fsync a crash after rename() can leave an empty file
		// under the final name.
		if (::fsync(fd) != 0)
			throw std::system_error(errno, std::generic_category());
		int rc = ::close(fd);
		fd = -1;
		if (rc != 0)
			throw std::system_error(errno, std::generic_category());
		if (::rename(tmp.c_str(), path.c_str()) != 0)
			throw std::system_error(errno, std::generic_category());
	} catch (const std::system_error &e) {
		if (fd >= 0)
			::close(fd);
		::unlink(tmp.c_str());
		throw file_error(path, "cannot write: " + e.code().message());
	}
}

void write_cifar_dir(const std::string &dir, const CifarSet &train,
		     const CifarSet &test)
{
	std::error_code ec;
	fs::create_directories(dir, ec);
	if (ec)
		throw file_error(dir, "cannot create directory: " +
					      ec.message());
	// File k gets [k n / 5, (k+1) n / 5): sizes differ by at most one, and
	// 50000 records give the real set's five files of 10000.
	size_t n = train.size(), files = kCifarTrainFiles;
	for (size_t k = 0; k < files; k++) {
		std::string f = join(dir, train_file(static_cast<int>(k)));
		write_cifar_file(f, train, n * k / files, n * (k + 1) / files);
	}
	write_cifar_file(join(dir, kTestFile), test, 0, test.size());
}

CifarSet make_synthetic_cifar(size_t n, uint64_t seed)
{
	CifarSet set;
	set.labels.resize(n);
	set.images.resize(n * kCifarImageBytes);

	// Balanced: label i % 10, shuffled (Fisher-Yates) so that the files,
	// like the real ones, do not cycle through the classes.
	for (size_t i = 0; i < n; i++)
		set.labels[i] = static_cast<uint8_t>(i % kCifarClasses);
	Rng order(seed ^ 0x6c6162656c73ULL);
	for (size_t i = n; i > 1; i--)
		std::swap(set.labels[i - 1],
			  set.labels[order.below(static_cast<uint32_t>(i))]);

	// Each image from its own stream: (seed, i) fixes its pixels.
	for (size_t i = 0; i < n; i++) {
		Rng rng(mix64(seed) ^ (i * 0x9e3779b97f4a7c15ULL + 1));
		draw_image(rng, set.labels[i],
			   set.images.data() + i * kCifarImageBytes);
	}
	return set;
}

} // namespace train
} // namespace omru
