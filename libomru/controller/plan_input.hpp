// plan_input.hpp - a slurmctld snapshot (snapshot.hpp) as the planner's
// input (planner/plan.hpp): one speed curve per kind of job, node
// capacities, node sets for the jobs' eligible nodes, running jobs with
// what they hold.
//
// Where the curves come from, per job:
//  - an OMRU job (--omru-model, --omru-epochs) whose model the profiles
//    know: every count of its --omru-gpus range the cluster can hold, priced
//    by the speed model (measured rows exact, other counts estimated);
//    profile=site where the planned count was measured, else estimated;
//    a model with a layer profile (LayerProfileDir=) at the time its best
//    pipeline-hybrid split takes where that beats data parallelism;
//  - an OMRU job whose model no profile knows, or without --omru-epochs:
//    its minimum count only, running for its time limit (profile=default);
//  - a plain GPU job: rigid at its own count, running for its time limit,
//    as backfill assumes.
// A job without a time limit is priced at kDefaultRuntimeS.  Jobs without a
// profile pay PlanSettings::spread_cost per node beyond the fewest.
//
// Time limits: Slurm kills a job at its limit, so a profiled pending job is
// offered only the counts and spreads whose predicted runtime, with the
// correction margin (at most 1), ends within it; if none does, it is
// planned at the count it asked (JobSnap::gpus, within its range), whose
// limit its user chose.  A running elastic job is resized only to a count
// whose restart and remaining epochs fit in the limit of its requeued run;
// the count it holds stays whatever its prediction (it holds what it
// holds).
#ifndef OMRU_CONTROLLER_PLAN_INPUT_HPP
#define OMRU_CONTROLLER_PLAN_INPUT_HPP

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <tuple>
#include <vector>

#include "controller/pipeline_gains.hpp"
#include "controller/resize_book.hpp"
#include "controller/start_overhead.hpp"
#include "controller/snapshot.hpp"
#include "profile/profile_table.hpp"
#include "profile/speed_model.hpp"
#include "profile/interference_model.hpp"
#include "profile/profile_store.hpp"
#include "planner/plan.hpp"

namespace omru {
namespace controller {

// Runtime assumed for a job with neither a profile nor a time limit.
constexpr double kDefaultRuntimeS = 3600;

// Where a job's predicted runtime comes from (AdminComment `profile=`).
// Measured (learned from jobs) arrives with the profile store.
enum class ProfileSource { Measured, Site, Estimated, Default };
const char *profile_source_name(ProfileSource s);

// The reference bound as omru.conf has it by default: on.
inline planner::ReferenceBound on_bound()
{
	planner::ReferenceBound b;
	b.on = true;
	return b;
}

struct PlanSettings {
	planner::Objective objective = planner::Objective::MeanJct;
	double fairness_factor = 0;
	size_t max_pending = 5000; // pending jobs planned, by priority
	// ReferenceBound=, ReferenceSlack=, ReferenceSlackSeconds=: no pending
	// job planned to end later than Slurm's own policy would end it
	// (planner/reference.hpp), beyond the slack.
	planner::ReferenceBound bound = on_bound();
	// ArrivalGuard=: while jobs keep arriving, jobs that are not elastic
	// start at the count they asked (planner/arrival_guard.hpp).
	bool arrival_guard = true;
	// A finished job whose real epoch time is off the prediction by more
	// than this fraction corrects its model's curve (omru.conf); and no
	// pending job is given a count whose runtime, this much longer, would
	// pass its time limit.
	double correction_margin = 0.25;
	// StartOverhead=: seconds from a job's start to its first progress,
	// added to every OMRU job's run (planner PlanJob::start_overhead_s);
	// < 0: each user's, learned from their completed jobs
	// (start_overhead.hpp), 0 until learned.
	double start_overhead_s = -1;
	// SpreadCost=: a spread nobody measured costs this per extra node
	// (speed_model.hpp); also what spreading a job without a profile costs.
	double spread_cost = kDefaultSpreadCost;
	// CPUs per GPU an OMRU job gets when it did not ask (CpusPerGpu=,
	// 0: its own request stands), and whether its model's loader demand
	// raises them (LoaderCpus=): one CPU for the step plus its workers.
	int cpus_per_gpu = 0;
	bool loader_cpus = false;
	// Running --omru-elastic jobs may be resized (Elastic=), priced and
	// timed by the resize book (resize_book.hpp).
	bool elastic = true;
	ResizeSettings resize;
	// LayerProfileDir=: profiled models' curves count on pipeline-hybrid
	// splits (pipeline_gains.hpp); null: data parallelism only.
	std::shared_ptr<PipelineGains> pipeline;
	// ColocationFile= / ColocationSignals=: what co-located OMRU jobs
	// cost each other, by model (profile/interference_model.hpp); the plan
	// places them apart where it can.  Null: never priced.
	std::shared_ptr<const InterferenceModel> interference;
	// The users' own measurements of pairs (the profile store's beside
	// lines), which correct the table for their own jobs
	// (pair_prices.hpp).  Null: the table alone.
	std::shared_ptr<const profiler::ProfileStore> measured_pairs;
};

class SpeedBook;

struct BuiltInput {
	planner::PlanInput in;
	std::vector<uint32_t> job_ids; // Slurm job id of each in.jobs entry
	// Per in.jobs entry: the profiles' model id, or -1 (default curve),
	// in the book that priced the job (its user's, profile_books.hpp).
	std::vector<int> model;
	std::vector<SpeedBook *> book;
	// Pending jobs beyond max_pending: they wait for their turn.
	std::vector<uint32_t> left_out;
	// Pending jobs the plan cannot model (no count fits, no eligible
	// node): cons_tres decides for them alone.
	std::vector<uint32_t> unmodelled;
	// (uid, model) whose speed model gave a time the plan cannot price
	// (0, inf, NaN from a user's rows): that user's jobs of the model are
	// planned as unprofiled, everyone else's as usual.
	std::vector<std::pair<uint32_t, std::string>> unpriced;
	// Jobs whose curve would have passed the plan's or its user's
	// pricing budget (plan_input.cpp, kMaxPlanCells): left to cons_tres.
	std::vector<uint32_t> over_budget;
};

// The site's profiles, fitted for one cluster shape.  Rebuilt when the
// shape (node count, largest node) changes.
class SpeedBook {
    public:
	explicit SpeedBook(std::shared_ptr<const ProfileTable> profiles,
			   double spread_cost = kDefaultSpreadCost)
		: profiles_(std::move(profiles)), spread_cost_(spread_cost)
	{
	}
	const ProfileTable *profiles() const { return profiles_.get(); }
	// The speed model for `nodes` nodes of at most `gpus_per_node`.
	const SpeedModel *model_for(int nodes, int gpus_per_node);

    private:
	std::shared_ptr<const ProfileTable> profiles_;
	double spread_cost_;
	std::unique_ptr<SpeedModel> model_;
	int nodes_ = 0, gpn_ = 0;
};

// The book that prices a user's jobs.
using BookFor = std::function<SpeedBook &(uint32_t uid)>;

// IN snap: validated by the glue; jobs with nonsense (no GPUs, a range
// above the cluster) are left out rather than failing the whole plan.
// IN resizes: resizes under way and restart costs; nullptr: no job is
//    resized (the plan has no GPU reuse).
// IN starts: the users' learned start overheads (PlanSettings::
//    start_overhead_s < 0); nullptr: none learned.
BuiltInput build_plan_input(const Snapshot &snap, const BookFor &book_for,
			    const PlanSettings &settings,
			    const ResizeBook *resizes = nullptr,
			    const StartOverheadBook *starts = nullptr);
// Every user's jobs priced by one book.
BuiltInput build_plan_input(const Snapshot &snap, SpeedBook &book,
			    const PlanSettings &settings);

// The source of a job's runtime at `gpus` GPUs over `nodes` nodes:
// Measured where `own_row` says the job's user measured that count
// (profile_books.hpp), Site where a site row has it, else Estimated or
// Default.
ProfileSource profile_source(const BuiltInput &b, size_t job, int gpus,
			     int nodes,
			     const std::function<bool(int model, int gpus, int nodes)> &own_row = {});

} // namespace controller
} // namespace omru

#endif
