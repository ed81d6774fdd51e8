// omru_cifar_synth.cpp - omru-cifar-synth: writes a synthetic, learnable
// data set in the exact CIFAR-10 binary format (data_batch_1..5.bin,
// test_batch.bin), for tests and demos where CIFAR-10 cannot be downloaded.
#include <iostream>

#include "cifar_format.hpp"
#include "cli_args.hpp"

using namespace omru;

int main(int argc, char **argv)
{
	std::vector<std::string> args(argv + 1, argv + argc);
	const char usage[] = "usage: omru-cifar-synth --out DIR [--train N] [--test N] [--seed S]\n";
	if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h")) {
		std::cout << usage
			  << "Writes N training images (default 50000) and N test images\n"
			     "(default 10000) of a synthetic 10-class set in CIFAR-10's binary\n"
			     "format: class-specific colours and patterns plus noise.\n";
		return 0;
	}
	try {
		CliArgs a(args, { { "out", true }, { "train", true }, { "test", true }, { "seed", true } });
		std::string dir = a.required("out");
		long train = a.integer("train", 50000, 10, 10000000);
		long test = a.integer("test", 10000, 10, 10000000);
		uint64_t seed = static_cast<uint64_t>(a.integer("seed", 1, 0, 1L << 62));
		train::write_cifar_dir(dir, train::make_synthetic_cifar(train, seed),
				       train::make_synthetic_cifar(test, seed + 1));
		std::cout << "omru-cifar-synth: wrote " << train << " training and " << test
			  << " test images to " << dir << "\n";
		return 0;
	} catch (const UsageError &e) {
		std::cerr << "omru-cifar-synth: " << e.what() << "\n" << usage;
		return 2;
	} catch (const std::exception &e) {
		std::cerr << "omru-cifar-synth: " << e.what() << "\n";
		return 1;
	}
}
