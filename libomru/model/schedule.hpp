// schedule.hpp - what a policy did: one Segment per stretch of a job on one
// set of GPUs (doc/sim-formats.md, Schedule).
#ifndef OMRU_MODEL_SCHEDULE_HPP
#define OMRU_MODEL_SCHEDULE_HPP

#include <ostream>
#include <string>
#include <vector>

#include "model/workload.hpp"

namespace omru {

class CsvTable;

struct Segment {
	int job = -1; // index into Workload::jobs
	double start_s = 0;
	double end_s = 0;
	double epochs = 0;
	std::vector<int> nodes;   // node of each GPU, sorted (the CSV column)
	std::vector<int> gpu_ids; // Cluster::first_gpu(node) + slot; empty from CSV
	size_t line = 0;          // CSV line when read from a file

	int gpus() const { return static_cast<int>(nodes.size()); }
	int distinct_nodes() const;
	double duration_s() const { return end_s - start_s; }
};

using Schedule = std::vector<Segment>;

// Shortest text that reads back as the same double ("12.5", "0.1").
std::string format_number(double v);

// Writes the header and one row per segment, ordered by start time.
void write_schedule_csv(std::ostream &out, const Schedule &s,
			const Workload &w);

// Reads job_id,start_s,end_s,gpus,nodes,epochs.  InputError on a malformed
// row or a job_id the workload does not have; the rules of a valid schedule
// are the validator's business, not the reader's.
Schedule schedule_from_csv(const CsvTable &csv, const Workload &w);

} // namespace omru

#endif
