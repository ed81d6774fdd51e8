// store_users.cpp - see store_users.hpp.
#include "profiler/store_users.hpp"

#include <charconv>
#include <pwd.h>
#include <vector>

#include "profile/profile_store.hpp" // kSiteUid

namespace omru {
namespace profiler {

Parsed<uint32_t> parse_user(const std::string &text)
{
	using R = Parsed<uint32_t>;
	uint32_t uid = 0;
	auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), uid);
	if (!text.empty() && ec == std::errc() && end == text.data() + text.size())
		return uid < kSiteUid ? R(uid) : R::fail("--user " + text + ": not a user id");
	std::vector<char> buf(16384);
	struct passwd pw, *found = nullptr;
	if (getpwnam_r(text.c_str(), &pw, buf.data(), buf.size(), &found) != 0 || !found)
		return R::fail("--user " + text + ": no such user");
	return R(static_cast<uint32_t>(found->pw_uid));
}

std::string user_label(uint32_t uid)
{
	if (uid == kSiteUid)
		return "(site)";
	std::vector<char> buf(16384);
	struct passwd pw, *found = nullptr;
	if (getpwuid_r(uid, &pw, buf.data(), buf.size(), &found) == 0 && found)
		return found->pw_name;
	return std::to_string(uid);
}

} // namespace profiler
} // namespace omru
