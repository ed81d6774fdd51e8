// workload.hpp - the training jobs a simulation replays (doc/sim-formats.md,
// Workload).  Jobs are kept in submission order: by submit_s, ties in file
// order; a job's index in that order is its id inside the core.
#ifndef OMRU_MODEL_WORKLOAD_HPP
#define OMRU_MODEL_WORKLOAD_HPP

#include <string>
#include <vector>

#include "model/node_need.hpp"
#include "profile/profile_table.hpp"

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
	// Site limits (the optional columns; doc/sim-formats.md, Workload):
	int user = -1;              // index into Workload::users; -1 none
	std::vector<int> node_list; // the nodes it may use, ascending; empty: all
	NodeNeed need;              // CPUs and memory per node
	int license = -1;           // index into Workload::licenses; -1 none
	int license_count = 0;      // how many of it the job holds
	// Slurm's job priority (column priority): under Slurm's own policy a
	// higher one runs first, ties in submission order (priority/basic).
	double priority = 0;
	int account = -1; // index into Workload::accounts; -1 none
	size_t line = 0;  // line in the workload file, for messages
};

struct Workload {
	std::string name; // file it came from
	std::vector<Job> jobs;
	// Names behind Job::user, Job::license and Job::account, in order of
	// first use.
	std::vector<std::string> users, licenses, accounts;
	// Per user: the most GPUs its running jobs may hold at once (a QOS's
	// MaxTRESPerUser=gres/gpu), -1 no limit; per license: how many the
	// site has (slurm.conf Licenses=).  Set by set_site_limits.
	std::vector<int> user_gpus_max, license_total;

	bool offline() const; // every job submitted at 0
	int index_of(const std::string &job_id) const; // -1 when unknown
	// Some job has a node list, CPUs, memory, --exclusive, a license, or
	// a user under a GPU limit: only policies that model them may run it.
	bool has_site_limits() const;
	// Some job takes CPUs or memory (the cluster must say what nodes have).
	bool needs_node_resources() const;
};

// Reads job_id,submit_s,model,epochs,gpus[,gpus_min,gpus_max][,elastic]
// [,late_after] (elastic: 1 or 0, default 1; late_after: epochs >= 0,
// empty for no phase signal), priority (a finite number, default 0),
// account (a name, default none) and the site-limit columns user,
// node_list, cpus_per_gpu, mem_mb, mem_per_cpu_mb, mem_per_gpu_mb,
// exclusive, license.  InputError on a malformed row, a duplicate job_id, a model the
// profiles do not have, or gpus outside [gpus_min, gpus_max].
Workload workload_from_csv(const CsvTable &csv, const ProfileTable &profiles);

// The limits of the site the workload runs on: GPUs per user (USER=N) and
// license counts (NAME=N).  Throws std::invalid_argument, naming what is
// wrong, when a job names a license the site lacks or needs more of it
// than there is, or a node outside `nodes`.
void set_site_limits(Workload &w, int nodes,
		     const std::vector<std::pair<std::string, int>> &user_gpus,
		     const std::vector<std::pair<std::string, int>> &licenses);

} // namespace omru

#endif
