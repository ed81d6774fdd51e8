// fuzz_layer_profile.cpp - a model's layer profile (LayerProfileDir=), which
// slurmctld's pipeline partitioner reads.
#include "fuzz_input.hpp"
#include "pipeline/layer_profile.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	(void) omru::pipeline::parse_layer_profile("layer.csv",
						   std::string(omru_fuzz::text(data, size)));
	return 0;
}
