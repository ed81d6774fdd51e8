// controller.hpp - what select/omru keeps inside slurmctld between calls:
// the configuration, the site's profiles, the current plan and the answers
// for every job, looked up in O(1) by job id.  The glue re-plans at most
// once per PlanIntervalMin (when something changed) and at least every
// PlanIntervalMax; every other job_test is answered from here.
#ifndef OMRU_CONTROLLER_CONTROLLER_HPP
#define OMRU_CONTROLLER_CONTROLLER_HPP

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "controller/colocation_book.hpp"
#include "controller/plan_input.hpp"
#include "controller/profile_books.hpp"
#include "controller/snapshot.hpp"
#include "planner/plan.hpp"
#include "planner/replanner.hpp"
#include "profile/profile_store.hpp"

namespace omru {
namespace controller {

struct Decision {
	enum class Kind {
		Start, // start now: `gpus` on `where`
		Wait,  // planned later: `start_s`, `gpus` over `nodes` nodes
		Hold,  // in no plan yet (beyond the planned queue): not now
		Pass,  // the plan cannot model it: cons_tres decides alone
	} kind = Kind::Pass;
	int gpus = 0;
	int nodes = 0;
	std::vector<std::pair<int, int>> where; // Start: node index, GPUs
	double start_s = 0;
	double runtime_s = 0; // predicted, at `gpus`
	// Pending jobs: when Slurm's own policy would end it from this plan's
	// state (planner/reference.hpp, the bound the plan keeps); < 0: none.
	double ref_end_s = -1;
	bool moldable = false;
	ProfileSource profile = ProfileSource::Default;
	// Start of an OMRU job whose model its user's profiles do not know
	// (or --omru-profile=force): the counts it should measure, within
	// its allocation (1, 2, 4, ... and its own count).
	std::vector<int> profiling;
	// OMRU jobs: CPUs per GPU for a job that did not ask --cpus-per-gpu
	// (0: leave its CPUs alone): CpusPerGpu, or with LoaderCpus one per
	// GPU for the step plus `loader_need`, the loader workers per task
	// its user's jobs of the model were measured to need (0: unknown).
	// One task per GPU is the trainer's layout, so per GPU = per task.
	int cpus_per_gpu = 0;
	int loader_need = 0;
};

// A job that ended, for the self-correction (Controller::job_ended).
struct JobEnd {
	uint32_t job_id = 0;
	uint32_t uid = 0;
	bool completed = false;  // ran to the end (not cancelled, failed, ...)
	std::string model;       // "" for a plain job
	double epochs = 0;
	int gpus = 0, nodes = 0; // what it held
	double run_s = 0;        // end - start, slurmctld's clock
	double profile_s = 0;    // of run_s, spent profiling (its record)
	std::string rows;        // its record's `rows`
	std::string loader;      // its record's `loader` (W:X:F:R), "" if none
	bool resized = false;    // its record has `resizes`: run_s is not all its work
	std::string gpu_use;     // its record's `gpu_use` (G:M:N), "" if none
};

// A stop the glue must send (SIGUSR1 to the job's steps): the plan resizes
// the running elastic job.
struct StopRequest {
	uint32_t job_id = 0;
	int from_gpus = 0, to_gpus = 0;
};

struct PlanStats {
	long plans = 0;
	double last_ms = 0, max_ms = 0, total_ms = 0;
	size_t last_jobs = 0, last_pending = 0, last_starts = 0;
	double makespan_s = 0; // absolute, of the last plan
	int candidates = 0;
	long incremental = 0;  // plans that searched incrementally (Replanner)
	// The last plan's pending jobs past their reference bound, by how much
	// in all (Plan::late, late_s), and whether it fell back to the
	// reference itself: what an admin reads to see the bound bind.
	int late = 0;
	double late_s = 0;
	bool is_reference = false;
	// Pending jobs the last plan held to their asked count because jobs
	// keep arriving (Plan::held_to_ask, ArrivalGuard=).
	int at_ask = 0;
	// The latest of them: job id and seconds its planned end is past its
	// bound, most late first (at most kLateJobsLogged).
	std::vector<std::pair<uint32_t, double>> late_jobs;
	// Pending jobs whose reference end moved by more than a second since
	// the plan before: job id and by how much (+ later), the largest moves
	// first (at most kLateJobsLogged).  A promise that moves is what a
	// user sees change; it also explains a job found late all at once.
	std::vector<std::pair<uint32_t, double>> ref_moved;
};
constexpr size_t kLateJobsLogged = 4;

class Controller {
    public:
	// IN site: the site's profiles (its table may be empty, never null).
	Controller(const SiteProfiles &site, PlanSettings s);
	// Only site profiles, for tests.
	Controller(std::shared_ptr<const ProfileTable> profiles, PlanSettings s);

	// Replaces the profiles and settings (reconfigure); the plan choice
	// and the learned profiles are kept, the next plan() re-plans.
	void reconfigure(const SiteProfiles &site, PlanSettings s);

	// ---- the profile store (what jobs measured) ----
	// Replaces the store (load at start, or after a save merged what
	// omru-profile changed on disk); ops not yet saved are applied again.
	void install_store(const profiler::ProfileStore &store);
	const profiler::ProfileStore &store() const { return *store_; }
	// The changes since the last call, for a background save (the glue
	// writes them with profiler::merge_save, off slurmctld's hot path).
	std::vector<profiler::StoreOp> take_unsaved();
	bool has_unsaved() const { return !unsaved_.empty(); }
	// A job ended: its last rows are learned, its last loader report
	// gives the model's loader demand for its user, and when its real
	// epoch time differs from the prediction by more than the margin, the
	// model's curve for its user is corrected (profile_books.hpp).
	// RET a line for the log saying what was learned, or "".
	std::string job_ended(const JobEnd &e, double now_s);

	// Plans `snap`; throws on a planner failure (the glue then falls back
	// to cons_tres and logs).  `time_cap_ms` > 0 shrinks the planned queue
	// for later plans while one plan takes longer.
	void plan(const Snapshot &snap, double time_cap_ms = 0);

	// The answer for a job of the last plan; nullptr if it was not in it.
	const Decision *lookup(uint32_t job_id) const;

	// LayerProfileDir='s split factors (null: none configured); the glue
	// computes the ones plans missed off the lock (pipeline_gains.hpp).
	const std::shared_ptr<PipelineGains> &pipeline_gains() const { return settings_.pipeline; }

	const PlanStats &stats() const { return stats_; }
	const planner::PlanChoice &choice() const { return replanner_.choice(); }
	void set_choice(const planner::PlanChoice &c) { replanner_.set_choice(c); }
	bool planned() const { return stats_.plans > 0; }

	// ---- elastic jobs (resize_book.hpp) ----
	// The next stop the plans decided (each once; the glue signals the
	// job).  RET false when none is left.
	bool pop_stop(StopRequest &out);
	// The next line for the log (a resize given up).  RET false: none.
	bool pop_note(std::string &out);
	// A job ended; `for_resize`: its tasks exited with the elastic exit
	// code and Slurm requeues it.  RET whether it now waits to resume.
	bool job_stopped(uint32_t job_id, bool for_resize, double now_s);
	// A job started; RET its resize when it resumed from one (cost set).
	std::optional<Resize> job_started(uint32_t job_id, double now_s);
	const ResizeBook &resizes() const { return resizes_; }
	// What a saved book knew (resize_state.hpp), after a restart.
	void restore_resizes(const ResizeBookState &st, double now_s)
	{
		resizes_.restore(st, now_s);
	}
	// Resizing off whatever omru.conf says (the glue found Slurm cannot
	// requeue a stopped job); until the next reconfigure.
	void disable_resizing() { settings_.elastic = false; }

	// A running job's reported rows (AdminComment rows=), learned once
	// per change; counts above what it holds are ignored.  RET whether
	// the store changed.
	bool learn_rows(uint32_t job_id, uint32_t uid, const std::string &model,
			int max_gpus, int max_nodes, const std::string &rows,
			double now_s);

    private:
	void change(profiler::StoreOp op);
	std::vector<int> profiling_counts(const JobSnap &j, int gpus);
	std::string learn_loader(const JobEnd &e, double now_s);
	std::string learn_runtime(const JobEnd &e, const ColocationBook::Seen &seen,
				  double now_s);
	std::string learn_beside(const JobEnd &e, const std::string &neighbour, double real,
				 double solo_s, double now_s);
	std::string learn_signals(const JobEnd &e, const ColocationBook::Seen &seen,
				  double now_s);
	void size_cpus(Decision &d, const JobSnap &j) const;

	std::shared_ptr<profiler::ProfileStore> store_;
	ProfileBooks books_;
	std::vector<profiler::StoreOp> unsaved_;
	// Per running job: the `rows` value last learned from it.
	std::unordered_map<uint32_t, std::string> learned_;
	PlanSettings settings_;
	size_t pending_cap_; // max_pending, shrunk while plans are too slow
	planner::Replanner replanner_; // keeps the plan's choice across passes
	std::unordered_map<uint32_t, Decision> decisions_;
	PlanStats stats_;
	ResizeBook resizes_;
	// Each user's launch, learned from their completed jobs.
	StartOverheadBook starts_;
	// ColocationFile=: what its neighbours cost each running job so far.
	ColocationBook colocation_;
	std::vector<StopRequest> stops_;
	std::vector<std::string> notes_;
	// (uid, model) already logged as unpriceable, so the log says it once.
	std::set<std::pair<uint32_t, std::string>> unpriced_logged_;
	// Jobs logged as over the pricing budget (BuiltInput::over_budget),
	// kept while they are in the snapshot.
	std::set<uint32_t> over_budget_logged_;
};

} // namespace controller
} // namespace omru

#endif
