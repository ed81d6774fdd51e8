// checkpoint.hpp - model, optimizer and training progress in one file,
// written at epoch ends (and at the step an elastic job stops), atomically (a temporary file renamed into place),
// so a job killed mid-write resumes from the previous checkpoint.
#ifndef OMRU_TRAINER_CHECKPOINT_HPP
#define OMRU_TRAINER_CHECKPOINT_HPP

#include <cstdint>
#include <string>

#include "lr_schedule.hpp"
#include "models.hpp"

namespace omru {
namespace train {

struct Progress {
	std::string model;
	int epochs_done = 0;  // completed epochs
	// Samples of epoch epochs_done + 1 trained when it was written (an
	// elastic job stopped mid-epoch; 0 at an epoch end).
	uint64_t samples_into_epoch = 0;
	int world_size = 0;   // when it was written
	int global_batch = 0;
	uint64_t seed = 0;
	LrSchedule::State lr{};
};

void save_checkpoint(const std::string &path, Net &net,
		     torch::optim::Optimizer &opt, const Progress &p);
// RET false when `path` does not exist; throws std::runtime_error when it
// is unreadable, corrupt or for another model.
bool load_checkpoint(const std::string &path, Net &net,
		     torch::optim::Optimizer &opt, Progress &p,
		     const std::string &expected_model);

} // namespace train
} // namespace omru

#endif
