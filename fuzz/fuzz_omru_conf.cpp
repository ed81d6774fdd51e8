// fuzz_omru_conf.cpp - omru.conf, which slurmctld reads at start and on
// reconfigure.
#include "controller/omru_conf.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	(void) omru::controller::parse_omru_conf(omru_fuzz::text(data, size), "omru.conf");
	return 0;
}
