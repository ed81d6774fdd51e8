// site_profiles.hpp - the profiles a site installs (omru.conf ProfileFile=,
// the spec's profile format, doc/sim-formats.md), merged into one table.
#ifndef OMRU_CONTROLLER_SITE_PROFILES_HPP
#define OMRU_CONTROLLER_SITE_PROFILES_HPP

#include <memory>
#include <string>
#include <vector>

#include "job_options.hpp" // Parsed
#include "profile/profile_table.hpp"

namespace omru {
namespace controller {

// Limits that keep a bad file from eating slurmctld's memory.
constexpr size_t kMaxProfileFileBytes = 16u << 20;
constexpr size_t kMaxProfileRows = 200000;

// One row of the merged table (nodes 0: packed), so the rows can be
// merged again with what jobs measured (profile_books.hpp).
struct SiteRow {
	std::string model;
	int gpus = 0, nodes = 0;
	double epoch_s = 0;
};

struct SiteProfiles {
	std::shared_ptr<const ProfileTable> table;
	std::vector<SiteRow> row_list; // the table's rows, file order
	size_t rows = 0;
	// Rows of a later file that repeat a (model, gpus, nodes) of an
	// earlier one: the first file wins; one message per file.
	std::vector<std::string> warnings;
};

// Reads every file (in order); an unreadable, oversized or malformed file
// is an error naming FILE:LINE:COL.  No files: an empty table.
Parsed<SiteProfiles> load_site_profiles(const std::vector<std::string> &files);

} // namespace controller
} // namespace omru

#endif
