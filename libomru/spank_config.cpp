// spank_config.cpp - see spank_config.hpp.
#include "spank_config.hpp"

#include <charconv>
#include <cstdio>
#include <set>
#include <string>

namespace omru {

namespace {
const char *const kDefaultRunDir = "/run/slurm-omru";
const char *const kKeys = "default_profile, max_gpus, run_dir, report_interval, "
			  "loader_share, loader_cpus, loader_max, job_dir_mb";

// An integer from lo to hi, the whole value.
bool parse_uint(std::string_view value, unsigned lo, unsigned hi, unsigned &out)
{
	unsigned v = 0;
	auto r = std::from_chars(value.data(), value.data() + value.size(), v);
	if (r.ec != std::errc() || r.ptr != value.data() + value.size() || v < lo ||
	    v > hi)
		return false;
	out = v;
	return true;
}
} // namespace

Parsed<omru_spank_config_t> parse_spank_config(int argc,
					       const char *const *argv)
{
	using R = Parsed<omru_spank_config_t>;
	omru_spank_config_t cfg{};
	cfg.default_profile = OMRU_PROFILE_AUTO;
	cfg.max_gpus = OMRU_GPUS_LIMIT;
	std::snprintf(cfg.run_dir, sizeof(cfg.run_dir), "%s", kDefaultRunDir);
	cfg.report_interval_s = 15;
	cfg.loader_share = OMRU_LOADER_SHARE_NODE;
	cfg.loader_cpus = 0;
	cfg.loader_max = OMRU_LOADER_MAX_LIMIT;
	cfg.job_dir_mb = 16;
	std::set<std::string> seen;
	for (int i = 0; i < argc; i++) {
		if (!argv || !argv[i])
			return R::fail("plugstack.conf: missing argument");
		std::string_view arg(argv[i]);
		if (arg.size() > 4096)
			return R::fail("plugstack.conf: argument too long");
		size_t eq = arg.find('=');
		if (eq == std::string_view::npos || eq == 0)
			return R::fail("plugstack.conf: '" + std::string(arg) +
				       "': expected key=value (keys: " + kKeys +
				       ")");
		std::string key(arg.substr(0, eq));
		std::string_view value = arg.substr(eq + 1);
		if (!seen.insert(key).second)
			return R::fail("plugstack.conf: " + key +
				       " given more than once");
		if (key == "default_profile") {
			auto r = parse_profile_mode(value);
			if (!r.ok())
				return R::fail("plugstack.conf: default_profile=" +
					       std::string(value) +
					       ": unknown mode (allowed: auto, "
					       "off, force)");
			cfg.default_profile = r.value();
		} else if (key == "max_gpus") {
			auto r = parse_gpus_range(value, OMRU_GPUS_LIMIT);
			if (!r.ok() || r.value().min != r.value().max ||
			    value.find('-') != std::string_view::npos)
				return R::fail("plugstack.conf: max_gpus=" +
					       std::string(value) +
					       ": expected an integer from 1 "
					       "to 1024");
			cfg.max_gpus = r.value().max;
		} else if (key == "run_dir") {
			if (value.empty() || value.front() != '/' ||
			    value.size() > OMRU_RUN_DIR_MAX ||
			    value.find("/../") != std::string_view::npos ||
			    value.find_first_of(" \t\n") != std::string_view::npos)
				return R::fail("plugstack.conf: run_dir=" +
					       std::string(value) +
					       ": expected an absolute path "
					       "without blanks or '..', at most " +
					       std::to_string(OMRU_RUN_DIR_MAX) +
					       " characters");
			std::snprintf(cfg.run_dir, sizeof(cfg.run_dir), "%.*s",
				      static_cast<int>(value.size()), value.data());
		} else if (key == "report_interval") {
			if (!parse_uint(value, 1, 3600, cfg.report_interval_s))
				return R::fail("plugstack.conf: report_interval=" +
					       std::string(value) +
					       ": expected seconds from 1 to 3600");
		} else if (key == "loader_share") {
			if (value == "node")
				cfg.loader_share = OMRU_LOADER_SHARE_NODE;
			else if (value == "job")
				cfg.loader_share = OMRU_LOADER_SHARE_JOB;
			else if (value == "off")
				cfg.loader_share = OMRU_LOADER_SHARE_OFF;
			else
				return R::fail("plugstack.conf: loader_share=" +
					       std::string(value) +
					       ": unknown mode (allowed: node, "
					       "job, off)");
		} else if (key == "loader_cpus") {
			if (!parse_uint(value, 1, OMRU_LOADER_CPUS_LIMIT, cfg.loader_cpus))
				return R::fail("plugstack.conf: loader_cpus=" +
					       std::string(value) +
					       ": expected CPUs from 1 to " +
					       std::to_string(OMRU_LOADER_CPUS_LIMIT));
		} else if (key == "loader_max") {
			if (!parse_uint(value, 1, OMRU_LOADER_MAX_LIMIT, cfg.loader_max))
				return R::fail("plugstack.conf: loader_max=" +
					       std::string(value) +
					       ": expected workers from 1 to " +
					       std::to_string(OMRU_LOADER_MAX_LIMIT));
		} else if (key == "job_dir_mb") {
			if (!parse_uint(value, 1, OMRU_JOB_DIR_MB_LIMIT, cfg.job_dir_mb))
				return R::fail("plugstack.conf: job_dir_mb=" +
					       std::string(value) +
					       ": expected MiB from 1 to " +
					       std::to_string(OMRU_JOB_DIR_MB_LIMIT));
		} else {
			return R::fail("plugstack.conf: unknown key '" + key +
				       "' (keys: " + kKeys + ")");
		}
	}
	return R{cfg};
}

} // namespace omru
