// store_file.hpp - the profile store on disk (StateDir/profile_store),
// shared by slurmctld (a thread of select/omru, never its scheduling
// threads) and omru-profile.  Both change it only through merge_save: under
// an exclusive lock, read what is there, apply the changes, write it back
// atomically; so neither overwrites what the other did.
#ifndef OMRU_PROFILE_STORE_FILE_HPP
#define OMRU_PROFILE_STORE_FILE_HPP

#include <cstdint>
#include <string>
#include <vector>

#include "profile/profile_store.hpp"

namespace omru {
namespace profiler {

constexpr size_t kMaxStoreBytes = 48u << 20;
// A store full to its default bounds still loads (doc/report-bounds.md).
static_assert((StoreLimits{}.users * StoreLimits{}.lines_per_user + StoreLimits{}.site_lines) *
			      kMaxStoreLineBytes + 256 <=
		      kMaxStoreBytes,
	      "the store's per-user bounds must sum below its load cap");

// A missing file is an empty store; not a regular file, larger than
// kMaxStoreBytes, unreadable or malformed: the error (PATH:LINE: ...).
Parsed<ProfileStore> load_store(const std::string &path, ProfileStore::Limits l = {});

// Atomic: a temporary file in the same directory (0600), fsync, rename,
// fsync of the directory.  RET "" or what failed.
std::string save_store(const std::string &path, const ProfileStore &s);

// Which file is at a path, as of one moment: a writer that replaced it
// (every save is a rename of a new file) or changed it in place changes
// the stamp.  All zero: no file.
struct StoreStamp {
	uint64_t dev = 0, ino = 0, size = 0;
	int64_t mtime_ns = 0;
	bool operator==(const StoreStamp &o) const
	{
		return dev == o.dev && ino == o.ino && size == o.size &&
		       mtime_ns == o.mtime_ns;
	}
	bool operator!=(const StoreStamp &o) const { return !(*this == o); }
};
StoreStamp stamp_of(const std::string &path);

// Locks PATH.lock, loads, applies `ops` in order, saves.  A file that does
// not load (malformed, too large, unreadable) is left as it is and nothing
// is saved: the error says so.
// OUT result: the store as saved; stamp: the saved file's (taken under the
// lock, so a later writer always changes it).  RET "" or what failed
// (nothing saved).
std::string merge_save(const std::string &path, const std::vector<StoreOp> &ops,
		       ProfileStore::Limits l, ProfileStore *result,
		       std::vector<std::string> *warnings,
		       StoreStamp *stamp = nullptr);

} // namespace profiler
} // namespace omru

#endif
