// stage_costs.hpp - the cost model of one pipeline stage, for one global
// batch split into M micro-batches of m = batch / M samples.  A stage is a
// run of layers [i, j) served by r replicas on consecutive chain positions
// [p, p + r) of the job's GPUs (job_topology.hpp); micro-batches go to its
// replicas round-robin, so each replica runs n = ceil(M / r) of them.
//
//   compute per micro-batch  t = sum fwd(m) + sum bwd(m) + sum_{l in R} fwd_l(m)
//                            (R: the layers it recomputes)
//   memory per GPU           copies x params + w x m x (stash - saved)
//                            + m x max_{l in R} stash_l   (one layer rebuilt)
//                            w = min(n, k): micro-batches in flight under
//                            1F1B, k = this stage and the ones after it
//                            (GPipe: w = n)
//   allreduce of gradients   ring over its r GPUs: 2(r-1) latency +
//                            2(r-1)/r x params / slowest ring link
//   send to the next stage   per micro-batch, activation forward and its
//                            gradient back: 2 (latency + m x out / bw),
//                            bw the slowest replica pair that talks
//                            (replica u mod r to u mod r')
//
// Recomputation (the cost-balanced choice): a layer that recomputes keeps
// only its output (which the next layer needs; its input is the previous
// layer's output, counted there) from forward to backward and runs its
// forward again before its backward.  When the stage does not fit
// the memory limit, layers are added in order of recompute time per byte
// saved, cheapest first, until it fits (ties: the earlier layer).  This is
// the greedy answer to a knapsack; it is exact when the last layer added is
// needed whole, and never far from the optimum otherwise.
#ifndef OMRU_PIPELINE_STAGE_COSTS_HPP
#define OMRU_PIPELINE_STAGE_COSTS_HPP

#include <map>
#include <tuple>
#include <vector>

#include "pipeline/job_topology.hpp"
#include "pipeline/layer_profile.hpp"

namespace omru {
namespace pipeline {

// How micro-batches are ordered: both flush once per global batch (same
// time model); they differ in what each stage holds at once.
enum class Schedule {
	OneFOneB, // a stage holds at most as many micro-batches as stages from it on
	GPipe,	  // every forward first: a stage holds all its micro-batches
		  // (omru-train --parallel pipeline)
};

struct PartitionSettings {
	int global_batch = 0;       // samples per iteration, all GPUs together
	Schedule schedule = Schedule::OneFOneB;
	double mem_limit_bytes = 0; // per GPU for parameters and activations; 0: none
	double param_copies = 3;    // weights + gradients + optimizer state
				    // (SGD with momentum 3, Adam 4)
	bool all_gpus = false;	    // every GPU serves a stage (a trainer whose
				    // processes all take part); else the chain's
				    // end may stay idle
};

// What a stage holds and costs when it fits.
struct StageFit {
	bool fits = false;
	std::vector<int> recompute; // layer indices, ascending
	double fwd_s = 0;	    // per micro-batch
	double bwd_s = 0;	    // per micro-batch, recomputation included
	double mem_bytes = 0;	    // per GPU
	double need_bytes = 0;	    // per GPU with every layer recomputed (when it
				    // does not fit: what the limit misses)
};

class StageCosts {
    public:
	// IN micro_batches: M >= 1, at most settings.global_batch.
	StageCosts(const LayerProfile &profile, const JobTopology &topo,
		   const PartitionSettings &settings, int micro_batches);

	int layers() const { return static_cast<int>(prof_.layers.size()); }
	int gpus() const { return topo_.size(); }
	bool all_gpus() const { return set_.all_gpus; }
	int micro_batches() const { return M_; }
	double micro_batch() const { return m_; }
	// Micro-batches each of r replicas runs.
	int per_replica(int r) const { return (M_ + r - 1) / r; }
	// Micro-batches a replica holds at once, k stages from its own on.
	int in_flight(int r, int k) const
	{
		int n = per_replica(r);
		return set_.schedule == Schedule::GPipe ? n : (n < k ? n : k);
	}

	// Layers [i, j) with w micro-batches in flight (cached).
	const StageFit &fit(int i, int j, int w);
	double param_bytes(int i, int j) const { return P_[j] - P_[i]; }
	// Gradient allreduce of layers [i, j) over chain positions [p, p + r).
	double allreduce_s(int i, int j, int p, int r) const;
	// Per micro-batch, from the stage ending at layer j on [p, p + r) to the
	// next on [p + r, p + r + r2).
	double send_s(int j, int p, int r, int r2) const;

    private:
	const LayerProfile &prof_;
	const JobTopology &topo_;
	PartitionSettings set_;
	int M_;
	double m_;
	std::vector<double> F_, B_, P_, S_; // prefix sums at m
	std::map<std::tuple<int, int, int>, StageFit> cache_;
};

} // namespace pipeline
} // namespace omru

#endif
