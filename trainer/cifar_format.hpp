// cifar_format.hpp - the CIFAR-10 binary format (data_batch_1..5.bin,
// test_batch.bin: records of 1 label byte + 3072 pixel bytes, the red plane,
// then green, then blue, 32x32 row-major each), and a synthetic, learnable
// data set written in exactly that format (no download is possible here).
#ifndef OMRU_TRAINER_CIFAR_FORMAT_HPP
#define OMRU_TRAINER_CIFAR_FORMAT_HPP

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace omru {
namespace train {

constexpr int kCifarSide = 32;
constexpr int kCifarChannels = 3;
constexpr size_t kCifarImageBytes = 3072;  // 3 x 32 x 32
constexpr size_t kCifarRecordBytes = 3073; // label + image
constexpr int kCifarClasses = 10;
constexpr int kCifarTrainFiles = 5;

struct CifarSet {
	std::vector<uint8_t> images; // size() x 3072, as in the file
	std::vector<uint8_t> labels; // 0..9
	size_t size() const { return labels.size(); }
	const uint8_t *image(size_t i) const { return images.data() + i * kCifarImageBytes; }
};

// Reads one file; std::runtime_error naming the file (and record) when it
// cannot be read, its size is not a multiple of 3073 bytes, or a label is
// not 0..9.
CifarSet read_cifar_file(const std::string &path);
// The training set (data_batch_1.bin .. data_batch_5.bin, in order) or the
// test set (test_batch.bin) of a CIFAR-10 directory.
CifarSet read_cifar_dir(const std::string &dir, bool train);

// Writes records [begin, end) of `set` to `path` (atomically: a temporary
// file renamed into place).
void write_cifar_file(const std::string &path, const CifarSet &set,
		      size_t begin, size_t end);
// Writes `train` as data_batch_1..5.bin (split as evenly as possible) and
// `test` as test_batch.bin into `dir` (created if missing).
void write_cifar_dir(const std::string &dir, const CifarSet &train,
		     const CifarSet &test);

// A learnable synthetic set: each class has its own colour and stripe
// pattern, each image adds seeded noise and a random shift, so a small CNN
// learns it in a few hundred steps while it is not trivially separable.
CifarSet make_synthetic_cifar(size_t n, uint64_t seed);

} // namespace train
} // namespace omru

#endif
