// sim_inputs.hpp - the inputs every omru-sim command shares (cluster,
// profiles, workload, restart overhead), read and checked once.
#ifndef OMRU_SIM_SIM_INPUTS_HPP
#define OMRU_SIM_SIM_INPUTS_HPP

#include <memory>
#include <ostream>
#include <vector>

#include "cli_args.hpp"
#include "model/schedule.hpp"
#include "policy/gpu_links.hpp"
#include "policy/policy.hpp"

namespace omru {

struct SimInputs {
	Cluster cluster;
	// GPU links (SimOptions), at most one of the two: one matrix for
	// identical nodes (--gpu-links), or one per node, null for none (the
	// Links lines of --cluster-file).
	std::shared_ptr<const GpuLinks> gpu_links;
	std::vector<std::shared_ptr<const GpuLinks>> node_links;
	ProfileTable profiles;
	Workload workload;
	double restart_overhead_s = 0;
	// --layer-profiles: a line per model saying where splits pay
	// (pipeline_profiles.hpp), for standard error.
	std::vector<std::string> pipeline_notes;
	// --colocation / --colocation-signals: co-located jobs slow each
	// other down by this predictor, in the run (SimOptions) and in the
	// omru policy's plans (PolicyOptions); null: they never do.
	std::shared_ptr<const InterferenceModel> interference;
};

// The options SimInputs reads, for CliArgs.
extern const std::vector<OptionSpec> kInputOptions;
// The options that tune policies (PolicyOptions).
extern const std::vector<OptionSpec> kPolicyOptions;

// Throws UsageError (bad option) or InputError (malformed file).
SimInputs read_sim_inputs(const CliArgs &args);
// What --layer-profiles made of the models, one "omru-sim: " line each.
void print_pipeline_notes(const SimInputs &in, std::ostream &out);
PolicyOptions read_policy_options(const CliArgs &args);

std::vector<OptionSpec> join(std::vector<OptionSpec> a,
			     const std::vector<OptionSpec> &b);

} // namespace omru

#endif
