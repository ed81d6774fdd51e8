// profile_books.cpp - see profile_books.hpp.
#include "controller/profile_books.hpp"

#include <cstdio>
#include <set>
#include <tuple>

#include "model/csv_table.hpp"

namespace omru {
namespace controller {
namespace {

std::string exact(double v)
{
	char buf[40];
	std::snprintf(buf, sizeof(buf), "%.17g", v);
	return buf;
}

} // namespace

ProfileBooks::ProfileBooks(std::shared_ptr<const ProfileTable> site_table,
			   std::vector<SiteRow> site_rows, double spread_cost)
	: site_table_(std::move(site_table)), site_rows_(std::move(site_rows)),
	  spread_cost_(spread_cost), store_(std::make_shared<profiler::ProfileStore>())
{
	refresh();
}

void ProfileBooks::set_store(std::shared_ptr<const profiler::ProfileStore> store)
{
	if (!store)
		return;
	bool changed = store != store_ || store->generation() != generation_;
	store_ = std::move(store);
	if (changed)
		refresh();
}

void ProfileBooks::refresh()
{
	generation_ = store_->generation();
	users_.clear();
	bool site_rows_in_store = !store_->models(profiler::kSiteUid).empty();
	shared_ = std::make_unique<SpeedBook>(
		site_rows_in_store ? merged_for(profiler::kSiteUid) : site_table_,
		spread_cost_);
}

// The CSV of: the user's rows, then the store's site rows, then the site
// files' rows, each (model, gpus, nodes) from the first that has it; the
// site rows of a model the user has a correction for, scaled by it.
std::shared_ptr<const ProfileTable> ProfileBooks::merged_for(uint32_t uid) const
{
	std::string csv = "model,gpus,epoch_s,nodes\n";
	std::set<std::tuple<std::string, int, int>> seen;
	auto add = [&](const std::string &m, int g, int k, double e) {
		if (!seen.emplace(m, g, k).second)
			return;
		csv += m + "," + std::to_string(g) + "," + exact(e) + "," +
		       (k > 0 ? std::to_string(k) : "") + "\n";
	};
	auto factor = [&](const std::string &m) {
		return uid == profiler::kSiteUid ? 1.0 : store_->correction(uid, m);
	};
	if (uid != profiler::kSiteUid)
		for (const std::string &m : store_->models(uid))
			for (const profiler::StoreRow &r : store_->rows(uid, m))
				add(m, r.gpus, r.nodes, r.epoch_s);
	for (const std::string &m : store_->models(profiler::kSiteUid))
		for (const profiler::StoreRow &r : store_->rows(profiler::kSiteUid, m))
			add(m, r.gpus, r.nodes, r.epoch_s * factor(m));
	for (const SiteRow &r : site_rows_)
		add(r.model, r.gpus, r.nodes, r.epoch_s * factor(r.model));
	return std::make_shared<ProfileTable>(
		ProfileTable::from_csv(CsvTable::parse("(profile store)", csv)));
}

SpeedBook &ProfileBooks::for_user(uint32_t uid)
{
	if (uid == profiler::kSiteUid || store_->models(uid).empty())
		return *shared_;
	auto it = users_.find(uid);
	if (it == users_.end())
		it = users_.emplace(uid, std::make_unique<SpeedBook>(merged_for(uid),
								     spread_cost_))
			     .first;
	return *it->second;
}

bool ProfileBooks::knows(uint32_t uid, const std::string &model)
{
	const ProfileTable *t = for_user(uid).profiles();
	return t && t->model_id(model) >= 0;
}

bool ProfileBooks::own_row(uint32_t uid, const std::string &model, int gpus,
			   int nodes) const
{
	if (uid == profiler::kSiteUid)
		return false;
	for (const profiler::StoreRow &r : store_->rows(uid, model))
		if (r.gpus == gpus && (r.nodes == nodes || r.nodes == 0))
			return true;
	return false;
}

} // namespace controller
} // namespace omru
