// c_api_gpu.cpp - omru_gpu.h over node/gpu_usage.hpp; no exception crosses
// into slurmstepd.
#include "omru/omru_gpu.h"

#include <cstdio>
#include <exception>

#include "node/gpu_usage.hpp"

namespace {

void say(char *err, size_t len, const std::string &what)
{
	if (err && len > 0)
		std::snprintf(err, len, "%s", what.c_str());
}

} // namespace

extern "C" int omru_gpu_sample(const char *list, double *gpu_pct, double *mem_pct,
			       char *err, size_t errlen)
{
	say(err, errlen, "");
	try {
		std::vector<int> minors;
		if (list && *list && !omru::parse_gpu_minors(list, minors)) {
			say(err, errlen, std::string("GPU list '") + list + "' is not minor numbers");
			return 0;
		}
		std::vector<omru::GpuUtilization> u;
		std::string why;
		if (!omru::sample_gpu_utilization(minors, u, why)) {
			say(err, errlen, why);
			return 0;
		}
		double g = 0, m = 0;
		for (const auto &d : u)
			g += d.gpu_pct, m += d.mem_pct;
		if (gpu_pct)
			*gpu_pct = g / u.size();
		if (mem_pct)
			*mem_pct = m / u.size();
		return static_cast<int>(u.size());
	} catch (const std::exception &e) {
		say(err, errlen, e.what());
	} catch (...) {
		say(err, errlen, "unknown error");
	}
	return 0;
}
