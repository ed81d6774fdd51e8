// brute_force_optimum.hpp - the exact minimum makespan of a few moldable jobs
// on one node, by exhaustive search.  It is the yardstick the OMRU planner is
// tested against ("within 10% of the optimum on every small case"), so it
// shares no code with the planner and stays simple enough to trust: every
// allotment times every order, each turned into a schedule by the serial
// schedule generation scheme.
#ifndef OMRU_TESTS_BRUTE_FORCE_OPTIMUM_HPP
#define OMRU_TESTS_BRUTE_FORCE_OPTIMUM_HPP

#include <vector>

namespace omru::test {

// One moldable job: it may run on gpus[k] GPUs for runtime_s[k] seconds
// (parallel vectors, one entry per option).
struct BfJob {
	std::vector<int> gpus;
	std::vector<double> runtime_s;
};

// A schedule; gpus and start_s are indexed like the jobs given.
struct BfSchedule {
	double makespan_s = 0;
	std::vector<int> gpus;
	std::vector<double> start_s;
};

// IN gpus_total: GPUs of the node; jobs: all available at time 0, run
// without preemption.  RET a schedule of minimum makespan (exact up to a
// relative 1e-9, which only floating-point noise could matter for).
// Built for n <= 6: the search is exponential in n.  Throws
// std::invalid_argument for more than 8 jobs, gpus_total outside 1..16, a job
// without options or with vectors of different lengths, an option with gpus
// outside 1..gpus_total, or a runtime that is not positive and finite.
BfSchedule brute_force_optimum(int gpus_total, const std::vector<BfJob> &jobs);

// The serial schedule generation scheme on its own, for tests and for
// replaying an order by hand: the jobs are taken in `order` (a permutation of
// 0..n-1), job j on gpus[j] GPUs for runtime_s[j] seconds, each placed at
// the earliest t >= 0 at which gpus[j] GPUs are free throughout
// [t, t + runtime_s[j]) - possibly in a gap before jobs placed earlier.
// Throws std::invalid_argument as above, or when `order` is no permutation.
BfSchedule serial_sgs(int gpus_total, const std::vector<int> &gpus,
		      const std::vector<double> &runtime_s,
		      const std::vector<int> &order);

} // namespace omru::test

#endif
