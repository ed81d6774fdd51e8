// c_boundary.hpp - what every extern "C" entry point of the core uses: an
// exception escaping into slurmctld or slurmstepd would abort the daemon,
// so each body runs inside guarded(), and messages go into the caller's
// buffer with put().
#ifndef OMRU_C_BOUNDARY_HPP
#define OMRU_C_BOUNDARY_HPP

#include <cstdio>
#include <exception>
#include <string>

#include "job_options.hpp"
#include "omru/omru.h"

namespace omru {

// Copies msg into buf (NUL-terminated, truncated) when there is one.
inline void put(char *buf, size_t len, const std::string &msg)
{
	if (!buf || len == 0)
		return;
	std::snprintf(buf, len, "%s", msg.c_str());
}

// Runs `body` (which returns an omru_* code), turning any exception into
// OMRU_EINTERNAL with a message instead of letting it cross into C.
template <typename F> int guarded(char *err, size_t errlen, F body)
{
	try {
		return body();
	} catch (const std::exception &e) {
		put(err, errlen, std::string("internal error: ") + e.what());
	} catch (...) {
		put(err, errlen, "internal error");
	}
	return OMRU_EINTERNAL;
}

template <typename T> int fail_with(const Parsed<T> &r, char *err, size_t errlen)
{
	put(err, errlen, r.error());
	return OMRU_EINVAL;
}

} // namespace omru

#endif
