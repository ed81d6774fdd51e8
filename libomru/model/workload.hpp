// workload.hpp - the training jobs a simulation replays (doc/sim-formats.md,
// Workload).  Jobs are kept in submission order: by submit_s, ties in file
// order; a job's index in that order is its id inside the core.
#ifndef OMRU_MODEL_WORKLOAD_HPP
#define OMRU_MODEL_WORKLOAD_HPP

#include <string>
#include <vector>

#include "profiler/profile_table.hpp"

namespace omru {

class CsvTable;

struct Job {
	std::string id;
	double submit_s = 0;
	int model = -1; // ProfileTable model id
	double epochs = 0;
	int gpus = 0;     // what the user asked for (rigid policies use it)
	int gpus_min = 0; // moldable range, gpus_min <= gpus <= gpus_max
	int gpus_max = 0;
	// Its GPU count may change while it runs (OMRU's GPU reuse): in Slurm,
	// a job submitted with --omru-elastic.
	bool elastic = true;
	// Epochs after which its training is in its late phase (the phase
	// signal says so, policy/training_phase.hpp); < 0: no signal.
	double late_after_epochs = -1;
	size_t line = 0;  // line in the workload file, for messages
};

struct Workload {
	std::string name; // file it came from
	std::vector<Job> jobs;

	bool offline() const; // every job submitted at 0
	int index_of(const std::string &job_id) const; // -1 when unknown
};

// Reads job_id,submit_s,model,epochs,gpus[,gpus_min,gpus_max][,elastic]
// [,late_after] (elastic: 1 or 0, default 1; late_after: epochs >= 0,
// empty for no phase signal).  InputError on
// a malformed row, a duplicate job_id, a model the profiles do not have, or
// gpus outside [gpus_min, gpus_max].
Workload workload_from_csv(const CsvTable &csv, const ProfileTable &profiles);

} // namespace omru

#endif
