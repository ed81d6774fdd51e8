// colocation_observed.hpp - what co-location cost the jobs of a sacct
// window (omru-report --colocation-out): the profiler's measurement of
// interference (issue 30).  A finished OMRU job that shared its nodes with
// jobs of exactly one other model for its whole run, one neighbour at a
// time, measured that pair: its epoch time over the same model's epoch
// time alone (jobs of the window at the same GPU count and node count that
// shared their nodes with no OMRU job).  The result is a pairs table in
// the co-location format (doc/sim-formats.md), one side or both per pair,
// for the admin to review and give select/omru as ColocationFile=.
//
// A job counts only if its time says what an epoch costs: COMPLETED, one
// run at one count (no resize), not profiling, epochs known; its epoch time
// is what its trainer reported at the end (epoch_s), else its runtime over
// its epochs.  Every number comes from sacct and the AdminComment record,
// bounded where omru-report reads them.
#ifndef OMRU_REPORT_COLOCATION_OBSERVED_HPP
#define OMRU_REPORT_COLOCATION_OBSERVED_HPP

#include <ostream>
#include <string>
#include <vector>

#include "report_stats.hpp"

namespace omru {
namespace report {

// A job beside one other model all along: model's epoch time next to it
// over the model's time alone.
struct PairObservation {
	std::string model, neighbour, job;
	double slowdown = 1;
};

struct ColocationFindings {
	std::vector<PairObservation> observations;
	size_t alone = 0;        // usable jobs with no OMRU neighbour (references)
	size_t mixed = 0;        // beside several models, or for part of its run
	size_t no_reference = 0; // beside one model, but no alone run to compare
};

ColocationFindings observe_colocation(const std::vector<JobReport> &jobs);

// model_a,model_b,slowdown_a,slowdown_b,samples: per unordered pair the
// mean of each side's observations (empty where none), samples the count.
void write_colocation_pairs(std::ostream &out, const ColocationFindings &f);

} // namespace report
} // namespace omru

#endif
