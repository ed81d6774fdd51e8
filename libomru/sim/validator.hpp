// validator.hpp - checks a schedule against every rule of doc/sim-formats.md
// (Schedule: "A valid schedule ...") and reports each violation.
#ifndef OMRU_SIM_VALIDATOR_HPP
#define OMRU_SIM_VALIDATOR_HPP

#include <string>
#include <vector>

#include "model/schedule.hpp"

namespace omru {

struct Violation {
	size_t line = 0; // schedule CSV line of the segment, 0 if none/unknown
	std::string message;
};

// Rules checked, each reported per offending segment or job:
//  - a node never runs more than G GPUs at one instant; node indices exist;
//  - no segment starts before its job's submit_s;
//  - a job's segments never overlap;
//  - a job's segments' epochs add up to its epochs (and a job has segments);
//  - each segment lasts at least epochs x epoch_s(model, gpus, distinct
//    nodes), plus the restart overhead for every segment after the job's
//    first;
//  - the profiles have a row for the segment's count and spread, and the
//    count lies in the job's [gpus_min, gpus_max];
//  - with site limits (SiteUsage): at each segment's start its user's GPUs
//    and its license are within the site's limits, its nodes are on its
//    node_list and hold its CPUs and memory beside what runs there.
// Times are compared with a tolerance of 1e-6 s + 1e-9 relative, epochs
// with 1e-6 relative: arithmetic is exact only to rounding, and other
// tools may write fewer digits.
// The time tolerance above, for a time or duration v: 1e-6 s + 1e-9 |v|.
double time_tolerance_s(double v);

std::vector<Violation> validate_schedule(const Cluster &c,
					 const ProfileTable &p,
					 const Workload &w, const Schedule &s,
					 double restart_overhead_s);

} // namespace omru

#endif
