// omru_train.cpp - omru-train: data-parallel training of an image classifier
// (CIFAR-10 records or a folder of JPEG files),
// the reference trainer the scheduler's demo and tests run under srun.
// One process per GPU (or CPU share): Slurm's environment says who is who;
// gradients are averaged by bucketed allreduce overlapped with backward; the
// learning rate follows the linear scaling rule with warm-up, re-applied
// when the world size changes (a job resumed from a checkpoint on another
// GPU count); the data loader's worker pool follows the share the node
// writes to OMRU_LOADER_SHARE_FILE, and the first task on each node reports
// what its loader measures to OMRU_LOADER_REPORT (spank_omru(8)).
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <thread>

#include "checkpoint.hpp"
#include "cli_args.hpp"
#include "data_loader.hpp"
#include "data_source.hpp"
#include "distributed.hpp"
#include "loader_share.hpp"
#include "lr_schedule.hpp"
#include "metrics.hpp"
#include "models.hpp"
#include "phase_tracker.hpp"
#include "layer_profile_mode.hpp"
#include "parallel_auto.hpp"
#include "pipeline_trainer.hpp"
#include "profile_mode.hpp"
#include "stop_request.hpp"
#include "train_options.hpp"

using namespace omru;
using namespace omru::train;
using clock_type = std::chrono::steady_clock;

namespace {

// --loader-benchmark: the loader alone, as fast as it goes.
int benchmark_loader(const TrainOptions &o)
{
	std::shared_ptr<const SampleSet> data = open_training_set(o.data, o.image_size);
	DataLoader loader(data, loader_options(o, 0, 1));
	int epoch = 0;
	loader.start_epoch(epoch);
	loader.next(); // threads started, first batch made
	auto t0 = clock_type::now();
	int64_t images = 0;
	for (int i = 0; i < o.loader_benchmark; i++) {
		std::optional<Batch> b = loader.next();
		if (!b) {
			loader.start_epoch(++epoch);
			b = loader.next();
		}
		images += b->labels.size(0);
	}
	double s = std::chrono::duration<double>(clock_type::now() - t0).count();
	std::printf("loader: %s; %d worker(s), batch %d%s: %.0f images/s, %.0f per worker\n",
		    data->describe().c_str(), o.loader_workers, o.batch_size,
		    o.augment ? ", augmenting" : "", images / s, images / s / o.loader_workers);
	return 0;
}

int default_threads()
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	const char *per_node = std::getenv("SLURM_NTASKS_PER_NODE");
	long tasks = per_node ? std::max(1L, std::strtol(per_node, nullptr, 10)) : 1;
	if (const char *cpus = std::getenv("SLURM_CPUS_PER_TASK"))
		return std::max(1, std::atoi(cpus));
	return static_cast<int>(std::max(1L, cores / tasks));
}

class Trainer {
    public:
	Trainer(const TrainOptions &o, const RankEnv &env)
		: o_(o), env_(env), device_(compute_device(env)), pg_(env, device_)
	{
		data_ = open_training_set(o.data, o.image_size);
		if (env.rank == 0)
			std::fprintf(stderr, "omru-train: %s\n", data_->describe().c_str());
		torch::manual_seed(static_cast<uint64_t>(o.seed));
		net_ = make_model(o.model, data_->classes());
		net_->to(device_);
		if (pg_.all())
			broadcast_module(*pg_.all(), *net_);
		opt_ = make_optimizer();
		sched_ = std::make_unique<LrSchedule>(o.base_lr, o.reference_batch, o.warmup_epochs);
	}

	int run()
	{
		auto job_start = clock_type::now();
		int first_epoch = resume();
		const size_t global = static_cast<size_t>(env_.world) * o_.batch_size;
		sched_->set_global_batch(static_cast<int>(global),
					 first_epoch + static_cast<double>(skip_) /
							       static_cast<double>(data_->size()));
		if (o_.elastic)
			watch_stop_requests();

		std::optional<double> profiled;
		double profile_s = 0;
		// A resumed run (an elastic job restarted) was profiled before.
		if (!o_.profile_gpus.empty() && first_epoch == 0 && skip_ == 0) {
			// One averager per group, as in training: its hooks stay
			// registered across the timed steps (a fresh one per step
			// adds hook bookkeeping that training does not pay).
			std::unique_ptr<GradientAverager> avg;
			c10d::ProcessGroup *avg_group = nullptr;
			ProfileResult pr = run_profile(
				pg_, o_, data_,
				[&](const Batch &b, const c10::intrusive_ptr<c10d::ProcessGroup> &g) {
					if (!avg || avg_group != g.get()) {
						avg.reset();
						avg = std::make_unique<GradientAverager>(
							g, net_->parameters());
						avg_group = g.get();
					}
					step(b, *avg);
				});
			avg.reset();
			profile_s = pr.seconds;
			if (pr.epoch_s.count(env_.world))
				profiled = pr.epoch_s[env_.world];
			// Profiling trained some replicas on their own: start the
			// run from rank 0's weights with a fresh optimizer.
			if (pg_.all())
				broadcast_module(*pg_.all(), *net_);
			opt_ = make_optimizer();
		}

		LoaderOptions lo = loader_options(o_, env_.rank, env_.world);
		if (!o_.loader_share_file.empty())
			lo.workers = read_share_file(o_.loader_share_file).value_or(lo.workers);
		DataLoader loader(data_, lo);
		// The node's share is followed by a thread, not between steps:
		// a step of a large model can take longer than a second.
		std::unique_ptr<ShareFollower> follow;
		if (!o_.loader_share_file.empty())
			follow = std::make_unique<ShareFollower>(o_.loader_share_file, loader);
		GradientAverager averager(pg_.all(), net_->parameters());

		for (int epoch = first_epoch; epoch < o_.epochs; epoch++) {
			size_t skip = epoch == first_epoch ? skip_ : 0;
			EpochMetrics m = train_epoch(loader, averager, epoch, skip);
			if (stopped_at_) {
				// Asked to stop (a resize): checkpoint at this step
				// and exit for the requeue; the epoch's metrics line
				// comes from the run that finishes it.
				save(epoch, *stopped_at_);
				pg_.barrier();
				if (env_.rank == 0)
					std::fprintf(stderr, "omru-train: stop requested: checkpoint "
							     "at epoch %d + %zu samples written to %s; "
							     "exiting %d to be requeued\n",
						     epoch, *stopped_at_, o_.checkpoint.c_str(),
						     kElasticExitCode);
				return kElasticExitCode;
			}
			if (epoch == first_epoch) {
				m.profiled_epoch_s = profiled;
				if (profile_s > 0)
					m.profile_s = profile_s;
			}
			if (env_.rank == 0)
				report(m);
			save(epoch + 1);
		}
		if (env_.local_rank == 0 && !o_.loader_report.empty())
			write_report(window_.finish(loader.workers()));
		if (!o_.save_params.empty())
			save_params();
		if (env_.rank == 0 && profile_s > 0) {
			double total = std::chrono::duration<double>(clock_type::now() - job_start).count();
			std::fprintf(stderr, "omru-train: profiling took %.1f s, %.1f%% of the job\n",
				     profile_s, 100 * profile_s / total);
		}
		return 0;
	}

    private:
	std::unique_ptr<torch::optim::SGD> make_optimizer()
	{
		return std::make_unique<torch::optim::SGD>(
			net_->parameters(), torch::optim::SGDOptions(o_.base_lr)
						    .momentum(o_.momentum)
						    .weight_decay(o_.weight_decay));
	}

	int resume()
	{
		if (o_.checkpoint.empty())
			return 0;
		Progress p;
		if (!load_checkpoint(o_.checkpoint, *net_, *opt_, p, o_.model))
			return 0;
		sched_->restore(p.lr);
		skip_ = static_cast<size_t>(p.samples_into_epoch);
		resumed_ = true;
		resumed_steps_left_ = kResumeCheckSteps;
		if (env_.rank == 0) {
			std::string into = skip_ ? " + " + std::to_string(skip_) + " samples" : "";
			std::fprintf(stderr, "omru-train: resumed %s after epoch %d%s "
					     "(written by %d process(es), now %d)\n",
				     o_.checkpoint.c_str(), p.epochs_done, into.c_str(),
				     p.world_size, env_.world);
		}
		return p.epochs_done;
	}

	void set_lr(double lr)
	{
		for (auto &group : opt_->param_groups())
			static_cast<torch::optim::SGDOptions &>(group.options()).lr(lr);
	}

	// forward + backward + averaged gradients + step; RET (loss, correct).
	std::pair<double, int64_t> step(const Batch &b, GradientAverager &avg)
	{
		opt_->zero_grad();
		torch::Tensor images = b.images.to(device_), labels = b.labels.to(device_);
		torch::Tensor out = net_->forward(images);
		torch::Tensor loss = torch::nn::functional::cross_entropy(out, labels);
		loss.backward();
		avg.finish();
		opt_->step();
		int64_t correct = out.argmax(1).eq(labels).sum().item<int64_t>();
		return { loss.item<double>(), correct };
	}

	// `skip`: samples of this epoch a stopped run trained already.
	EpochMetrics train_epoch(DataLoader &loader, GradientAverager &avg, int epoch,
				 size_t skip)
	{
		loader.start_epoch(epoch, skip);
		loader.reset_wait();
		const bool reporting = env_.local_rank == 0 && !o_.loader_report.empty();
		if (reporting)
			window_.restart(loader.counters(), seconds_now());
		net_->train();
		const size_t steps = o_.max_steps_per_epoch > 0
			? std::min<size_t>(o_.max_steps_per_epoch, loader.batches_this_epoch())
			: loader.batches_this_epoch();
		const size_t global = static_cast<size_t>(env_.world) * o_.batch_size;
		// The schedule's position counts the steps a stopped run did.
		const double done_before = static_cast<double>(skip) / global;
		auto t0 = clock_type::now();
		double loss_sum = 0;
		int64_t correct = 0, samples = 0;
		for (size_t i = 0; i < steps; i++) {
			std::optional<Batch> b = loader.next();
			if (!b)
				break;
			set_lr(sched_->lr(epoch + (done_before + static_cast<double>(i)) /
							  (done_before + steps)));
			auto [loss, ok] = step(*b, avg);
			if (resumed_)
				report_resumed();
			report_resumed_loss(loss);
			track_phase(loss);
			loss_sum += loss;
			correct += ok;
			samples += b->labels.size(0);
			if (reporting)
				report_loader(loader, static_cast<uint64_t>(b->labels.size(0)));
			// Every rank must stop at the same step: agreed each step
			// (one scalar allreduce) in elastic runs only.
			if (o_.elastic && i + 1 < steps &&
			    allreduce_max(pg_.all().get(), stop_requested() ? 1.0 : 0.0,
					  device_) > 0) {
				stopped_at_ = skip + (i + 1) * global;
				break;
			}
		}
		double epoch_s = std::chrono::duration<double>(clock_type::now() - t0).count();
		c10d::ProcessGroup *g = pg_.all().get();
		EpochMetrics m;
		m.epoch = epoch + 1;
		const torch::Device d = device_;
		double all_samples = allreduce_sum(g, static_cast<double>(samples), d);
		m.loss = allreduce_sum(g, loss_sum, d) /
			 std::max(1.0, allreduce_sum(g, static_cast<double>(steps), d));
		m.accuracy = allreduce_sum(g, static_cast<double>(correct), d) /
			     std::max(1.0, all_samples);
		m.epoch_s = allreduce_max(g, epoch_s, d);
		m.samples_per_s = all_samples / m.epoch_s;
		m.data_wait_fraction = loader.wait_seconds() / std::max(epoch_s, 1e-9);
		m.loader_workers = loader.workers();
		m.world_size = env_.world;
		m.lr = sched_->lr(epoch + 1);
		m.loss_drop_first_100_steps = phase_drop_;
		return m;
	}

	static double seconds_now()
	{
		return std::chrono::duration<double>(clock_type::now().time_since_epoch()).count();
	}

	// Every few seconds of training: what this task's loader did, for the
	// node's re-share.
	void report_loader(const DataLoader &loader, uint64_t samples)
	{
		write_report(window_.step(samples, loader.workers(), loader.counters(),
					  seconds_now()));
	}

	// A failed write is said once; training goes on.
	void write_report(const std::optional<LoaderSample> &s)
	{
		if (!s || report_failed_)
			return;
		if (!write_loader_report(o_.loader_report, *s)) {
			std::fprintf(stderr, "omru-train: cannot write the loader report %s\n",
				     o_.loader_report.c_str());
			report_failed_ = true;
		}
	}

	// A resumed run trains again: when, for the controller's measure of
	// what the resize cost (stop request to training again).
	void report_resumed()
	{
		resumed_ = false;
		if (env_.rank != 0 || o_.resume_file.empty())
			return;
		char line[64];
		double now = std::chrono::duration<double>(
			std::chrono::system_clock::now().time_since_epoch()).count();
		std::snprintf(line, sizeof(line), "%.3f", now);
		if (!replace_line(o_.resume_file, line))
			std::fprintf(stderr, "omru-train: cannot write the resume file %s\n",
				     o_.resume_file.c_str());
	}

	// The mean loss of a resumed run's first steps, said once: near the
	// checkpoint's when the parameters came back, near a fresh model's
	// (ln 10 for ten classes) when they did not.  Rank 0's own batches.
	void report_resumed_loss(double loss)
	{
		if (resumed_steps_left_ == 0)
			return;
		resumed_loss_sum_ += loss;
		if (--resumed_steps_left_ > 0 || env_.rank != 0)
			return;
		std::fprintf(stderr,
			     "omru-train: mean loss of the first %d steps after the resume: %.4f\n",
			     kResumeCheckSteps, resumed_loss_sum_ / kResumeCheckSteps);
	}

	void track_phase(double loss)
	{
		if (global_step_ == 0)
			first_loss_ = loss;
		if (global_step_ == 100)
			phase_drop_ = first_loss_ - loss;
		global_step_++;
		std::optional<CommentPhase> p = phase_.add(loss);
		if (!p || env_.rank != 0 || o_.phase_file.empty() || phase_failed_)
			return;
		if (!replace_line(o_.phase_file, phase_line(*p))) {
			std::fprintf(stderr, "omru-train: cannot write the phase file %s\n",
				     o_.phase_file.c_str());
			phase_failed_ = true; // said once
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
				o_.slurm_metrics.clear(); // said once
			}
		}
		std::fprintf(stderr, "omru-train: %s\n", line.c_str());
	}

	void save(int epochs_done, size_t samples_into_epoch = 0)
	{
		if (o_.checkpoint.empty() || env_.rank != 0)
			return;
		Progress p;
		p.model = o_.model;
		p.epochs_done = epochs_done;
		p.samples_into_epoch = samples_into_epoch;
		p.world_size = env_.world;
		p.global_batch = env_.world * o_.batch_size;
		p.seed = o_.seed;
		p.lr = sched_->state();
		save_checkpoint(o_.checkpoint, *net_, *opt_, p);
	}

	void save_params()
	{
		std::string path = o_.save_params + "." + std::to_string(env_.rank);
		std::ofstream f(path);
		f.precision(9);
		for (const auto &p : net_->named_parameters()) {
			torch::Tensor flat = p.value().detach().reshape(-1).to(torch::kCPU, torch::kFloat64);
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
	std::shared_ptr<const SampleSet> data_;
	std::shared_ptr<Net> net_;
	std::unique_ptr<torch::optim::SGD> opt_;
	std::unique_ptr<LrSchedule> sched_;
	long global_step_ = 0;
	size_t skip_ = 0; // samples of the first epoch done before a resume
	std::optional<size_t> stopped_at_; // a stop request: samples into the epoch
	double first_loss_ = 0;
	std::optional<double> phase_drop_;
	PhaseTracker phase_;
	bool phase_failed_ = false;
	bool resumed_ = false; // from a checkpoint, no step trained yet
	static constexpr int kResumeCheckSteps = 10;
	int resumed_steps_left_ = 0; // of the steps report_resumed_loss averages
	double resumed_loss_sum_ = 0;
	LoaderWindow window_;
	bool report_failed_ = false;
};

} // namespace

int main(int argc, char **argv)
{
	std::vector<std::string> args(argv + 1, argv + argc);
	if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h")) {
		std::cout << kTrainUsage << "\n" << kTrainHelp;
		return 0;
	}
	if (args.size() == 1 && args[0] == "--version") {
		std::cout << "omru-train " OMRU_VERSION " (libtorch " TORCH_VERSION ")\n";
		return 0;
	}
	RankEnv env;
	TrainOptions o;
	try {
		env = rank_env([](const char *n) { return std::getenv(n); });
		o = parse_train_options(args, [](const char *n) { return std::getenv(n); }, env.world);
	} catch (const UsageError &e) {
		std::cerr << "omru-train: " << e.what() << "\n" << kTrainUsage;
		return 2;
	} catch (const std::exception &e) {
		std::cerr << "omru-train: " << e.what() << "\n";
		return 2;
	}
	torch::set_num_threads(o.threads > 0 ? o.threads : default_threads());
	try {
		if (o.loader_benchmark > 0)
			return benchmark_loader(o);
		if (!o.profile_layers.empty()) {
			if (env.rank == 0)
				profile_layers(LayerProfileOptions{ o.model, o.batch_size,
								    o.image_size > 0 ? o.image_size : 32,
								    o.profile_layers },
					       compute_device(env));
			return 0;
		}
		if (o.parallel_auto) {
			std::string said;
			o = choose_parallel(o, env, [](const char *n) { return std::getenv(n); }, said);
			if (env.rank == 0)
				std::cerr << "omru-train: " << said << "\n";
		}
		if (o.pipeline_mode)
			return train_pipeline(o, env);
		Trainer t(o, env);
		return t.run();
	} catch (const std::invalid_argument &e) {
		std::cerr << "omru-train: " << e.what() << "\n";
		return 2;
	} catch (const std::exception &e) {
		std::cerr << "omru-train: rank " << env.rank << ": " << e.what() << "\n";
		return 1;
	}
}
