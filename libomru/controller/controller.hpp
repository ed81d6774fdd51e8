// controller.hpp - what select/omru keeps inside slurmctld between calls:
// the configuration, the site's profiles, the current plan and the answers
// for every job, looked up in O(1) by job id.  The glue re-plans at most
// once per PlanIntervalMin (when something changed) and at least every
// PlanIntervalMax; every other job_test is answered from here.
#ifndef OMRU_CONTROLLER_CONTROLLER_HPP
#define OMRU_CONTROLLER_CONTROLLER_HPP

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "controller/plan_input.hpp"
#include "controller/snapshot.hpp"
#include "planner/plan.hpp"

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
	bool moldable = false;
	ProfileSource profile = ProfileSource::Default;
};

struct PlanStats {
	long plans = 0;
	double last_ms = 0, max_ms = 0, total_ms = 0;
	size_t last_jobs = 0, last_pending = 0, last_starts = 0;
	double makespan_s = 0; // absolute, of the last plan
	int candidates = 0;
};

class Controller {
    public:
	// IN profiles: the site's profiles (may be empty, never null).
	Controller(std::shared_ptr<const ProfileTable> profiles, PlanSettings s);

	// Replaces the profiles and settings (reconfigure); the plan choice
	// is kept, the next call to plan() re-plans.
	void reconfigure(std::shared_ptr<const ProfileTable> profiles, PlanSettings s);

	// Plans `snap`; throws on a planner failure (the glue then falls back
	// to cons_tres and logs).  `time_cap_ms` > 0 shrinks the planned queue
	// for later plans while one plan takes longer.
	void plan(const Snapshot &snap, double time_cap_ms = 0);

	// The answer for a job of the last plan; nullptr if it was not in it.
	const Decision *lookup(uint32_t job_id) const;

	const PlanStats &stats() const { return stats_; }
	const planner::PlanChoice &choice() const { return keep_; }
	void set_choice(const planner::PlanChoice &c) { keep_ = c; }
	bool planned() const { return stats_.plans > 0; }

    private:
	SpeedBook book_;
	PlanSettings settings_;
	size_t pending_cap_; // max_pending, shrunk while plans are too slow
	planner::PlanChoice keep_;
	std::unordered_map<uint32_t, Decision> decisions_;
	PlanStats stats_;
};

} // namespace controller
} // namespace omru

#endif
