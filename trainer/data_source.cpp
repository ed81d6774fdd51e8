// data_source.cpp - see data_source.hpp.
#include "trainer/data_source.hpp"

#include <sys/stat.h>

#include <stdexcept>

#include "trainer/cifar_samples.hpp"
#include "trainer/jpeg_folder.hpp"

namespace omru {
namespace train {

std::shared_ptr<const SampleSet> open_training_set(const std::string &dir, int image_size)
{
	struct stat st;
	if (::stat((dir + "/data_batch_1.bin").c_str(), &st) == 0) {
		if (image_size != 0 && image_size != kCifarSide)
			throw std::invalid_argument(
				"--image-size " + std::to_string(image_size) + ": " + dir +
				" is a CIFAR-10 binary set, whose images are 32x32");
		return std::make_shared<CifarSamples>(
			std::make_shared<CifarSet>(read_cifar_dir(dir, true)));
	}
	if (JpegFolder::looks_like(dir))
		return std::make_shared<JpegFolder>(dir, image_size ? image_size
								    : kDefaultJpegSide);
	throw std::runtime_error(
		dir + ": neither a CIFAR-10 binary set (data_batch_1.bin ..) nor an "
		      "image folder (one sub-directory of .jpg files per class)");
}

} // namespace train
} // namespace omru
