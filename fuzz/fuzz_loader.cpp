// fuzz_loader.cpp - a node's loader state: the steps' entries and the
// trainers' reports (loader_report, the record's loader= field), which a
// root slurmstepd reads and re-shares the node's CPUs from.
#include <cmath>

#include "fuzz_input.hpp"
#include "loader/loader_entry.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	std::string_view s = omru_fuzz::text(data, size);
	(void) omru::parse_loader_entry(s);
	for (auto r : { omru::parse_loader_report(s), omru::parse_loader_field(s) }) {
		if (!r.ok())
			continue;
		// The record's field is rounded to 4 significant digits.
		auto back = omru::parse_loader_field(omru::format_loader_field(r.value()));
		const double x = r.value().samples_s;
		omru_fuzz::require(back.ok() && std::fabs(back.value().samples_s - x) <= 5.01e-4 * x &&
					   back.value().workers == r.value().workers,
				   "a loader sample reads back, rounded");
		omru_fuzz::require(r.value().samples_s >= 1e-3 && r.value().samples_s <= 1e9,
				   "samples/s within report bounds");
	}
	return 0;
}
