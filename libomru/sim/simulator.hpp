// simulator.hpp - discrete-event replay of a workload under one policy.
// Time advances from event to event (arrivals, completions, wake-ups the
// policy asked for); the policy is called after each batch of events at one
// instant; job progress follows the profiles' truth exactly.
#ifndef OMRU_SIM_SIMULATOR_HPP
#define OMRU_SIM_SIMULATOR_HPP

#include <functional>
#include <memory>
#include <stdexcept>
#include <vector>

#include "model/schedule.hpp"
#include "policy/gpu_links.hpp"
#include "policy/policy.hpp"
#include "profile/interference_model.hpp"

namespace omru {

struct SimOptions {
	double restart_overhead_s = 0;
	// Called after completions with (jobs done, jobs in total).
	std::function<void(size_t, size_t)> on_progress;
	// Within-node GPU choice (select_gpus), at most one of the two; with
	// neither, the lowest free slots.
	// gpu_links: identical nodes, the link matrix of every node
	// (gpus_per_node GPUs), owned by the caller.
	const GpuLinks *gpu_links = nullptr;
	// node_links: one entry per node, its own matrix (gpus_of(node)
	// GPUs), nullptr for none on that node; e.g. ClusterSpec::node_links
	// (sim/cluster_spec.hpp).
	std::vector<std::shared_ptr<const GpuLinks>> node_links;
	// Co-located jobs slow each other down by this predictor (the truth of
	// the run): a job's epoch time is its spread's time alone times
	// combined_slowdown over the distinct other jobs on its nodes, and
	// changes whenever one of them starts or stops.  Null: never.
	const InterferenceModel *interference = nullptr;
};

struct SimResult {
	Schedule schedule;
	double plan_ms = 0; // wall time spent inside Policy::schedule
};

// The policy stopped making progress (jobs left, nothing running, nothing
// to wait for); what() names the jobs.
class SimStuck : public std::runtime_error {
	using std::runtime_error::runtime_error;
};

// RET the schedule the policy produced.  Throws SimStuck as above, and
// std::invalid_argument when both gpu_links and node_links are given, when
// opts.gpu_links is not for c.gpus_per_node GPUs or the nodes differ in
// size, or when node_links does not have one entry per node or a matrix
// is not for its node's GPUs (the message names the node).
SimResult simulate(const Cluster &c, const ProfileTable &p, const Workload &w,
		   Policy &policy, const SimOptions &opts);

} // namespace omru

#endif
