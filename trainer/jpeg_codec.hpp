// jpeg_codec.hpp - the few libjpeg calls the JPEG data path needs: decode
// a file's bytes to interleaved RGB, encode RGB in memory, read a file.
// Every failure is a std::runtime_error that names the file, never libjpeg's
// default of printing and calling exit() in the middle of a training run,
// and a truncated file is an error, not an image with a grey lower half.
#ifndef OMRU_TRAINER_JPEG_CODEC_HPP
#define OMRU_TRAINER_JPEG_CODEC_HPP

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace omru {
namespace train {

// Interleaved RGB, row-major, 3 bytes per pixel: pixels.size() is
// 3 * width * height.
struct RgbImage {
	int width = 0, height = 0;
	std::vector<uint8_t> pixels;
};

// Decodes a baseline or progressive JPEG (grayscale, YCbCr, RGB, CMYK or
// YCCK) to RGB.  Throws std::runtime_error "NAME: cannot decode JPEG: WHY"
// for data libjpeg rejects, for data that ends early, and for corrupt
// entropy-coded data (libjpeg would fill the lost blocks with grey and only
// warn).  Harmless warnings (extraneous bytes between markers, an unknown
// JFIF revision and the like, which PIL also ignores) are not errors.
RgbImage decode_jpeg(const uint8_t *data, size_t size, const std::string &name);

// The JPEG of `img` (baseline, 4:2:0 chroma, libjpeg's standard Huffman
// tables, as cameras and PIL write) at `quality` 1..100.  Throws
// std::invalid_argument for an empty image, one whose pixels do not match
// its size, or a quality out of range.
std::vector<uint8_t> encode_jpeg(const RgbImage &img, int quality);

// The whole content of a regular file; std::runtime_error "PATH: ..." when
// it cannot be opened or read.
std::vector<uint8_t> read_file_bytes(const std::string &path);

} // namespace train
} // namespace omru

#endif
