// run_policy.hpp - one policy on one set of inputs: look it up, let it
// refuse, simulate with progress on a terminal, summarize.
#ifndef OMRU_SIM_RUN_POLICY_HPP
#define OMRU_SIM_RUN_POLICY_HPP

#include <ostream>

#include "sim/simulator.hpp"
#include "sim/summary.hpp"
#include "sim_inputs.hpp"

namespace omru {

struct PolicyRun {
	std::string error; // why the policy could not produce a schedule
	SimResult result;
	Summary summary;
	double wall_s = 0; // whole simulation, policy included
};

// Throws UsageError for an unknown policy name (the message lists them).
PolicyRun run_policy(const std::string &name, const SimInputs &in,
		     const PolicyOptions &opts, bool show_progress);

std::string chart_title(const Summary &s);
void print_summary(std::ostream &out, const Summary &s, const SimInputs &in);

} // namespace omru

#endif
