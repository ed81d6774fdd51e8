// fuzz_profile_store.cpp - the profile store file (StateDir/profile_store),
// which slurmctld and omru-profile load: what loads is written back exactly
// and stays within the store's bounds.
#include "fuzz_input.hpp"
#include "profile/profile_store.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	using omru::profiler::ProfileStore;
	auto st = ProfileStore::parse(omru_fuzz::text(data, size), "profile_store");
	if (!st.ok())
		return 0;
	std::string once = st.value().serialize();
	auto again = ProfileStore::parse(once, "profile_store");
	omru_fuzz::require(again.ok() && again.value().serialize() == once,
			   "the store reads back exactly");
	for (uint32_t u : st.value().users())
		omru_fuzz::require(st.value().models(u).size() <= omru::profiler::StoreLimits{}.models_per_user ||
					   u == omru::profiler::kSiteUid,
				   "models per user within the bound");
	return 0;
}
