// distributed.hpp - data parallelism across the processes of a job step:
// rendezvous through c10d's TCPStore on the step's first node, a Gloo
// process group (NCCL when libtorch has CUDA and the model is on a GPU), and
// gradients averaged by bucketed allreduce that starts while backward is
// still running: a bucket goes out as soon as the last of its parameters has
// its gradient, as PyTorch's DistributedDataParallel does.
#ifndef OMRU_TRAINER_DISTRIBUTED_HPP
#define OMRU_TRAINER_DISTRIBUTED_HPP

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <torch/torch.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include "slurm_env.hpp"

namespace omru {
namespace train {

class ProcessGroups {
    public:
	// Connects every rank of `env` (rank 0 serves the TCPStore).  With
	// world 1 no network is used.  A CUDA `device` means NCCL (CUDA builds
	// only), a CPU one Gloo.
	ProcessGroups(const RankEnv &env, torch::Device device, int timeout_s = 300);

	int rank() const { return env_.rank; }
	int world() const { return env_.world; }
	const std::string &backend() const { return backend_; }
	torch::Device device() const { return device_; }
	// Everyone's group (nullptr with world 1).
	c10::intrusive_ptr<c10d::ProcessGroup> all() const { return all_; }
	// A group of ranks 0..size-1, for profiling on fewer GPUs; collective
	// over all ranks (every rank must call it with the same size); the
	// ranks outside get nullptr.
	c10::intrusive_ptr<c10d::ProcessGroup> first(int size);
	// Ranks first..first+size-1 (a pipeline stage's replicas); likewise
	// collective, nullptr outside it and for one rank.
	c10::intrusive_ptr<c10d::ProcessGroup> ranks(int first, int size);
	// Node names of all ranks, in rank order (through the store).
	std::vector<std::string> nodes();
	void barrier();

    private:
	c10::intrusive_ptr<c10d::ProcessGroup> make_group(
		c10::intrusive_ptr<c10d::Store> store, int rank, int size);

	RankEnv env_;
	torch::Device device_;
	bool nccl_;
	std::string backend_;
	std::chrono::milliseconds timeout_;
	c10::intrusive_ptr<c10d::Store> store_;
	c10::intrusive_ptr<c10d::ProcessGroup> all_;
	int subgroups_ = 0;
};

// Averages gradients of `params` over `group` after each backward pass.
class GradientAverager {
    public:
	// bucket_bytes: gradient bytes per allreduce (DDP's default 25 MiB).
	GradientAverager(c10::intrusive_ptr<c10d::ProcessGroup> group,
			 std::vector<torch::Tensor> params,
			 size_t bucket_bytes = 25u << 20);
	~GradientAverager();
	// Call after backward(): launches buckets whose gradients were not
	// all produced, waits for every allreduce and writes the averages into
	// the parameters' .grad.
	void finish();

    private:
	struct Impl;
	std::unique_ptr<Impl> impl_;
};

// Where this rank computes: GPU local_rank (modulo the visible GPUs) when
// libtorch has CUDA and a GPU is visible, else the CPU.
torch::Device compute_device(const RankEnv &env);

// Same parameters and buffers on every rank: rank 0's are broadcast.
void broadcast_module(c10d::ProcessGroup &group, torch::nn::Module &m);
// Sum (max) of v over the group, which every rank gets; `device` is the
// group's (NCCL reduces GPU tensors only).  No group: v.
double allreduce_sum(c10d::ProcessGroup *group, double v,
		     torch::Device device = torch::kCPU);
double allreduce_max(c10d::ProcessGroup *group, double v,
		     torch::Device device = torch::kCPU);

} // namespace train
} // namespace omru

#endif
