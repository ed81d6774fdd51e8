// job_options.hpp - parsing and validation of a training job's --omru-*
// options.  Pure C++, no Slurm: the SPANK glue calls it where the user types
// the options, the select plugin calls it again on what reaches slurmctld.
#ifndef OMRU_CORE_JOB_OPTIONS_HPP
#define OMRU_CORE_JOB_OPTIONS_HPP

#include <cstdint>
#include <string>
#include <string_view>

#include "omru/omru.h"

namespace omru {

// Either a value or the message that says what was wrong and what is allowed.
template <typename T> class Parsed {
    public:
	Parsed(T value) : ok_(true), value_(std::move(value)) {}
	static Parsed fail(std::string msg)
	{
		Parsed p;
		p.error_ = std::move(msg);
		return p;
	}
	bool ok() const { return ok_; }
	const T &value() const { return value_; }
	const std::string &error() const { return error_; }

    private:
	Parsed() = default;
	bool ok_ = false;
	T value_{};
	std::string error_;
};

struct GpuRange {
	uint32_t min = 0;
	uint32_t max = 0;
};

Parsed<std::string> parse_model(std::string_view value);
Parsed<double> parse_epochs(std::string_view value);
// max_allowed: the site's cap (plugstack max_gpus), <= OMRU_GPUS_LIMIT.
Parsed<GpuRange> parse_gpus_range(std::string_view value, uint32_t max_allowed);
Parsed<omru_profile_mode_t> parse_profile_mode(std::string_view value);

// Why --omru-elastic cannot be taken with the other options ("" if it can,
// or was not given): it needs epochs and a GPU range to resize within.
std::string elastic_problem(const omru_job_options_t &o);

// Rebuilds options from "NAME=value" strings (a job's spank_job_env).
Parsed<omru_job_options_t> job_options_from_env(const char *const *env,
						size_t count);

std::string format_job_options(const omru_job_options_t &opts);

} // namespace omru

#endif
