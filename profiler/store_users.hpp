// store_users.hpp - the store's user ids as people write them: a login
// name or a number for --user, a name (or the number when the system has
// no such user any more) in listings, "(site)" for the rows shared by all.
#ifndef OMRU_PROFILER_STORE_USERS_HPP
#define OMRU_PROFILER_STORE_USERS_HPP

#include <cstdint>
#include <string>

#include "job_options.hpp" // Parsed

namespace omru {
namespace profiler {

// A login name (getpwnam) or a decimal uid below kSiteUid.
Parsed<uint32_t> parse_user(const std::string &text);
std::string user_label(uint32_t uid);

} // namespace profiler
} // namespace omru

#endif
