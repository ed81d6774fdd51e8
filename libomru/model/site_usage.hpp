// site_usage.hpp - what running jobs hold of the site besides GPUs: each
// node's CPUs and memory, each user's GPUs (against Workload::
// user_gpus_max) and each license's count.  omru-sim's truth for the
// workload's site-limit columns (doc/sim-formats.md, Site limits): a start
// that these refuse is refused, as slurmctld and cons_tres refuse it; the
// policies that model site limits ask it where a job fits.
#ifndef OMRU_MODEL_SITE_USAGE_HPP
#define OMRU_MODEL_SITE_USAGE_HPP

#include <vector>

#include "model/cluster.hpp"
#include "model/workload.hpp"
#include "policy/placement.hpp" // NodeCounts

namespace omru {

class SiteUsage {
    public:
	SiteUsage(const Cluster &c, const Workload &w);

	// Whether any job has a site limit (Workload::has_site_limits); when
	// not, every answer below is the GPUs' alone.
	bool active() const { return active_; }
	// Whether the nodes' CPUs and memory are counted.
	bool has_node_resources() const { return cluster_.node_cpus > 0; }
	double free_cpus(int node) const { return cluster_.node_cpus - cpus_[node]; }
	double free_mem(int node) const { return cluster_.node_mem_mb - mem_[node]; }

	// GPUs job's user may still take now; a large number when unlimited.
	int user_room(int job) const;
	// Whether the job's license count is free now (true without one).
	bool license_free(int job) const;
	// Both: the job may start now with `gpus` GPUs as far as its user and
	// license go (what slurmctld tests before it asks for nodes).
	bool admits(int job, int gpus) const
	{
		return gpus <= user_room(job) && license_free(job);
	}
	// The most of `free_gpus` the job may take on `node`: 0 off its
	// node_list, else what its CPUs and memory allow there.
	int fit_on(int job, int node, int free_gpus) const;

	// A started job holds its GPUs' CPUs and memory on each node, its
	// user's GPUs and its license until give_back.
	void take(int job, const NodeCounts &where);
	void give_back(int job, const NodeCounts &where);

    private:
	void add(int job, const NodeCounts &where, int sign);

	const Cluster &cluster_;
	const Workload &workload_;
	bool active_ = false;
	std::vector<double> cpus_, mem_;  // held, per node
	std::vector<int> user_gpus_;      // held, per user
	std::vector<int> license_used_;   // held, per license
};

} // namespace omru

#endif
