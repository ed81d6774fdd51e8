// jpeg_synth.hpp - a synthetic, learnable ImageNet-style folder of JPEG
// files (no download is possible here), for tests, demos and for timing the
// JPEG data path: the files cost what photographs of their size cost to
// decode.
#ifndef OMRU_TRAINER_JPEG_SYNTH_HPP
#define OMRU_TRAINER_JPEG_SYNTH_HPP

#include <cstddef>
#include <cstdint>
#include <string>

namespace omru {
namespace train {

// Writes `images` JPEG files of width x height pixels at `quality` into
// dir/class_000 .. dir/class_<classes-1>/img_<k>.jpg (k the image's index,
// zero-padded to 6 digits; image k is of class k % classes, so the classes
// are balanced; every class directory is made, even one left without
// images).  Each class has its own colour and its own stripe orientation
// and frequency; each image varies the colour and contrast, shifts the
// stripes and adds per-pixel noise, which makes the JPEGs as dense as
// photographs (flat images decode several times faster).  The same seed
// gives the same bytes.  `dir` (and its parents) is created when missing;
// an existing one is kept and files of the same names replaced, each
// atomically (a temporary file renamed into place).  Throws
// std::invalid_argument naming a bad argument (images >= 1, classes
// 1..1000, width and height 8..4096, quality 1..100), std::runtime_error
// naming the path that cannot be written.
void write_synthetic_jpeg_folder(const std::string &dir, size_t images,
				 int classes, int width, int height,
				 int quality, uint64_t seed);

} // namespace train
} // namespace omru

#endif
