// start_overhead.hpp - how long a user's jobs take from their start to
// their first progress (the job's launch, its framework's start, its first
// data), learned from the user's completed jobs: what a profile of epoch
// times does not hold.  The plan adds it to the user's pending jobs' runs
// and to their running jobs' first progress, and the reference adds it as
// well (planner PlanJob::start_overhead_s): a chain of jobs is priced as it
// runs.  Without it every end came a launch early, and the job next in a
// chain found its bound already passed (demo, stop 54: predictions 6-29%
// short on 7-40 s jobs, two of eight jobs later than under backfill).
//
// A completed job's sample is the part of its run its profile does not
// explain: work_s (its run less any profiling) less the epochs at the
// predicted epoch time.  It counts only when it lies in [0, margin x the
// prediction] (the correction margin, CorrectionMargin=, at most
// kStartOverheadMaxShare) and under kMaxStartOverheadS: beyond that it is
// the epoch time that is off, which corrects the model's curve instead
// (Controller::learn_runtime), or a job that ran faster than its profile.  A user's overhead is the median of
// their latest kStartOverheadSamples samples, once there are
// kStartOverheadMinSamples: one user's jobs never move another user's
// plan.  Kept in memory only: a slurmctld restart learns it again.
// Slurm-free.
#ifndef OMRU_CONTROLLER_START_OVERHEAD_HPP
#define OMRU_CONTROLLER_START_OVERHEAD_HPP

#include <cstddef>
#include <cstdint>
#include <deque>
#include <unordered_map>

namespace omru {
namespace controller {

constexpr std::size_t kStartOverheadSamples = 9;
constexpr std::size_t kStartOverheadMinSamples = 3;
constexpr double kMaxStartOverheadS = 600;
// The most of a prediction a sample may be, whatever the margin.
constexpr double kStartOverheadMaxShare = 0.5;

class StartOverheadBook {
    public:
	// A completed job of `uid` worked `work_s` seconds where its profile
	// predicted `predicted_s`, with the correction margin `margin`.
	// RET the sample kept, or -1 when it says nothing of the launch.
	double add(uint32_t uid, double work_s, double predicted_s, double margin);
	// The user's overhead: the median of their latest samples (kept as
	// they come: the plan asks for every pending job); 0 with fewer than
	// kStartOverheadMinSamples.
	double of(uint32_t uid) const;
	void clear() { users_.clear(); }

    private:
	struct User {
		std::deque<double> samples;
		double median = 0;
	};
	std::unordered_map<uint32_t, User> users_;
};

// StartOverhead=: `configured` (>= 0) for every job, or (< 0, auto) the
// user's learned one from `book` (nullptr: none learned).
inline double start_overhead(double configured, const StartOverheadBook *book, uint32_t uid)
{
	return configured >= 0 ? configured : book ? book->of(uid) : 0;
}

} // namespace controller
} // namespace omru

#endif
