// pipeline_trainer.cpp - see pipeline_trainer.hpp.
#include "pipeline_trainer.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

#include "data_loader.hpp"
#include "data_source.hpp"
#include "distributed.hpp"
#include "lr_schedule.hpp"
#include "metrics.hpp"
#include "models.hpp"
#include "pipeline_split.hpp"
#include "tensor_memory.hpp"

namespace omru {
namespace train {
namespace {

using clock_type = std::chrono::steady_clock;

// Tags of the messages about micro-batch k: what they carry.
enum Kind { kShape = 0, kActivation = 1, kLabels = 2, kGradient = 3 };
int tag(int k, Kind kind)
{
	return k * 4 + kind;
}

constexpr int kMaxDims = 7;

// One micro-batch's way through this stage, kept from forward to backward:
// stretches of the autograd graph, cut at each recomputed block (which
// keeps only its input).
struct Piece {
	torch::Tensor in;  // a leaf: the stretch's (or recomputed block's) input
	torch::Tensor out; // the stretch's output (or the loss); undefined for a
			   // recomputed block
	int recompute_block = -1;
	bool input_grad = false; // a recomputed block: its input needs a gradient
};

class Stage {
    public:
	Stage(const TrainOptions &o, const RankEnv &env)
		: o_(o), env_(env), device_(compute_device(env)), pg_(env, device_)
	{
		count_cpu_tensor_memory();
		if (pg_.world() < 2)
			throw std::invalid_argument("--parallel pipeline needs at least 2 processes");
		// Only the first stage reads the data; every rank needs the classes.
		torch::manual_seed(static_cast<uint64_t>(o.seed));
		std::shared_ptr<Net> probe = make_model(o.model, 1);
		std::vector<std::string> names;
		for (int b = 0; b < probe->blocks(); b++)
			names.push_back(probe->block_name(b));
		int micro = o.micro_batches;
		if (micro == 0) { // 4 per first-stage process
			size_t colon = o.pipeline.find(':');
			int r0 = colon == std::string::npos
					 ? 1
					 : std::max(1, std::atoi(o.pipeline.c_str() + colon + 1));
			micro = 4 * r0;
		}
		split_ = parse_pipeline_split(o.pipeline, o.recompute, names, env.world, micro);
		s_ = split_.stage_of(env.rank);
		const PipelineStage &me = split_.stages[static_cast<size_t>(s_)];
		replica_ = env.rank - me.first_rank;
		global_ = static_cast<int>(env.world) * o.batch_size;
		if (global_ % split_.micro_batches)
			throw std::invalid_argument("--micro-batches " +
						    std::to_string(split_.micro_batches) +
						    " does not divide the global batch " +
						    std::to_string(global_));
		int classes = 0;
		if (s_ == 0) {
			data_ = open_training_set(o.data, o.image_size);
			classes = data_->classes();
			if (env.rank == 0)
				std::fprintf(stderr, "omru-train: %s\n", data_->describe().c_str());
		}
		classes = static_cast<int>(allreduce_max(pg_.all().get(), classes, device_));
		torch::manual_seed(static_cast<uint64_t>(o.seed));
		net_ = make_model(o.model, classes);
		net_->to(device_);
		base_bytes_ = tensor_bytes_live();
		for (const PipelineStage &st : split_.stages) {
			auto g = pg_.ranks(st.first_rank, st.replicas);
			if (&st == &me)
				group_ = g;
		}
		for (int b = me.first_block; b < me.end_block; b++)
			for (const torch::Tensor &p : net_->block_parameters(b))
				params_.push_back(p);
		if (!params_.empty())
			opt_ = std::make_unique<torch::optim::SGD>(
				params_, torch::optim::SGDOptions(o.base_lr)
						 .momentum(o.momentum)
						 .weight_decay(o.weight_decay));
		sched_ = std::make_unique<LrSchedule>(o.base_lr, o.reference_batch,
						      o.warmup_epochs);
		sched_->set_global_batch(global_, 0);
		if (env.rank == 0 && o.profile_skipped)
			std::fprintf(stderr, "omru-train: OMRU_PROFILE ignored: pipeline mode does "
					     "not profile data-parallel epoch times\n");
		if (env.rank == 0) {
			std::string desc;
			for (const PipelineStage &st : split_.stages)
				desc += (desc.empty() ? "" : ", ") + names[st.first_block] +
					(st.end_block - st.first_block > 1
						 ? ".." + names[st.end_block - 1]
						 : std::string()) +
					" x" + std::to_string(st.replicas);
			std::fprintf(stderr,
				     "omru-train: pipeline of %zu stages (%s), %d micro-batches of "
				     "%d samples\n",
				     split_.stages.size(), desc.c_str(), split_.micro_batches,
				     global_ / split_.micro_batches);
		}
	}

	int run()
	{
		// The model and optimizer are in place: what a step adds is the
		// activations kept for backward (and the loader's batches).
		reset_tensor_peak();
		std::unique_ptr<DataLoader> loader;
		const PipelineStage &first = split_.stages[0];
		if (s_ == 0) {
			LoaderOptions lo = loader_options(o_, replica_, first.replicas);
			lo.batch_size = static_cast<size_t>(global_ / first.replicas);
			loader = std::make_unique<DataLoader>(data_, lo);
		}
		for (int epoch = 0; epoch < o_.epochs; epoch++) {
			EpochMetrics m = train_epoch(loader.get(), epoch);
			if (env_.rank == 0)
				report(m);
		}
		if (!o_.save_params.empty())
			save_params();
		if (device_.is_cpu()) {
			const PipelineStage &me = split_.stages[static_cast<size_t>(s_)];
			std::fprintf(stderr,
				     "omru-train: rank %d (stage %d, blocks %d..%d): peak tensor "
				     "memory %.1f MiB in training\n",
				     env_.rank, s_, me.first_block, me.end_block - 1,
				     static_cast<double>(peak_bytes_) / (1 << 20));
		}
		return 0;
	}

    private:
	EpochMetrics train_epoch(DataLoader *loader, int epoch)
	{
		c10d::ProcessGroup *all = pg_.all().get();
		double steps = 0;
		if (loader) {
			loader->start_epoch(epoch);
			loader->reset_wait();
			steps = static_cast<double>(loader->batches_this_epoch());
			if (o_.max_steps_per_epoch > 0)
				steps = std::min(steps, static_cast<double>(o_.max_steps_per_epoch));
		}
		const int n = static_cast<int>(allreduce_max(all, steps, device_));
		net_->train();
		auto t0 = clock_type::now();
		loss_sum_ = 0;
		correct_ = 0;
		samples_ = 0;
		for (int i = 0; i < n; i++) {
			std::optional<Batch> b;
			if (loader && !(b = loader->next()))
				throw std::runtime_error("the data loader ran out of batches");
			set_lr(sched_->lr(epoch + static_cast<double>(i) / n));
			step(b ? &*b : nullptr);
		}
		peak_bytes_ = std::max(peak_bytes_, tensor_bytes_peak() - base_bytes_);
		double epoch_s = std::chrono::duration<double>(clock_type::now() - t0).count();
		EpochMetrics m;
		m.epoch = epoch + 1;
		double all_samples = allreduce_sum(all, samples_, device_);
		m.loss = allreduce_sum(all, loss_sum_, device_) / std::max(1, n);
		m.accuracy = allreduce_sum(all, correct_, device_) / std::max(1.0, all_samples);
		m.epoch_s = allreduce_max(all, epoch_s, device_);
		m.samples_per_s = all_samples / m.epoch_s;
		m.data_wait_fraction = loader ? loader->wait_seconds() / std::max(epoch_s, 1e-9) : 0;
		m.loader_workers = loader ? loader->workers() : 0;
		m.world_size = env_.world;
		m.lr = sched_->lr(epoch + 1);
		return m;
	}

	void set_lr(double lr)
	{
		if (!opt_)
			return;
		for (auto &group : opt_->param_groups())
			static_cast<torch::optim::SGDOptions &>(group.options()).lr(lr);
	}

	int rank_of(int stage, int k) const
	{
		const PipelineStage &st = split_.stages[static_cast<size_t>(stage)];
		return st.first_rank + k % st.replicas;
	}

	void send(torch::Tensor t, int dst, int tg)
	{
		std::vector<torch::Tensor> v{ t.contiguous() };
		pending_.push_back(pg_.all()->send(v, dst, tg));
		keep_.push_back(v[0]);
	}

	torch::Tensor recv(std::vector<int64_t> shape, torch::Dtype dtype, int src, int tg)
	{
		std::vector<torch::Tensor> v{ torch::empty(shape, torch::TensorOptions(dtype).device(device_)) };
		pg_.all()->recv(v, src, tg)->wait();
		return v[0];
	}

	// An activation and its labels from the stage before.
	std::pair<torch::Tensor, torch::Tensor> recv_forward(int k)
	{
		int src = rank_of(s_ - 1, k);
		torch::Tensor shape = recv({ kMaxDims + 1 }, torch::kInt64, src, tag(k, kShape)).cpu();
		std::vector<int64_t> dims;
		for (int64_t d = 0; d < shape[0].item<int64_t>(); d++)
			dims.push_back(shape[d + 1].item<int64_t>());
		torch::Tensor act = recv(dims, torch::kFloat32, src, tag(k, kActivation));
		torch::Tensor labels = recv({ dims[0] }, torch::kInt64, src, tag(k, kLabels));
		return { act, labels };
	}

	void send_forward(int k, const torch::Tensor &act, const torch::Tensor &labels)
	{
		int dst = rank_of(s_ + 1, k);
		if (act.dim() > kMaxDims)
			throw std::runtime_error("an activation of more than 7 dimensions");
		torch::Tensor shape = torch::zeros({ kMaxDims + 1 }, torch::kInt64);
		shape[0] = act.dim();
		for (int64_t d = 0; d < act.dim(); d++)
			shape[d + 1] = act.size(d);
		send(shape.to(device_), dst, tag(k, kShape));
		send(act.to(torch::kFloat32), dst, tag(k, kActivation));
		send(labels, dst, tag(k, kLabels));
	}

	// This stage's blocks on x; the pieces backward needs.
	std::vector<Piece> forward(torch::Tensor x)
	{
		const PipelineStage &me = split_.stages[static_cast<size_t>(s_)];
		std::vector<Piece> pieces;
		torch::Tensor leaf = x, cur = x;
		for (int b = me.first_block; b < me.end_block; b++) {
			if (!split_.recompute[static_cast<size_t>(b)]) {
				cur = net_->forward_block(b, cur);
				continue;
			}
			pieces.push_back(Piece{ leaf, cur, -1, false });
			torch::Tensor in = cur.detach();
			torch::Tensor y;
			{
				torch::NoGradGuard no_grad;
				y = net_->forward_block(b, in);
			}
			pieces.push_back(Piece{ in, torch::Tensor(), b, cur.requires_grad() });
			leaf = y.detach().requires_grad_(true);
			cur = leaf;
		}
		pieces.push_back(Piece{ leaf, cur, -1, false });
		return pieces;
	}

	// Back through the pieces from `grad` (undefined: the last piece's out
	// is the loss); RET the gradient of the stage's input.
	torch::Tensor backward(std::vector<Piece> &pieces, torch::Tensor grad)
	{
		for (size_t i = pieces.size(); i-- > 0;) {
			Piece &p = pieces[i];
			torch::Tensor out = p.out, in = p.in;
			if (p.recompute_block >= 0) {
				in = p.in.detach().requires_grad_(p.input_grad);
				out = net_->forward_block(p.recompute_block, in);
			}
			if (out.requires_grad()) {
				if (grad.defined())
					out.backward(grad);
				else
					out.backward();
				grad = in.requires_grad() ? in.grad() : torch::Tensor();
			}
		}
		return grad;
	}

	void step(const Batch *b)
	{
		const int S = static_cast<int>(split_.stages.size());
		const int M = split_.micro_batches;
		const int r = split_.stages[static_cast<size_t>(s_)].replicas;
		const bool last = s_ == S - 1;
		std::vector<torch::Tensor> images, labels;
		if (b) {
			int local = M / r; // the first stage: r = r0 divides M
			images = b->images.to(device_).chunk(local);
			labels = b->labels.to(device_).chunk(local);
		}
		std::vector<int> mine;
		for (int k = replica_; k < M; k += r)
			mine.push_back(k);
		std::vector<std::vector<Piece>> kept(mine.size());
		for (size_t j = 0; j < mine.size(); j++) {
			int k = mine[j];
			torch::Tensor x, y;
			if (s_ == 0) {
				x = images[j];
				y = labels[j];
			} else {
				std::tie(x, y) = recv_forward(k);
				x.requires_grad_(true);
			}
			kept[j] = forward(x);
			torch::Tensor out = kept[j].back().out;
			if (last) {
				torch::Tensor loss = torch::nn::functional::cross_entropy(out, y);
				double share = static_cast<double>(y.size(0)) / global_;
				loss_sum_ += loss.item<double>() * share;
				correct_ += static_cast<double>(out.argmax(1).eq(y).sum().item<int64_t>());
				samples_ += static_cast<double>(y.size(0));
				kept[j].back().out = loss * share;
			} else {
				send_forward(k, out.detach(), y);
			}
		}
		for (size_t j = mine.size(); j-- > 0;) {
			int k = mine[j];
			torch::Tensor grad;
			if (!last) {
				torch::Tensor out = kept[j].back().out;
				grad = recv(out.sizes().vec(), torch::kFloat32, rank_of(s_ + 1, k),
					    tag(k, kGradient));
			}
			torch::Tensor g = backward(kept[j], grad);
			kept[j].clear();
			if (s_ > 0)
				send(g, rank_of(s_ - 1, k), tag(k, kGradient));
		}
		sum_gradients();
		for (auto &w : pending_)
			w->wait();
		pending_.clear();
		keep_.clear();
		if (opt_) {
			opt_->step();
			opt_->zero_grad();
		}
	}

	// The replicas' gradients summed (each holds its micro-batches' part
	// of the global batch's mean): one flat allreduce.
	void sum_gradients()
	{
		if (!group_ || params_.empty())
			return;
		std::vector<torch::Tensor> grads;
		for (torch::Tensor &p : params_)
			grads.push_back(p.grad().defined() ? p.grad() : torch::zeros_like(p));
		std::vector<torch::Tensor> flat{ torch::cat(
			[&] {
				std::vector<torch::Tensor> v;
				for (auto &g : grads)
					v.push_back(g.reshape(-1));
				return v;
			}()) };
		group_->allreduce(flat)->wait();
		int64_t at = 0;
		for (torch::Tensor &p : params_) {
			int64_t n = p.numel();
			torch::Tensor part = flat[0].narrow(0, at, n).view_as(p);
			if (p.grad().defined())
				p.mutable_grad().copy_(part);
			else
				p.mutable_grad() = part.clone();
			at += n;
		}
	}

	void report(const EpochMetrics &m)
	{
		std::string line = metrics_json(m);
		if (!o_.metrics.empty())
			append_line(o_.metrics, line);
		if (!o_.slurm_metrics.empty()) {
			try {
				append_line(o_.slurm_metrics, line);
			} catch (const std::exception &e) {
				std::fprintf(stderr, "omru-train: no summary for sacct: %s\n",
					     e.what());
				o_.slurm_metrics.clear();
			}
		}
		std::fprintf(stderr, "omru-train: %s\n", line.c_str());
	}

	// The first replica of each stage writes its blocks' parameters, in
	// the format of the data-parallel trainer's --save-params.
	void save_params()
	{
		if (replica_ != 0)
			return;
		std::string path = o_.save_params + "." + std::to_string(env_.rank);
		std::ofstream f(path);
		f.precision(9);
		for (const auto &p : net_->named_parameters()) {
			bool ours = false;
			for (const torch::Tensor &q : params_)
				ours = ours || q.is_same(p.value());
			if (!ours)
				continue;
			torch::Tensor flat =
				p.value().detach().reshape(-1).to(torch::kCPU, torch::kFloat64);
			auto a = flat.accessor<double, 1>();
			for (int64_t i = 0; i < flat.size(0); i++)
				f << p.key() << ' ' << i << ' ' << a[i] << '\n';
		}
		if (!f.flush())
			throw std::runtime_error(path + ": cannot write parameters");
	}

	TrainOptions o_;
	RankEnv env_;
	torch::Device device_;
	ProcessGroups pg_;
	PipelineSplit split_;
	int s_ = 0, replica_ = 0, global_ = 0;
	std::shared_ptr<const SampleSet> data_;
	std::shared_ptr<Net> net_;
	c10::intrusive_ptr<c10d::ProcessGroup> group_;
	std::vector<torch::Tensor> params_;
	std::unique_ptr<torch::optim::SGD> opt_;
	std::unique_ptr<LrSchedule> sched_;
	std::vector<c10::intrusive_ptr<c10d::Work>> pending_;
	std::vector<torch::Tensor> keep_;
	double loss_sum_ = 0, correct_ = 0, samples_ = 0;
	int64_t base_bytes_ = 0, peak_bytes_ = 0; // tensor memory (tensor_memory.hpp)
};

} // namespace

int train_pipeline(const TrainOptions &o, const RankEnv &env)
{
	Stage stage(o, env);
	return stage.run();
}

} // namespace train
} // namespace omru
