// loader_entry.hpp - one training step's record in a node's loader state,
// and the report its trainer writes.
//
// Every job step of an OMRU job on a node (the batch step and each srun
// step) has an entry, written by its slurmstepd (root) as one small text
// file: who it is, which process keeps it alive, how many loaders it runs,
// where its share goes and what it last measured.  Format (version 1), one
// "key value" per line, every key once, in any order:
//
//   omru-loader-entry 1
//   job 123            step 0             seq 17
//   pid 4242           pid_start 987654   uid 1000
//   tasks 2            job_cpus 8
//   share_file /run/slurm-omru/job123/loader_share
//   report workers=2 samples_s=118.5 wait=0.31 rate=61.2   (optional)
//
// (shown two keys a line here to keep it short; the file has one).
// pid and pid_start name the slurmstepd (its start time in clock ticks from
// /proc, so a recycled pid is not mistaken for it); seq orders entries by
// creation.  The report line is the trainer's own, as validated.
#ifndef OMRU_LOADER_LOADER_ENTRY_HPP
#define OMRU_LOADER_LOADER_ENTRY_HPP

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "job_options.hpp"
#include "profile/loader_model.hpp"

namespace omru {

constexpr size_t kMaxLoaderReport = 512; // bytes of a trainer's report
constexpr size_t kMaxLoaderEntry = 4096; // bytes of an entry file

struct LoaderEntry {
	uint32_t job = 0;
	uint32_t step = 0;
	uint64_t seq = 0;
	long pid = 0;
	uint64_t pid_start = 0;
	uint32_t uid = 0;
	int tasks = 1;    // loaders (tasks) of the step on this node
	int job_cpus = 0; // the job's CPUs on this node, 0: unknown
	std::string share_file;
	std::optional<LoaderSample> report;

	// The entry's file name in the state directory: "job123.step0".
	std::string file_name() const;
};

std::string format_loader_entry(const LoaderEntry &e);
// Refuses (with the reason) anything that is not exactly the format:
// missing or repeated keys, numbers out of range, a relative share path.
Parsed<LoaderEntry> parse_loader_entry(std::string_view text);

// The trainer's report: "workers=W samples_s=X wait=F rate=R", one line
// (the order is free, each key once); a model must follow from it
// (LoaderModel::fit), else it is refused with the reason.
Parsed<LoaderSample> parse_loader_report(std::string_view text);
std::string format_loader_report(const LoaderSample &s);

// The same sample as one AdminComment value, "W:X:F:R" (the job record's
// `loader=` key: what the controller learns the model's loader demand
// from).  The parser is as strict as the report's.
std::string format_loader_field(const LoaderSample &s);
Parsed<LoaderSample> parse_loader_field(std::string_view text);

} // namespace omru

#endif
