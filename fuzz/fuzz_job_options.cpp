// fuzz_job_options.cpp - the --omru-* option values and a job's option
// environment (spank_job_env, NAME=value lines), as spank_omru and
// select/omru read them from a user's job.
#include "fuzz_input.hpp"
#include "job_options.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	std::string_view s = omru_fuzz::text(data, size);
	(void) omru::parse_model(s);
	if (auto e = omru::parse_epochs(s); e.ok())
		omru_fuzz::require(e.value() > 0, "epochs > 0");
	if (auto r = omru::parse_gpus_range(s, 64); r.ok())
		omru_fuzz::require(r.value().min >= 1 && r.value().min <= r.value().max &&
					   r.value().max <= 64,
				   "a GPU range within 1..max_gpus");
	(void) omru::parse_profile_mode(s);
	std::vector<std::string> env = omru_fuzz::lines(s);
	std::vector<const char *> ptrs;
	for (const std::string &e : env)
		ptrs.push_back(e.c_str());
	if (auto o = omru::job_options_from_env(ptrs.data(), ptrs.size()); o.ok())
		(void) omru::format_job_options(o.value());
	return 0;
}
