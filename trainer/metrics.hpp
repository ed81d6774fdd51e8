// metrics.hpp - what omru-train reports: one JSON line per epoch (the
// scheduler and sacct-side tools read it), and the phase signal the
// planner uses: how much the loss fell over the first 100 steps.
#ifndef OMRU_TRAINER_METRICS_HPP
#define OMRU_TRAINER_METRICS_HPP

#include <optional>
#include <string>

namespace omru {
namespace train {

struct EpochMetrics {
	int epoch = 0;              // 1-based, the epoch just finished
	double loss = 0;            // mean training loss over the epoch
	double accuracy = 0;        // training accuracy over the epoch, 0..1
	double samples_per_s = 0;   // all ranks together
	double data_wait_fraction = 0; // share of the epoch rank 0 waited for data
	int loader_workers = 0;
	int world_size = 0;
	double lr = 0;              // at the end of the epoch
	double epoch_s = 0;
	// Loss at step 0 minus loss at step 100 (global steps): the phase
	// signal; empty until 100 steps have run.
	std::optional<double> loss_drop_first_100_steps;
	// Profile mode: the extrapolated epoch time at this world size, to
	// compare with epoch_s.
	std::optional<double> profiled_epoch_s;
	// Profile mode, first epoch: the wall time profiling took.
	std::optional<double> profile_s;
};

std::string metrics_json(const EpochMetrics &m);
// Appends one line; std::runtime_error naming the file when it cannot.
void append_line(const std::string &path, const std::string &line);
// Replaces PATH by one line, atomically (PATH.tmp renamed over it: a
// reader never sees half a line).  RET false when it cannot.
bool replace_line(const std::string &path, const std::string &line);

} // namespace train
} // namespace omru

#endif
