// layer_profile_mode.cpp - see layer_profile_mode.hpp.
#include "layer_profile_mode.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <vector>

#include "models.hpp"
#include "tensor_memory.hpp"

namespace omru {
namespace train {
namespace {

using clock_type = std::chrono::steady_clock;

void sync(torch::Device d)
{
	if (d.is_cuda())
		torch::cuda::synchronize(d.index());
}

double median(std::vector<double> v)
{
	std::sort(v.begin(), v.end());
	return v[v.size() / 2];
}

struct Row {
	std::string layer;
	int batch;
	double fwd_ms, bwd_ms;
	int64_t out_bytes, stash_bytes, param_bytes;
};

// Each block's input for `batch` images: one pass without gradients.
std::vector<torch::Tensor> block_inputs(Net &net, int batch, int side, torch::Device d)
{
	torch::NoGradGuard no_grad;
	std::vector<torch::Tensor> in{ torch::randn({ batch, 3, side, side }, d) };
	for (int i = 0; i + 1 < net.blocks(); i++)
		in.push_back(net.forward_block(i, in.back()));
	return in;
}

// Forward and backward of block i on x, timed; the gradient flowing in
// is ones (its values do not change the time).
std::pair<double, double> time_block(Net &net, int i, const torch::Tensor &x, torch::Device d)
{
	std::vector<double> f, b;
	double spent = 0;
	for (int rep = 0; rep < 53 && (rep < 7 || spent < 0.5); rep++) {
		torch::Tensor in = x.detach().requires_grad_(i > 0);
		sync(d);
		auto t0 = clock_type::now();
		torch::Tensor out = net.forward_block(i, in);
		sync(d);
		auto t1 = clock_type::now();
		out.backward(torch::ones_like(out));
		sync(d);
		auto t2 = clock_type::now();
		net.zero_grad();
		double fs = std::chrono::duration<double>(t1 - t0).count();
		double bs = std::chrono::duration<double>(t2 - t1).count();
		spent += fs + bs;
		if (rep >= 3) { // warm-up: allocator, kernels, caches
			f.push_back(fs);
			b.push_back(bs);
		}
	}
	return { median(f) * 1e3, median(b) * 1e3 };
}

// Bytes block i's forward holds when it returns (output included).
int64_t stash_bytes(Net &cpu_net, int i, const torch::Tensor &x)
{
	torch::Tensor in = x.detach().requires_grad_(i > 0);
	int64_t before = tensor_bytes_live();
	torch::Tensor out = cpu_net.forward_block(i, in);
	return std::max<int64_t>(tensor_bytes_live() - before,
				 out.numel() * static_cast<int64_t>(out.element_size()));
}

} // namespace

void profile_layers(const LayerProfileOptions &o, torch::Device device)
{
	count_cpu_tensor_memory();
	torch::manual_seed(1);
	std::shared_ptr<Net> net = make_model(o.model);
	net->train();
	std::shared_ptr<Net> cpu_net = net;
	if (!device.is_cpu()) {
		torch::manual_seed(1);
		cpu_net = make_model(o.model);
		cpu_net->train();
		net->to(device);
	}
	std::vector<int> batches{ o.batch };
	if (o.batch / 4 >= 1 && o.batch / 4 != o.batch)
		batches.push_back(o.batch / 4);
	std::vector<Row> rows;
	for (int batch : batches) {
		std::vector<torch::Tensor> in = block_inputs(*net, batch, o.image_size, device);
		// Two whole steps first: thread pools, oneDNN's kernels for these
		// shapes and the allocator's pages are then warm for every block.
		for (int rep = 0; rep < 2; rep++) {
			net->forward(in[0]).sum().backward();
			net->zero_grad();
		}
		std::vector<torch::Tensor> cpu_in =
			device.is_cpu() ? in : block_inputs(*cpu_net, batch, o.image_size, torch::kCPU);
		for (int i = 0; i < net->blocks(); i++) {
			Row r;
			r.layer = net->block_name(i);
			r.batch = batch;
			std::tie(r.fwd_ms, r.bwd_ms) = time_block(*net, i, in[static_cast<size_t>(i)], device);
			torch::Tensor out;
			{
				torch::NoGradGuard no_grad;
				out = net->forward_block(i, in[static_cast<size_t>(i)]);
			}
			r.out_bytes = out.numel() * static_cast<int64_t>(out.element_size());
			r.stash_bytes = stash_bytes(*cpu_net, i, cpu_in[static_cast<size_t>(i)]);
			r.param_bytes = 0;
			for (const torch::Tensor &p : net->block_parameters(i))
				r.param_bytes += p.numel() * static_cast<int64_t>(p.element_size());
			std::printf("%-12s batch %4d: forward %8.3f ms, backward %8.3f ms, out %lld B, "
				    "stash %lld B, params %lld B\n",
				    r.layer.c_str(), batch, r.fwd_ms, r.bwd_ms,
				    static_cast<long long>(r.out_bytes),
				    static_cast<long long>(r.stash_bytes),
				    static_cast<long long>(r.param_bytes));
			rows.push_back(r);
		}
	}
	// A layer's rows together, in model order (the format asks for it).
	std::stable_sort(rows.begin(), rows.end(), [&](const Row &a, const Row &b) {
		auto pos = [&](const Row &r) {
			for (int i = 0; i < net->blocks(); i++)
				if (net->block_name(i) == r.layer)
					return i;
			return 0;
		};
		return pos(a) < pos(b);
	});
	std::string tmp = o.out + ".tmp";
	{
		std::ofstream f(tmp);
		f << "# omru-train --profile-layers: model " << o.model << ", images "
		  << o.image_size << "x" << o.image_size << ", device " << device.str() << "\n"
		  << "layer,batch,fwd_ms,bwd_ms,out_bytes,stash_bytes,param_bytes\n";
		char buf[64];
		for (const Row &r : rows) {
			std::snprintf(buf, sizeof(buf), "%.4f,%.4f", r.fwd_ms, r.bwd_ms);
			f << r.layer << "," << r.batch << "," << buf << "," << r.out_bytes << ","
			  << r.stash_bytes << "," << r.param_bytes << "\n";
		}
		if (!f.flush())
			throw std::runtime_error(o.out + ": cannot write the layer profile");
	}
	if (std::rename(tmp.c_str(), o.out.c_str()) != 0)
		throw std::runtime_error(o.out + ": cannot write the layer profile");
}

} // namespace train
} // namespace omru
