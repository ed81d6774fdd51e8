// profile_store.hpp - what slurmctld knows about each model's epoch time per
// GPU count and node span, learned from jobs, with where each number came
// from and when, the model's loader demand (the data-loader workers per
// task at which its steps stop waiting for data), and what the model lost
// beside each other model its jobs shared nodes with all along (measured
// co-location slowdowns).  Keyed by (user, model):
// one user's numbers never steer another user's jobs; rows under kSiteUid
// (imported by an admin with omru-profile) are shared by all.  Bounded, so
// no job stream can grow it without limit: the oldest measurement goes
// first.  The text format is described at ProfileStore::serialize and in
// omru-profile(1), FILES.
#ifndef OMRU_PROFILE_PROFILE_STORE_HPP
#define OMRU_PROFILE_PROFILE_STORE_HPP

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "job_options.hpp" // Parsed

namespace omru {
namespace profiler {

constexpr uint32_t kSiteUid = 0xFFFFFFFFu;

enum class RowSource {
	Measured, // a job profiled itself
	Runtime,  // a finished job's real epoch time
	Site,     // imported by an admin
};
const char *source_name(RowSource s);

struct StoreRow {
	std::string model;
	int gpus = 0;
	int nodes = 0; // 0: packed (fewest nodes)
	double epoch_s = 0;
	RowSource source = RowSource::Measured;
	int64_t when = 0; // unix seconds
	uint32_t job_id = 0;
};

// What a user's jobs of a model lost beside one other model: their real
// epoch time over the curve's solo prediction, a running mean over the
// last kMaxBesideRuns jobs (so it follows a change), within [1,
// kMaxSlowdown] as the co-location table reads (colocation_table.hpp).
struct BesideRow {
	std::string neighbour; // the other job's model
	double slowdown = 1;
	int runs = 1;     // jobs averaged, 1..kMaxBesideRuns
	int64_t when = 0; // the newest job's end, unix seconds
	uint32_t job_id = 0; // the newest job
};
constexpr int kMaxBesideRuns = 8;

// A user's model's solo signals as its nodes sampled them (spank_omru,
// NVML: AdminComment gpu_use) in jobs that ran with no OMRU neighbour: GPU
// and memory-controller utilisation in percent, a running mean over the
// last kMaxBesideRuns such jobs.  The co-location predictor prices that
// user's jobs of the model from them where no pair was measured.
struct SignalsRow {
	double gpu_pct = 0, mem_pct = 0; // 0..100
	int runs = 1;
	int64_t when = 0;
	uint32_t job_id = 0;
};

// "" when the row is valid, else what is wrong: model [A-Za-z0-9._+-]{1,64},
// 1 <= gpus <= 65536, 0 <= nodes <= gpus, 0 < epoch_s <= 1e9, when >= 0.
std::string row_error(const StoreRow &r);
inline bool valid_row(const StoreRow &r) { return row_error(r).empty(); }

// A change, as a value: slurmctld queues them under its lock and a thread
// writes them to the file (store_file.hpp).
struct StoreOp {
	enum class Kind {
		AddRow,
		SetCorrection,
		SetLoaderNeed,
		AddBeside,
		AddSignals,
		Forget,
		ForgetUser,
		ForgetModel
	};
	Kind kind = Kind::AddRow;
	uint32_t uid = 0;
	StoreRow row;        // AddRow
	std::string model;   // SetCorrection, SetLoaderNeed, Forget, ForgetModel
	double factor = 1;   // SetCorrection
	int need = 0;        // SetLoaderNeed: workers per task
	int64_t when = 0;    // SetCorrection, SetLoaderNeed, AddBeside
	BesideRow beside;    // AddBeside: `runs` jobs' mean, merged into the mean kept
	SignalsRow signals;  // AddSignals: the same

	static StoreOp add_row(uint32_t uid, StoreRow r);
	static StoreOp set_correction(uint32_t uid, std::string model, double f, int64_t when);
	static StoreOp set_loader_need(uint32_t uid, std::string model, int need,
				       int64_t when);
	// A slowdown in (0, 100] (kept within [1, kMaxSlowdown]); both models
	// valid names.
	static StoreOp add_beside(uint32_t uid, std::string model, BesideRow b);
	// Percentages within [0, 100], 1..kMaxBesideRuns runs.
	static StoreOp add_signals(uint32_t uid, std::string model, SignalsRow s);
	static StoreOp forget(uint32_t uid, std::string model);
	static StoreOp forget_user(uint32_t uid);
	static StoreOp forget_model(std::string model);
};

// A loader demand is 1..kMaxLoaderNeed workers per task.
constexpr int kMaxLoaderNeed = 256;

// The bounds: rows per (user, model), models per user, users, and the
// lines of the file one user's data and the site's may take (a row, a
// correction, a loader demand and a beside measurement are a line each),
// and the models a user's model keeps a beside measurement for.  An entry with only a
// correction or a loader demand counts as a model.  Lines are at most
// kMaxStoreLineBytes, so the defaults keep a full store within the load
// cap (store_file.hpp, kMaxStoreBytes, checked there): no user, however
// many rows they report, can make the store unloadable for everyone.
struct StoreLimits {
	size_t rows_per_model = 64;
	size_t models_per_user = 64;
	size_t users = 1024;
	size_t lines_per_user = 192;
	size_t site_lines = 8192;
	size_t beside_per_model = 16;
};
// The longest line serialize() writes: "beside," (7), uid (10), model (64),
// runs and 0 (1 each), slowdown (24), the neighbour's model (64), when
// (19), job id (10), eight commas and the newline come to 209 ("row" lines
// are shorter: 157).
constexpr size_t kMaxStoreLineBytes = 216;

class ProfileStore {
    public:
	using Limits = StoreLimits;
	ProfileStore() = default;
	explicit ProfileStore(Limits l) : limits_(l) {}

	// Invalid rows, out-of-range factors and needs are ignored (RET false).
	bool apply(const StoreOp &op);

	// Sorted by gpus, then nodes.
	std::vector<StoreRow> rows(uint32_t uid, const std::string &model) const;
	std::vector<std::string> models(uint32_t uid) const;
	std::vector<uint32_t> users() const;
	double correction(uint32_t uid, const std::string &model) const;
	// The loader workers per task the model's jobs of this user need,
	// and when that was learned; 0 when unknown.
	int loader_need(uint32_t uid, const std::string &model) const;
	int64_t loader_need_when(uint32_t uid, const std::string &model) const;
	// Whether the user's rows price the model (a correction or a loader
	// demand alone is no row: such a model is still profiled).
	bool knows(uint32_t uid, const std::string &model) const;
	// The user's measurements of the model beside others, by neighbour.
	std::vector<BesideRow> beside(uint32_t uid, const std::string &model) const;
	// One of them; nullptr when the user never measured that pair.
	const BesideRow *beside(uint32_t uid, const std::string &model,
				const std::string &neighbour) const;
	// The user's solo signals of the model; nullptr when never sampled.
	const SignalsRow *signals(uint32_t uid, const std::string &model) const;
	// Whether the user measured the model's co-location: solo signals or a
	// beside measurement (no copy: the plan asks per job).
	bool measured_colocation(uint32_t uid, const std::string &model) const;
	size_t row_count() const;
	uint64_t generation() const { return generation_; }

	// The text format, round trip exact:
	//   # omru profile store v3
	//   kind,uid,model,gpus,nodes,epoch_s,source,when,job_id
	// then one line per row, correction, loader demand and beside
	// measurement, by (uid, model):
	//   row,UID,MODEL,GPUS,NODES,EPOCH_S,SOURCE,WHEN,JOB_ID
	//   correction,UID,MODEL,0,0,FACTOR,,WHEN,0
	//   loader_need,UID,MODEL,0,0,WORKERS,,WHEN,0
	//   beside,UID,MODEL,RUNS,0,SLOWDOWN,NEIGHBOUR,WHEN,JOB_ID
	//   signals,UID,MODEL,RUNS,0,GPU_PCT,MEM_PCT,WHEN,JOB_ID
	// (loader_need is new in v2, beside and signals in v3; parse reads v1
	// and v2 files too, without them).
	std::string serialize() const;
	static Parsed<ProfileStore> parse(std::string_view text, const std::string &name,
					  Limits l = {});

    private:
	struct Entry {
		std::map<std::pair<int, int>, StoreRow> rows; // (gpus, nodes)
		double factor = 1;
		int64_t factor_when = 0;
		int loader_need = 0; // 0: unknown
		int64_t loader_when = 0;
		std::map<std::string, BesideRow> beside; // by neighbour model
		std::optional<SignalsRow> signals;
		int64_t newest() const;
		// Lines it takes in the file (0: nothing left, it goes).
		size_t lines() const
		{
			return rows.size() + beside.size() + (factor != 1) + (loader_need != 0) +
			       signals.has_value();
		}
	};
	using Key = std::pair<uint32_t, std::string>;
	void enforce(uint32_t uid, const std::string &model);
	static std::map<std::string, BesideRow>::iterator oldest_beside(Entry &e);

	Limits limits_;
	std::map<Key, Entry> entries_;
	uint64_t generation_ = 0;
};

} // namespace profiler
} // namespace omru

#endif
