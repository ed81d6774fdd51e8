// fuzz_gpu_links.cpp - GPU link matrices (gres.conf Links= lines, one per
// GPU), which place jobs on best-linked GPUs.
#include "fuzz_input.hpp"
#include "policy/gpu_links.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	auto g = omru::GpuLinks::parse_gres_links(omru_fuzz::lines(omru_fuzz::text(data, size)));
	if (g.ok())
		omru_fuzz::require(g.value().size() >= 1, "a matrix has GPUs");
	return 0;
}
