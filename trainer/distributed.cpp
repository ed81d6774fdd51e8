// distributed.cpp - see distributed.hpp.
#include "distributed.hpp"

#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#ifdef OMRU_TORCH_CUDA
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#include <torch/cuda.h>
#endif

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <stdexcept>

namespace omru {
namespace train {

torch::Device compute_device(const RankEnv &env)
{
#ifdef OMRU_TORCH_CUDA
	if (torch::cuda::is_available()) {
		int n = static_cast<int>(torch::cuda::device_count());
		return torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(env.local_rank % n));
	}
#endif
	(void)env;
	return torch::Device(torch::kCPU);
}

ProcessGroups::ProcessGroups(const RankEnv &env, torch::Device device, int timeout_s)
	: env_(env), device_(device), nccl_(device.is_cuda()),
	  backend_(nccl_ ? "nccl" : "gloo"), timeout_(std::chrono::seconds(timeout_s))
{
#ifndef OMRU_TORCH_CUDA
	if (nccl_)
		throw std::runtime_error("NCCL requested but this libtorch has no CUDA");
#endif
	if (env_.world == 1) {
		backend_ = "none";
		return;
	}
	c10d::TCPStoreOptions o;
	o.port = static_cast<uint16_t>(env_.master_port);
	o.isServer = env_.rank == 0;
	o.numWorkers = env_.world;
	o.waitWorkers = true;
	o.timeout = timeout_;
	store_ = c10::make_intrusive<c10d::TCPStore>(
		resolve_node_address(env_.master_host), o);
	all_ = make_group(c10::make_intrusive<c10d::PrefixStore>("all", store_),
			  env_.rank, env_.world);
}

c10::intrusive_ptr<c10d::ProcessGroup> ProcessGroups::make_group(
	c10::intrusive_ptr<c10d::Store> store, int rank, int size)
{
#ifdef OMRU_TORCH_CUDA
	if (nccl_)
		return c10::make_intrusive<c10d::ProcessGroupNCCL>(store, rank, size);
#endif
	// A rank that died must not leave the others blocked for Gloo's
	// default 30 minutes: collectives time out with the store.
	auto opts = c10d::ProcessGroupGloo::Options::create(timeout_);
	// The interface Gloo listens on: GLOO_SOCKET_IFNAME as in PyTorch,
	// else this node's own address.
	if (const char *ifname = std::getenv("GLOO_SOCKET_IFNAME"); ifname && *ifname)
		opts->devices.push_back(
			c10d::ProcessGroupGloo::createDeviceForInterface(ifname));
	else
		opts->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname(
			resolve_node_address(env_.node)));
	return c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, size, opts);
}

c10::intrusive_ptr<c10d::ProcessGroup> ProcessGroups::first(int size)
{
	return ranks(0, size);
}

c10::intrusive_ptr<c10d::ProcessGroup> ProcessGroups::ranks(int first, int size)
{
	if (first < 0 || size < 1 || first + size > env_.world)
		throw std::invalid_argument("process group of ranks " + std::to_string(first) +
					    ".." + std::to_string(first + size - 1) +
					    " in a world of " + std::to_string(env_.world));
	std::string prefix = "ranks" + std::to_string(first) + "+" + std::to_string(size) +
			     "." + std::to_string(subgroups_++);
	if (env_.world == 1 || size == 1 || env_.rank < first || env_.rank >= first + size)
		return {};
	return make_group(c10::make_intrusive<c10d::PrefixStore>(prefix, store_),
			  env_.rank - first, size);
}

std::vector<std::string> ProcessGroups::nodes()
{
	if (env_.world == 1)
		return { env_.node };
	const std::string key = "node/" + std::to_string(env_.rank);
	store_->set(key, std::vector<uint8_t>(env_.node.begin(), env_.node.end()));
	std::vector<std::string> out;
	for (int r = 0; r < env_.world; r++) {
		std::vector<uint8_t> v = store_->get("node/" + std::to_string(r));
		out.emplace_back(v.begin(), v.end());
	}
	return out;
}

void ProcessGroups::barrier()
{
	if (all_)
		all_->barrier()->wait();
}

// ---- gradient averaging ----

struct GradientAverager::Impl {
	struct Bucket {
		std::vector<size_t> params; // indices into `params`
		size_t ready = 0;
		torch::Tensor flat;
		c10::intrusive_ptr<c10d::Work> work;
	};
	c10::intrusive_ptr<c10d::ProcessGroup> group;
	std::vector<torch::Tensor> params;
	std::vector<torch::Tensor> grads;     // from the hooks, this step
	std::vector<size_t> bucket_of;        // per parameter
	std::vector<Bucket> buckets;
	std::vector<unsigned> hooks;
	std::mutex mu; // autograd may run hooks on its worker threads

	void launch(Bucket &b)
	{
		std::vector<torch::Tensor> parts;
		for (size_t p : b.params) {
			const torch::Tensor &g = grads[p];
			parts.push_back(g.defined() ? g.reshape(-1)
						    : torch::zeros({ params[p].numel() },
								   params[p].options()));
		}
		b.flat = torch::cat(parts);
		std::vector<torch::Tensor> t{ b.flat };
		b.work = group->allreduce(t);
	}
};

GradientAverager::GradientAverager(c10::intrusive_ptr<c10d::ProcessGroup> group,
				   std::vector<torch::Tensor> params,
				   size_t bucket_bytes)
	: impl_(std::make_unique<Impl>())
{
	Impl &m = *impl_;
	m.group = std::move(group);
	m.params = std::move(params);
	m.grads.resize(m.params.size());
	m.bucket_of.resize(m.params.size());
	// Backward produces gradients roughly from the last layer to the
	// first: fill buckets in reverse registration order.
	size_t bytes = 0;
	for (size_t k = m.params.size(); k-- > 0;) {
		if (m.buckets.empty() || bytes >= bucket_bytes) {
			m.buckets.emplace_back();
			bytes = 0;
		}
		m.buckets.back().params.push_back(k);
		m.bucket_of[k] = m.buckets.size() - 1;
		bytes += m.params[k].numel() * m.params[k].element_size();
	}
	if (!m.group)
		return; // one process: nothing to average
	for (size_t k = 0; k < m.params.size(); k++) {
		if (!m.params[k].requires_grad())
			continue;
		Impl *self = impl_.get();
		m.hooks.push_back(m.params[k].register_hook([self, k](torch::Tensor g) {
			std::lock_guard<std::mutex> lock(self->mu);
			self->grads[k] = g;
			Impl::Bucket &b = self->buckets[self->bucket_of[k]];
			if (++b.ready == b.params.size())
				self->launch(b);
		}));
	}
}

GradientAverager::~GradientAverager()
{
	for (size_t k = 0, h = 0; k < impl_->params.size() && h < impl_->hooks.size(); k++)
		if (impl_->params[k].requires_grad())
			impl_->params[k].remove_hook(impl_->hooks[h++]);
}

void GradientAverager::finish()
{
	Impl &m = *impl_;
	if (!m.group)
		return;
	std::lock_guard<std::mutex> lock(m.mu);
	const double world = m.group->getSize();
	for (Impl::Bucket &b : m.buckets) {
		if (!b.work) // a parameter got no gradient this step
			m.launch(b);
		b.work->wait();
		b.flat.div_(world);
		int64_t at = 0;
		for (size_t p : b.params) {
			torch::Tensor &param = m.params[p];
			int64_t n = param.numel();
			torch::Tensor avg = b.flat.narrow(0, at, n).view_as(param);
			if (param.mutable_grad().defined())
				param.mutable_grad().copy_(avg);
			else
				param.mutable_grad() = avg.clone();
			at += n;
		}
		b.work.reset();
		b.ready = 0;
	}
	std::fill(m.grads.begin(), m.grads.end(), torch::Tensor());
}

void broadcast_module(c10d::ProcessGroup &group, torch::nn::Module &m)
{
	torch::NoGradGuard no_grad;
	std::vector<torch::Tensor> all;
	for (auto &p : m.parameters())
		all.push_back(p);
	for (auto &b : m.buffers())
		all.push_back(b);
	for (torch::Tensor &t : all) {
		std::vector<torch::Tensor> one{ t };
		group.broadcast(one)->wait();
	}
}

static double allreduce_op(c10d::ProcessGroup *group, double v,
			   c10d::ReduceOp op, torch::Device device)
{
	if (!group)
		return v;
	std::vector<torch::Tensor> t{ torch::full(
		{ 1 }, v, torch::TensorOptions().dtype(torch::kFloat64).device(device)) };
	c10d::AllreduceOptions o;
	o.reduceOp = op;
	group->allreduce(t, o)->wait();
	return t[0].item<double>();
}

double allreduce_sum(c10d::ProcessGroup *group, double v, torch::Device device)
{
	return allreduce_op(group, v, c10d::ReduceOp::SUM, device);
}

double allreduce_max(c10d::ProcessGroup *group, double v, torch::Device device)
{
	return allreduce_op(group, v, c10d::ReduceOp::MAX, device);
}

} // namespace train
} // namespace omru
