// lower_bound.hpp - a lower bound on the makespan any valid schedule of a
// workload can reach, so that every policy's makespan can be reported as a
// ratio to it (doc/sim-formats.md, Summary: lower_bound_s).
#ifndef OMRU_SIM_LOWER_BOUND_HPP
#define OMRU_SIM_LOWER_BOUND_HPP

#include <vector>

#include "model/workload.hpp"

namespace omru {

// Lower bound on the makespan (measured from the first submit): the largest
// of
//  - for every job, submit + its shortest runtime at any count in its range
//    and any spread the cluster allows;
//  - the deadline-area bound: a schedule that ends by C gives each job
//    submitted at a at most C - a seconds, so the job needs at least the
//    least GPU-seconds that finish its epochs in that time - mixing GPU
//    counts across segments, as resizing may (the lower convex envelope of
//    its (runtime, GPU-seconds) points); for a threshold t, the jobs
//    submitted at or after t must fit in total GPUs x (C - t).  With no
//    time limit this is the plain area bound; near the bound it also
//    charges the jobs that must run wide.  Checked at every distinct submit
//    time (at most 64 of them, spread evenly, on long traces).
// Restart overheads only lengthen schedules, so they do not enter.
double makespan_lower_bound(const Cluster &c, const ProfileTable &p,
			    const Workload &w);

// The least GPU-seconds that do `points`' work within `seconds`, running
// a fraction of the work at each (runtime, GPU-seconds) point; infinity
// when even the fastest point is slower.  Exposed for tests.
double least_area_within(std::vector<std::pair<double, double>> points,
			 double seconds);

} // namespace omru

#endif
