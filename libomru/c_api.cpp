// c_api.cpp - the extern "C" boundary of the core (omru/omru.h).  Every
// function catches everything: an exception escaping into slurmctld or
// slurmstepd would abort the daemon.
#include <cstdio>
#include <cstring>
#include <exception>

#include "c_boundary.hpp"
#include "job_options.hpp"
#include "spank_config.hpp"

using omru::fail_with;
using omru::guarded;
using omru::put;

extern "C" {

int omru_parse_model(const char *value, char model[OMRU_MODEL_MAX_LEN + 1],
		     char *err, size_t errlen)
{
	return guarded(err, errlen, [&] {
		auto r = omru::parse_model(value ? value : "");
		if (!r.ok())
			return fail_with(r, err, errlen);
		std::memcpy(model, r.value().c_str(), r.value().size() + 1);
		return OMRU_OK;
	});
}

int omru_parse_epochs(const char *value, double *epochs, char *err,
		      size_t errlen)
{
	return guarded(err, errlen, [&] {
		auto r = omru::parse_epochs(value ? value : "");
		if (!r.ok())
			return fail_with(r, err, errlen);
		*epochs = r.value();
		return OMRU_OK;
	});
}

int omru_parse_gpus_range(const char *value, uint32_t max_allowed,
			  uint32_t *gpus_min, uint32_t *gpus_max, char *err,
			  size_t errlen)
{
	return guarded(err, errlen, [&] {
		auto r = omru::parse_gpus_range(value ? value : "",
						max_allowed);
		if (!r.ok())
			return fail_with(r, err, errlen);
		*gpus_min = r.value().min;
		*gpus_max = r.value().max;
		return OMRU_OK;
	});
}

int omru_parse_profile_mode(const char *value, omru_profile_mode_t *mode,
			    char *err, size_t errlen)
{
	return guarded(err, errlen, [&] {
		auto r = omru::parse_profile_mode(value ? value : "");
		if (!r.ok())
			return fail_with(r, err, errlen);
		*mode = r.value();
		return OMRU_OK;
	});
}

const char *omru_profile_mode_name(omru_profile_mode_t mode)
{
	switch (mode) {
	case OMRU_PROFILE_AUTO:
		return "auto";
	case OMRU_PROFILE_OFF:
		return "off";
	case OMRU_PROFILE_FORCE:
		return "force";
	}
	return "invalid";
}

int omru_job_options_from_env(const char *const *env, size_t count,
			      omru_job_options_t *opts, char *err,
			      size_t errlen)
{
	return guarded(err, errlen, [&] {
		auto r = omru::job_options_from_env(env, count);
		if (!r.ok())
			return fail_with(r, err, errlen);
		*opts = r.value();
		return OMRU_OK;
	});
}

int omru_job_options_check(const omru_job_options_t *opts, char *err,
			   size_t errlen)
{
	return guarded(err, errlen, [&] {
		std::string why = opts ? omru::elastic_problem(*opts) : "";
		if (why.empty())
			return OMRU_OK;
		put(err, errlen, why);
		return OMRU_EINVAL;
	});
}

int omru_job_options_format(const omru_job_options_t *opts, char *buf,
			    size_t len)
{
	return guarded(nullptr, 0, [&] {
		std::string s = opts ? omru::format_job_options(*opts) : "";
		put(buf, len, s);
		return s.size() < len ? OMRU_OK : OMRU_EINVAL;
	});
}

int omru_spank_config_parse(int argc, const char *const *argv,
			    omru_spank_config_t *cfg, char *err, size_t errlen)
{
	return guarded(err, errlen, [&] {
		auto r = omru::parse_spank_config(argc, argv);
		if (!r.ok())
			return fail_with(r, err, errlen);
		*cfg = r.value();
		return OMRU_OK;
	});
}

const char *omru_core_version(void) { return OMRU_VERSION; }

} // extern "C"
