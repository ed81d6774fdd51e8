// node_loader_state.hpp - the loader shares of one node, kept in files.
//
// Each slurmstepd of an OMRU job step keeps its entry (loader_entry.hpp) in
// a root-owned directory (run_dir/loader, 0700).  Whoever changes the state
// (a step starts, reports, ends) re-shares the whole node under one lock:
// reads every entry, drops what is dead or corrupt, runs the allocator over
// the jobs that remain and rewrites each step's share file (one integer:
// loader workers per task, which omru-train follows).  So the state needs
// no daemon, and it is crash-safe: entries are replaced atomically (temp
// file + rename), an entry whose slurmstepd is gone (pid and its start time
// no longer match) is removed at the next re-share, a corrupt one is logged
// and removed, and what is left is always a valid state.
//
// Which entries count: a job's steps on a node share one trainer in
// practice (a batch script that runs `srun omru-train`, or trains itself),
// so per job the entries that have reported are active, or, while none has,
// the newest (the srun step, started after the batch step).  An inactive
// entry gets one worker.
//
// CPUs (spank_omru(8) loader_share=):
//   node: the node's CPUs (loader_cpus= or those online) less one per
//         active task (the trainer's own thread) are the loader pool;
//   job:  each job's loaders stay within its own CPUs (task/cgroup
//         ConstrainCores): per task (job_cpus - tasks) / tasks workers at
//         most, the pool being the sum of those.
#ifndef OMRU_LOADER_NODE_LOADER_STATE_HPP
#define OMRU_LOADER_NODE_LOADER_STATE_HPP

#include <functional>
#include <string>
#include <vector>

#include "loader/loader_entry.hpp"
#include "omru/omru.h"
#include "policy/loader_allocator.hpp"

namespace omru {

// A job nothing has been measured of is assumed to saturate at this many
// workers per task (omru-train's default).
constexpr int kLoaderPriorWorkers = 2;

struct NodeLoaderConfig {
	omru_loader_share_t mode = OMRU_LOADER_SHARE_NODE;
	int node_cpus = 1;   // node mode: the node's CPUs
	int max_workers = 256; // per task
};

// What one re-share decided, for the log.
struct NodeShares {
	struct Share {
		uint32_t job, step;
		int workers;  // per task
		bool active;
		bool measured; // planned from a report, not the prior
	};
	std::vector<Share> shares;
	int pool = 0;      // loader CPUs
	bool oversubscribed = false;
	bool changed = false; // a share file was (re)written
	std::vector<std::string> problems; // entries removed, files not written
	std::string summary() const; // "job12.0:3 job13.4:1 (pool 6)"
};

// Whether the process `pid` that started at `start` (clock ticks since
// boot, /proc/PID/stat field 22) still runs.
bool process_alive(long pid, uint64_t start);
// The start time of `pid` in clock ticks since boot, 0 when unknown.
uint64_t process_start_ticks(long pid);

// The jobs' share from their entries (pure; the files do the rest).
NodeShares decide_node_shares(const std::vector<LoaderEntry> &entries,
			      const NodeLoaderConfig &cfg);

class NodeLoaderState {
    public:
	using Alive = std::function<bool(long pid, uint64_t start)>;
	// `dir` is created (0700) when missing; it must be a directory owned
	// by this process's user, else std::runtime_error.
	explicit NodeLoaderState(std::string dir, Alive alive = process_alive);

	// Each takes the node's lock, changes the entry, re-shares and RET
	// what was decided; std::runtime_error when the state cannot be
	// used at all (its directory, its lock).
	NodeShares join(LoaderEntry e, const NodeLoaderConfig &cfg);
	// A new report; the entry is rewritten only when the model it
	// implies moved by more than 10% (noise must not flap shares).
	NodeShares report(uint32_t job, uint32_t step, const LoaderSample &s,
			  const NodeLoaderConfig &cfg);
	NodeShares leave(uint32_t job, uint32_t step, const NodeLoaderConfig &cfg);
	NodeShares reshare(const NodeLoaderConfig &cfg);

	// The valid entries now (no lock, no clean-up; for tests and tools).
	std::vector<LoaderEntry> entries() const;

    private:
	class Lock;
	std::vector<LoaderEntry> load(std::vector<std::string> &problems);
	void save(const LoaderEntry &e);
	NodeShares share(const NodeLoaderConfig &cfg, std::vector<std::string> problems);

	std::string dir_;
	Alive alive_;
};

} // namespace omru

#endif
