// resize_book.hpp - what select/omru remembers about resizing elastic jobs
// (--omru-elastic) between a plan's decision and the job running again:
//
//   running --plan resizes it--> stopping (SIGUSR1 sent; it still holds its
//   GPUs, and the plan keeps its new ones for it too)
//   stopping --exits OMRU_ELASTIC_EXIT_CODE--> resuming (Slurm requeued it;
//   the plan keeps the new GPUs for it and starts it there first)
//   resuming --starts--> running: the stop-to-start time is its restart cost
//   so far; when its trainer says it trains again (AdminComment
//   resumed_at, omru-train's first step after the resume), the cost becomes
//   stop request to training again (the resume: checkpoint load, process
//   start-up) and the means follow
//
// A resumed job is not resized again until it has run twice what its
// restart cost (a resize must pay for itself before the next one: placed by
// cons_tres, a resumed job can land on other GPUs than planned, and the
// next plan would otherwise chase the difference).  A job that does not
// stop within the grace is left running and never resized again (it
// ignored the request, or its script does not hand the exit status back);
// a requeued job that cannot start on its new GPUs within the grace is
// planned like any pending job.  That grace counts from when Slurm lets the
// job start (after its requeue delay, cred_expire + 1 s, and after a
// slurmctld restart has the nodes back), and that wait itself may take one
// grace more: a job Slurm holds longer is planned like any pending job too.  The measured restart
// costs (per model, and over all models) replace the configured
// RestartOverhead in the plan.  Slurm-free; the glue calls it under its lock.
#ifndef OMRU_CONTROLLER_RESIZE_BOOK_HPP
#define OMRU_CONTROLLER_RESIZE_BOOK_HPP

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model/admin_comment.hpp" // CommentPhase

namespace omru {
namespace controller {

struct ResizeSettings {
	double grace_s = 300;           // ElasticGrace: stop (and restart) in time
	double default_cost_s = 60;     // RestartOverhead: before any is measured
	double margin = 0.1;            // ResizeMargin: priced at (1 + margin) x cost
	// PhaseAware / PhaseThreshold: a job in its late training phase may
	// be shrunk so a waiting job starts (policy/training_phase.hpp).
	bool phase_aware = true;
	double phase_threshold = 0.5;
};

struct Resize {
	uint32_t job_id = 0;
	std::string model;
	int from_gpus = 0, to_gpus = 0;
	std::vector<std::pair<int, int>> where; // planned: node index, GPUs
	double asked_s = 0;   // stop request sent
	double stopped_s = 0; // ended for the requeue (0: still running)
	double free_s = 0;    // requeued and first seen free to start (0: not
			      // yet; not saved: counted again after a restart)
	double cost_s = 0;    // asked to started again (once started)
	double watched_s = 0; // slurmctld watching it since (restored: its
			      // restart; not saved): a grace counts from no
			      // earlier, as what happened while it was down
			      // reaches it late (slurmstepd retries a job's
			      // completion every 15 s)
};

// Restart costs measured so far: count and sum of seconds.
struct CostMean {
	long n = 0;
	double sum = 0;
};

// Everything the book knows, for the state file (resize_state.hpp): a
// slurmctld restart in the middle of a resize keeps the resize, and the
// measured costs keep pricing resizes.
struct ResizeBookState {
	std::vector<Resize> open;                        // by job id
	std::vector<Resize> restarting; // started, resume not reported; by job id
	std::vector<uint32_t> refused, late;             // ascending
	std::vector<std::pair<uint32_t, double>> rest_until; // by job id
	std::map<std::string, CostMean> by_model;
	CostMean all;
};

class ResizeBook {
    public:
	explicit ResizeBook(ResizeSettings s = {}) : s_(s) {}
	void configure(ResizeSettings s) { s_ = s; }
	const ResizeSettings &settings() const { return s_; }

	// The plan resizes running job `r.job_id` now.  RET true when a stop
	// request must be sent (not already under way, not refused).
	bool request(Resize r);
	// The job ended: for the requeue (its tasks exited with the elastic
	// exit code) or for good.  RET whether it now waits to resume.  A stop
	// reported twice (a slurmctld restart while the job was completing)
	// keeps the first time.
	bool ended(uint32_t job_id, bool for_resize, double now_s);
	// The job started.  RET its resize, cost measured, when it resumed.
	std::optional<Resize> started(uint32_t job_id, double now_s);
	// The requeued job is pending and free to start (not held) now.
	void note_free_to_start(uint32_t job_id, double now_s);
	// Stops and resumes past the grace are given up.  RET a log line per
	// job given up; stopping jobs given up are never resized again.
	std::vector<std::string> expire(double now_s);

	// The job's resize under way (stopping or resuming), or nullptr.
	const Resize *under_way(uint32_t job_id) const;
	bool refused(uint32_t job_id) const { return refused_.count(job_id) > 0; }
	// Not resizable now: refused, or resumed less than twice its
	// restart cost ago.
	bool resting(uint32_t job_id, double now_s) const;
	// A resumed job's trainer trains again since `at_s` (Unix seconds,
	// the job's word), seen by slurmctld at `now_s`.  RET a log line when
	// that completes its restart cost (the first report after a resize;
	// older values, from an earlier run, are ignored).  The time is
	// bounded by slurmctld's own clock: no later than now_s, and the part
	// after the job's start no longer than ElasticGrace (a trainer that
	// takes longer is an outlier, not what a resize of its model costs;
	// doc/report-bounds.md).
	std::optional<std::string> note_resumed(uint32_t job_id, double at_s, double now_s);
	// A running job's phase signal: once it says late, the job stays late
	// (its requeued run starts its windows anew; the loss does not go
	// back to its early fall).
	void note_phase(uint32_t job_id, const CommentPhase &p);
	// Late, and phase-aware reallocation is on: it may be shrunk.
	bool may_shrink(uint32_t job_id) const;
	// Forget a job that left slurmctld (or that the glue no longer sees).
	void forget(uint32_t job_id);
	// Jobs with a resize under way, for the glue's sweep.
	std::vector<uint32_t> jobs() const;

	// What a resize of `model` costs, as the plan should price it: the
	// measured mean for the model, else over all models, else the
	// configured cost; times (1 + margin).
	double priced_cost_s(const std::string &model) const;
	// Measured restart costs: count and mean (s), over all models.
	std::pair<long, double> measured() const;

	ResizeBookState state() const;
	// Replaces what the book knows (settings stay); slurmctld watches
	// again from now_s, so the grace of a stop or a hold under way counts
	// from then.
	void restore(const ResizeBookState &st, double now_s);

    private:
	ResizeSettings s_;
	std::unordered_map<uint32_t, Resize> open_;
	std::unordered_map<uint32_t, Resize> restarting_; // started, not yet training
	std::set<uint32_t> refused_;
	std::set<uint32_t> late_;
	std::unordered_map<uint32_t, double> rest_until_; // resumed jobs
	std::map<std::string, CostMean> by_model_;
	CostMean all_;
};

} // namespace controller
} // namespace omru

#endif
