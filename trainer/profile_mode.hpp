// profile_mode.hpp - the in-job profiler: before training, time a few steps
// on each requested number of processes (sub-groups of the job's ranks),
// extrapolate the epoch time, and append rows in the profile format of
// doc/sim-formats.md (model,gpus,epoch_s,nodes) for the scheduler.
#ifndef OMRU_TRAINER_PROFILE_MODE_HPP
#define OMRU_TRAINER_PROFILE_MODE_HPP

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sample_set.hpp"
#include "distributed.hpp"
#include "models.hpp"
#include "train_options.hpp"

namespace omru {
namespace train {

struct Batch;
// One training step on `batch` with gradients averaged over `group` (none:
// a single process).
using StepFn = std::function<void(
	const Batch &batch, const c10::intrusive_ptr<c10d::ProcessGroup> &group)>;

struct ProfileResult {
	std::map<int, double> epoch_s; // per process count
	double seconds = 0;            // wall time the profiling took
};

// Collective over all ranks.  Counts above the world size are skipped with a
// message on stderr.  Rank 0 appends the rows to o.profile_out (with a header
// when the file is new or empty).
ProfileResult run_profile(ProcessGroups &pg, const TrainOptions &o,
			  std::shared_ptr<const SampleSet> data, const StepFn &step);

} // namespace train
} // namespace omru

#endif
