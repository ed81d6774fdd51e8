// store_location.hpp - where omru-profile finds what slurmctld uses: the
// profile store (StateDir/profile_store, as select/omru computes it) and
// the site's profile files (omru.conf ProfileFile=), from the same
// configuration files slurmctld reads.
#ifndef OMRU_PROFILER_STORE_LOCATION_HPP
#define OMRU_PROFILER_STORE_LOCATION_HPP

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "job_options.hpp" // Parsed

namespace omru {
namespace profiler {

struct StoreLocation {
	std::string path;                       // the store file
	std::string how;                        // how the path was found, for messages
	std::vector<std::string> profile_files; // omru.conf ProfileFile=
};

// Slurm's own default when slurm.conf names no StateSaveLocation
// (src/common/read_config.h of 22.05).
constexpr const char *kDefaultStateSaveLocation = "/var/spool";

// The last StateSaveLocation= of slurm.conf's text (keys case-insensitive,
// '#' starts a comment), or "" when it has none.  Include files are not
// followed: a site that sets it there gives omru-profile --store.
std::string state_save_location(std::string_view slurm_conf_text);

/*
 * locate_store - finds the store as slurmctld does.
 * IN store - --store PATH, when given: used as it is
 * IN slurm_conf - the slurm.conf path ($SLURM_CONF, else /etc/slurm/slurm.conf)
 * RET omru.conf next to slurm.conf (missing: defaults) gives StateDir= and
 *     the profile files; without StateDir=, slurm.conf's StateSaveLocation
 *     (or Slurm's default) + "/omru".  Fails with the file and line of a
 *     bad omru.conf, or an unreadable slurm.conf when it is needed.
 */
Parsed<StoreLocation> locate_store(const std::optional<std::string> &store,
				   const std::string &slurm_conf);

} // namespace profiler
} // namespace omru

#endif
