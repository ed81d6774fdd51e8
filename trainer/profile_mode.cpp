// profile_mode.cpp - see profile_mode.hpp.
//
// Epoch time on g processes = steps per epoch at global batch g x B (the
// data set size over g x B, rounded up) x the mean step time, taken as the
// slowest rank's mean over the timed steps after a warm-up (the first steps
// pay allocation and Gloo connection costs that no later step pays).
#include "profile_mode.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <set>
#include <sys/stat.h>

#include "data_loader.hpp"
#include "metrics.hpp"

namespace omru {
namespace train {

static double time_steps(const TrainOptions &o, std::shared_ptr<const SampleSet> data,
			 torch::Device device, int rank, int size,
			 const c10::intrusive_ptr<c10d::ProcessGroup> &group,
			 const StepFn &step)
{
	LoaderOptions lo = loader_options(o, rank, size);
	lo.seed += 7919; // not the training order
	DataLoader loader(data, lo);
	loader.start_epoch(0);
	using clock = std::chrono::steady_clock;
	auto next_batch = [&](int i) {
		std::optional<Batch> b = loader.next();
		if (!b) { // a small data set: start over
			loader.start_epoch(i + 1);
			b = loader.next();
		}
		return *b;
	};
	clock::time_point w0 = clock::now();
	int i = 0;
	for (; i < o.profile_warmup; i++)
		step(next_batch(i), group);
	// Fast steps (milliseconds) are timed over at least profile_min_s, or
	// the loader's and the scheduler's jitter swamps them; but never over
	// more than a quarter of an epoch, so profiling stays a small share of a
	// job whose epochs are short.  Every rank runs the same count (a step
	// is a collective): it comes from the slowest rank's warm-up, agreed
	// with one allreduce.
	int timed = o.profile_steps;
	if (o.profile_warmup > 0 && o.profile_min_s > 0) {
		double warm = std::chrono::duration<double>(clock::now() - w0).count() /
			      o.profile_warmup;
		warm = allreduce_max(group.get(), warm, device);
		double epoch_steps = std::ceil(static_cast<double>(data->size()) /
					       (static_cast<double>(size) * o.batch_size));
		double window = std::min(o.profile_min_s, kMaxProfileEpochShare * epoch_steps * warm);
		if (warm > 0)
			timed = static_cast<int>(std::min<double>(
				std::max<double>(timed, std::ceil(window / warm)),
				kMaxProfileSteps));
	}
	clock::time_point t0 = clock::now();
	for (int done = 0; done < timed; done++, i++)
		step(next_batch(i), group);
	double mean = std::chrono::duration<double>(clock::now() - t0).count() / timed;
	return allreduce_max(group.get(), mean, device);
}

ProfileResult run_profile(ProcessGroups &pg, const TrainOptions &o,
			  std::shared_ptr<const SampleSet> data, const StepFn &step)
{
	auto start = std::chrono::steady_clock::now();
	ProfileResult r;
	std::vector<std::string> nodes = pg.nodes();
	for (int g : o.profile_gpus) {
		if (g > pg.world()) {
			if (pg.rank() == 0)
				std::fprintf(stderr, "omru-train: profile: skipping %d processes "
						     "(the step has %d)\n", g, pg.world());
			continue;
		}
		c10::intrusive_ptr<c10d::ProcessGroup> group = pg.first(g);
		double step_s = 0;
		if (pg.rank() < g)
			step_s = time_steps(o, data, pg.device(), pg.rank(), g, group, step);
		pg.barrier();
		if (pg.rank() != 0)
			continue;
		double steps = std::ceil(static_cast<double>(data->size()) /
					 (static_cast<double>(g) * o.batch_size));
		r.epoch_s[g] = steps * step_s;
		std::set<std::string> spanned(nodes.begin(), nodes.begin() + g);
		struct stat st;
		bool fresh = stat(o.profile_out.c_str(), &st) != 0 || st.st_size == 0;
		if (fresh)
			append_line(o.profile_out, "model,gpus,epoch_s,nodes");
		char row[256];
		std::snprintf(row, sizeof(row), "%s,%d,%.4f,%zu", o.model.c_str(), g,
			      r.epoch_s[g], spanned.size());
		append_line(o.profile_out, row);
		std::fprintf(stderr, "omru-train: profile: %d process(es) on %zu node(s): "
				     "%.4f s/step, epoch ~%.1f s\n",
			     g, spanned.size(), step_s, r.epoch_s[g]);
	}
	r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
	return r;
}

} // namespace train
} // namespace omru
