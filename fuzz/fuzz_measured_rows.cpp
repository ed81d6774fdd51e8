// fuzz_measured_rows.cpp - what a job's trainer writes: profile rows
// (OMRU_PROFILE_OUT) and metrics.jsonl, read as root by spank_omru.
#include "fuzz_input.hpp"
#include "model/measured_rows.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	std::string_view s = omru_fuzz::text(data, size);
	if (auto r = omru::measured_rows(s, "OMRU_PROFILE_OUT", "m", 64, 8); r.ok())
		for (const omru::CommentRow &row : r.value())
			omru_fuzz::require(row.gpus >= 1 && row.gpus <= 64 && row.nodes <= 8 &&
						   row.epoch_s >= 1e-4 && row.epoch_s <= 1e7,
					   "rows within the job and the report bounds");
	(void) omru::metrics_summary(s);
	return 0;
}
