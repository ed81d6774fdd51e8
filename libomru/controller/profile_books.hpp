// profile_books.hpp - which profiles price whose jobs.  The site's rows
// (omru.conf ProfileFile=, and rows an admin imported into the store with
// omru-profile) are shared by all; what a user's jobs measured (the
// profile store, profile/profile_store.hpp) prices only that user's jobs,
// so one user's numbers never steer another user's jobs.  A user with rows
// of their own gets a book of their rows first, then the site's for
// everything they did not measure; where the store keeps a correction for
// (user, model), the site rows of that model are scaled by it (a job's real
// runtime showed them wrong, controller.cpp).  Books are rebuilt when the
// store changes (its generation), not per plan.
#ifndef OMRU_CONTROLLER_PROFILE_BOOKS_HPP
#define OMRU_CONTROLLER_PROFILE_BOOKS_HPP

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "controller/plan_input.hpp"
#include "controller/site_profiles.hpp"
#include "profile/profile_store.hpp"

namespace omru {
namespace controller {

class ProfileBooks {
    public:
	// IN spread_cost: every book's SpeedModel's (omru.conf SpreadCost).
	ProfileBooks(std::shared_ptr<const ProfileTable> site_table,
		     std::vector<SiteRow> site_rows,
		     double spread_cost = kDefaultSpreadCost);

	// The store from now on (never null); books follow its generation.
	void set_store(std::shared_ptr<const profiler::ProfileStore> store);
	const profiler::ProfileStore &store() const { return *store_; }

	SpeedBook &for_user(uint32_t uid);
	// Whether `uid`'s jobs of `model` are priced from any row (theirs or
	// the site's): otherwise the job is a candidate for profiling.
	bool knows(uint32_t uid, const std::string &model);
	// Whether `uid` measured `model` at exactly `gpus` over `nodes` (or
	// packed when the row has no node count).
	bool own_row(uint32_t uid, const std::string &model, int gpus, int nodes) const;

    private:
	void refresh();
	std::shared_ptr<const ProfileTable> merged_for(uint32_t uid) const;

	std::shared_ptr<const ProfileTable> site_table_;
	std::vector<SiteRow> site_rows_;
	double spread_cost_;
	std::shared_ptr<const profiler::ProfileStore> store_;
	uint64_t generation_ = 0;
	std::unique_ptr<SpeedBook> shared_;
	std::unordered_map<uint32_t, std::unique_ptr<SpeedBook>> users_;
};

} // namespace controller
} // namespace omru

#endif
