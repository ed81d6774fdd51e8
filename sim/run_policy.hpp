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
	std::string policy;
	std::string error;  // why the policy could not produce a schedule
	bool stuck = false; // it tried and got stuck (a failure, not a refusal)
	SimResult result;
	Summary summary;
	double wall_s = 0; // whole simulation, policy included
};

// The registered policy `name`; UsageError (listing the policies) if none.
const PolicyInfo &policy_by_name(const std::string &name);

// Throws UsageError for an unknown policy name (policy_by_name).
PolicyRun run_policy(const std::string &name, const SimInputs &in,
		     const PolicyOptions &opts, bool show_progress);

std::string chart_title(const Summary &s);
void print_summary(std::ostream &out, const Summary &s, const SimInputs &in);

} // namespace omru

#endif
