// fuzz_state_files.cpp - slurmctld's own state files (plan_state,
// resize_state), read back at start: what loads is written back the same.
#include "controller/plan_state.hpp"
#include "controller/resize_state.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	using namespace omru::controller;
	std::string s(omru_fuzz::text(data, size));
	if (auto p = parse_plan_state(s, "plan_state"); p.ok()) {
		std::string once = format_plan_state(p.value());
		auto again = parse_plan_state(once, "plan_state");
		omru_fuzz::require(again.ok() && format_plan_state(again.value()) == once,
				   "plan_state reads back");
	}
	if (auto r = parse_resize_state(s, "resize_state"); r.ok()) {
		std::string once = format_resize_state(r.value());
		auto again = parse_resize_state(once, "resize_state");
		omru_fuzz::require(again.ok() && format_resize_state(again.value()) == once,
				   "resize_state reads back");
	}
	return 0;
}
