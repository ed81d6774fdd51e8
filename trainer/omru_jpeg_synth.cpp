// omru_jpeg_synth.cpp - omru-jpeg-synth: writes a synthetic, learnable
// ImageNet-style folder of JPEG files (one sub-directory per class), for
// tests, demos and timing the JPEG data path where ImageNet cannot be
// downloaded.
#include <charconv>
#include <iostream>

#include "cli_args.hpp"
#include "jpeg_synth.hpp"

using namespace omru;

namespace {

// One of --size's numbers: all digits, 8..4096.
bool side_value(const std::string &s, long &v)
{
	auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
	return !s.empty() && ec == std::errc() && end == s.data() + s.size() && v >= 8 &&
	       v <= 4096;
}

// "WxH", strictly: "160x", "x120", "160x120x3" and "abc" are usage errors.
void parse_size(const std::string &s, long &w, long &h)
{
	size_t x = s.find('x');
	if (x == std::string::npos || !side_value(s.substr(0, x), w) ||
	    !side_value(s.substr(x + 1), h))
		throw UsageError("--size '" + s +
				 "' is not WIDTHxHEIGHT with each 8..4096 (e.g. 160x120)");
}

} // namespace

int main(int argc, char **argv)
{
	std::vector<std::string> args(argv + 1, argv + argc);
	const char usage[] = "usage: omru-jpeg-synth --out DIR [--images N] [--classes C] "
			     "[--size WxH] [--quality Q] [--seed S]\n";
	if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h")) {
		std::cout << usage
			  << "Writes N JPEG images (default 10000) of a synthetic C-class set\n"
			     "(default 10) as DIR/class_000/img_000000.jpg ..., the layout of\n"
			     "ImageNet and torchvision's ImageFolder, which omru-train --data\n"
			     "recognises. Each class has its own colour and stripes; each image\n"
			     "adds a shift and noise, so the files cost what photographs of the\n"
			     "same size (default 160x120, quality 90) cost to decode.\n";
		return 0;
	}
	try {
		CliArgs a(args, { { "out", true }, { "images", true }, { "classes", true },
				  { "size", true }, { "quality", true }, { "seed", true } });
		std::string dir = a.required("out");
		long images = a.integer("images", 10000, 1, 100000000);
		long classes = a.integer("classes", 10, 1, 1000);
		long w = 160, h = 120;
		if (auto size = a.get("size"))
			parse_size(*size, w, h);
		long quality = a.integer("quality", 90, 1, 100);
		uint64_t seed = static_cast<uint64_t>(a.integer("seed", 1, 0, 1L << 62));
		train::write_synthetic_jpeg_folder(dir, static_cast<size_t>(images),
						   static_cast<int>(classes), static_cast<int>(w),
						   static_cast<int>(h), static_cast<int>(quality),
						   seed);
		std::cout << "omru-jpeg-synth: wrote " << images << " images in " << classes
			  << " classes (" << w << "x" << h << ", quality " << quality
			  << ") to " << dir << "\n";
		return 0;
	} catch (const UsageError &e) {
		std::cerr << "omru-jpeg-synth: " << e.what() << "\n" << usage;
		return 2;
	} catch (const std::exception &e) {
		std::cerr << "omru-jpeg-synth: " << e.what() << "\n";
		return 1;
	}
}
