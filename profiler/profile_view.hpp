// profile_view.hpp - what omru-profile shows an admin: which models the
// store and the site's files know, per user (list), and for one model the
// rows behind it and the curve the planner fits from them for that user's
// jobs, with how sure each number is (show).  Built from the same pieces
// slurmctld plans with (controller/profile_books.hpp, profile/speed_model.hpp),
// so what is shown is what is planned.
#ifndef OMRU_PROFILER_PROFILE_VIEW_HPP
#define OMRU_PROFILER_PROFILE_VIEW_HPP

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "controller/site_profiles.hpp"
#include "model/cluster.hpp"
#include "profile/speed_model.hpp"
#include "profile/profile_store.hpp"

namespace omru {
namespace profiler {

// Which rows to show: one user's (and the site's, which price that user's
// jobs too), only the site's, or everyone's.
struct Who {
	enum class Kind { Everyone, User, Site } kind = Kind::Everyone;
	uint32_t uid = 0; // Kind::User
};

// One (owner, model) of the store, or one model of the site's files.
struct ModelLine {
	std::string owner; // user name, "(site)", or "(file)" for ProfileFile=
	uint32_t uid = kSiteUid;
	std::string model;
	size_t rows = 0;
	std::vector<int> gpus;            // distinct counts, ascending
	std::vector<std::string> sources; // distinct, as source_name or "file"
	int64_t newest = 0;               // 0: no time (file rows)
	double correction = 1;            // of the site rows, for this user
};

std::vector<ModelLine> list_models(const ProfileStore &store,
				   const controller::SiteProfiles &site, Who who);
void write_list(std::ostream &out, const std::vector<ModelLine> &lines, bool json);

struct ShownRow {
	std::string owner;
	int gpus = 0, nodes = 0; // nodes 0: packed
	double epoch_s = 0;
	std::string source;
	int64_t when = 0;
	uint32_t job_id = 0;
};

struct CurvePoint {
	int gpus = 0, nodes = 0;
	double epoch_s = 0;
	double speedup = 0; // over 1 GPU, by the curve
	Confidence confidence = Confidence::Extrapolated;
};

struct ModelView {
	std::string model;
	uint32_t uid = kSiteUid; // whose jobs the curve prices
	std::vector<ShownRow> rows;
	double correction = 1;
	// The loader workers per task the user's jobs of the model need
	// (LoaderCpus=), and when that was learned; 0: unknown.
	int loader_need = 0;
	int64_t loader_when = 0;
	// What the user's jobs of the model lost beside other models (the
	// store's beside lines; the plan mixes them into ColocationFile='s
	// prices for that user's jobs, controller/pair_prices.hpp).
	std::vector<BesideRow> beside;
	// Its solo signals as the user's nodes sampled them (jobs alone).
	std::optional<SignalsRow> signals;
	Cluster cluster;
	std::vector<CurvePoint> curve; // packed, 1..cluster.total_gpus()
};

// The GPUs of the curve: `cluster` when given, else nodes of 8 GPUs,
// enough of them for the largest measured count and span.  Nothing when
// no row (user's, site's, file's) names the model.
std::optional<ModelView> view_model(const ProfileStore &store,
				    const controller::SiteProfiles &site, uint32_t uid,
				    const std::string &model,
				    const std::optional<Cluster> &cluster);
void write_view(std::ostream &out, const ModelView &v, bool json);

// "2026-11-22T12:00:00", local time, as sacct writes times; "-" for 0.
std::string local_time(int64_t unix_s);

} // namespace profiler
} // namespace omru

#endif
