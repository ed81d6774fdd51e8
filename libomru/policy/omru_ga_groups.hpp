// omru_ga_groups.hpp - how omru-ga runs one chromosome: groups of jobs one
// after another, greedy GPU counts within a group, idle GPUs reused by the
// next group (omru_ga_groups.cpp).  The GA that searches chromosomes is in
// omru_ga.cpp.
#ifndef OMRU_POLICY_OMRU_GA_GROUPS_HPP
#define OMRU_POLICY_OMRU_GA_GROUPS_HPP

#include <memory>
#include <vector>

#include "policy/policy.hpp"

namespace omru {
namespace ga {

using Chromosome = std::vector<int>; // group per job, normalised 0..k-1

// What the GA and the executor need of each job, computed once.
struct Batch {
	int gpus = 0; // in the cluster
	// Per job: usable counts, ascending, and their packed epoch times.
	std::vector<std::vector<int>> counts;
	std::vector<std::vector<double>> epoch_s;

	Batch(const Cluster &c, const ProfileTable &p, const Workload &w);
	bool runnable() const; // every job has a usable count
	int smallest(int job) const { return counts[job].front(); }
};

// Greedy GPU counts for `jobs` sharing the whole cluster, given their
// remaining epochs: each starts at its smallest usable count, then spare
// GPUs go one step at a time to the currently longest job until none can
// take more.  RET the count for each entry of `jobs`.
std::vector<int> allot(const Batch &b, const std::vector<int> &jobs,
		       const std::vector<double> &left_epochs);

// A policy that executes one normalised chromosome on `b`'s workload.
std::unique_ptr<Policy> make_group_runner(const Batch &b, const Chromosome &groups);

} // namespace ga
} // namespace omru

#endif
