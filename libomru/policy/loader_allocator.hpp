// loader_allocator.hpp - A-Dloader's node-level decision: how many
// data-loader workers each training job on a node gets.
//
// A-Dloader (ACM 2024) predicts each co-located job's training throughput as
// a function of its data-loader CPUs and gives the node's loader CPUs to
// whichever jobs turn them into the most training.  Formulation here:
//
//   maximise    sum_j  x_j(w_j) / x_j(inf)         (normalised throughput)
//   subject to  sum_j  t_j w_j <= C,   1 <= w_j <= cap_j,  w_j integer
//
// x_j is the job's LoaderModel (samples/s per task with w workers), t_j its
// tasks on the node (each task runs its own loader, so w workers per task
// cost t_j w CPUs), C the node's loader CPUs.  Normalising by each job's
// peak keeps a job with cheap samples (a small model) from outweighing one
// with expensive ones: a unit of the objective is "one job running at full
// speed", the quantity a makespan is made of.  Where we differ from
// A-Dloader: it re-fits a throughput curve from sampled allocations; we fit
// a two-parameter model from the job's own measurements (loader_model.hpp),
// which needs no exploration and is exact enough to choose integers.
//
// Solved exactly by dynamic programming over jobs and CPUs (a bounded
// knapsack): O(J x C x W) for J jobs, C CPUs and W <= the workers one job
// can use before it saturates; a node hosts few jobs, so this is well under
// a millisecond.  Among optimal answers the one using the fewest CPUs is
// taken; the CPUs it leaves are then spread as headroom, one worker at a
// time to the job whose loaders have the least margin over its step, so a
// model that underestimates a job's demand costs less.  The floor of one
// worker per job always holds: with more jobs than CPUs every job gets one
// and the answer says the node is oversubscribed.
#ifndef OMRU_POLICY_LOADER_ALLOCATOR_HPP
#define OMRU_POLICY_LOADER_ALLOCATOR_HPP

#include <vector>

#include "profile/loader_model.hpp"

namespace omru {

struct LoaderJob {
	LoaderModel model{ 1, 1 };
	int tasks = 1;        // loaders of the job on the node, >= 1
	int max_workers = 64; // per task, >= 1 (its own CPUs, a site cap)
};

struct LoaderShares {
	std::vector<int> workers; // per job, per task
	double objective = 0;     // sum of normalised throughputs
	int cpus_used = 0;        // sum of tasks x workers
	bool oversubscribed = false; // the floors alone exceed the CPUs
};

// The shares for `jobs` on `cpus` loader CPUs (any count >= 0).
LoaderShares allocate_loader_workers(const std::vector<LoaderJob> &jobs,
				     int cpus);

// The same CPUs split evenly (A-Dloader's baseline): each job gets
// cpus / jobs CPUs, turned into workers per task, at least one.
LoaderShares even_loader_workers(const std::vector<LoaderJob> &jobs, int cpus);

} // namespace omru

#endif
