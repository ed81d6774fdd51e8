// report_bounds.hpp - what a number that a job, a trainer or a node reports
// may be (doc/report-bounds.md).  Every such number is the user's word: it is
// checked against these ranges where it enters slurmctld or a node's state,
// and a value outside them is dropped with one log line, never stored.  The
// ranges are wide (any real training fits) and keep every product and ratio
// the planner forms of them finite.
#ifndef OMRU_MODEL_REPORT_BOUNDS_HPP
#define OMRU_MODEL_REPORT_BOUNDS_HPP

#include <cmath>

namespace omru {
namespace bounds {

// Seconds of one training epoch: 0.1 ms (a tiny model on a time-scaled
// emulator) to 10^7 s (116 days; no time limit is longer).  Two such
// rows give a spread ratio of at most 10^11, so curves stay finite.
constexpr double kEpochSMin = 1e-4, kEpochSMax = 1e7;
// Samples per second of a trainer or one loader worker.
constexpr double kSamplesSMin = 1e-3, kSamplesSMax = 1e9;
// Loader workers of one job on one node.
constexpr int kWorkersMax = 4096;

inline bool in_range(double v, double lo, double hi)
{
	return std::isfinite(v) && v >= lo && v <= hi;
}
inline bool epoch_s_ok(double v) { return in_range(v, kEpochSMin, kEpochSMax); }
inline bool samples_s_ok(double v) { return in_range(v, kSamplesSMin, kSamplesSMax); }

} // namespace bounds
} // namespace omru

#endif
