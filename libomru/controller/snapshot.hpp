// snapshot.hpp - what select/omru sees of slurmctld when it re-plans: the
// nodes with their GPUs and the GPU jobs, pending and running, already
// translated out of Slurm's structs by the C glue (select_plugin/) and
// validated there.  Slurm-free, so the translation into a planner input
// (plan_input.hpp) is unit-tested without a controller.
#ifndef OMRU_CONTROLLER_SNAPSHOT_HPP
#define OMRU_CONTROLLER_SNAPSHOT_HPP

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/admin_comment.hpp" // CommentPhase
#include "planner/plan.hpp"     // NodeNeed, NodeUse
#include "policy/gpu_links.hpp"

namespace omru {
namespace controller {

struct NodeSnap {
	std::string name;
	int gpus = 0;       // configured GPUs
	int gpus_alloc = 0; // held by running jobs
	// Up, not drained or draining, not reserved away: new jobs may start
	// on it.  Running jobs on a node that is not usable still hold GPUs.
	bool usable = true;
	// CPUs and memory (MB) it has for jobs, and what jobs hold of them
	// (every job, GPU or not); cpus 0: not known, and the plan counts
	// GPUs only on every node.
	double cpus = 0, cpus_alloc = 0, mem_mb = 0, mem_alloc_mb = 0;
};

struct JobSnap {
	uint32_t job_id = 0;
	bool running = false;
	double submit_s = 0;
	double start_s = 0;      // running jobs
	double time_limit_s = 0; // 0: no limit
	// Slurm's own priority (not the plan's band; multifactor's factors or
	// basic's submission order): the reference's order, and the cut beyond
	// MaxPendingPlanned.
	uint32_t priority = 0;
	uint16_t tier = 0;       // its partition's PriorityTier, above priority
	uint32_t uid = 0;        // whose profiles price it (profile_books.hpp)
	// --omru-profile: 0 auto, 1 off, 2 force (omru_profile_mode_t).
	int profile_mode = 0;
	// --omru-elastic: the plan may resize it while it runs.
	bool elastic = false;
	// Epochs an earlier run of the job finished (AdminComment epochs_done,
	// written when a resized job stopped): the work left is epochs less this.
	double epochs_done = 0;
	// Running: the `rows` field of its AdminComment, what it measured so
	// far (model/admin_comment.hpp), "" if none.
	std::string rows;
	// Running: the `phase` field of its AdminComment, the training-phase
	// signal its trainer reported last (policy/training_phase.hpp).
	std::optional<CommentPhase> phase;
	// Running: AdminComment resumed_at, when its trainer trained again
	// after a resume (Unix seconds); 0: not reported.
	double resumed_at_s = 0;
	// OMRU options (spank_omru); `omru` false for a plain GPU job.
	bool omru = false;
	std::string model;
	double epochs = 0;       // 0: not given
	int gpus_min = 0, gpus_max = 0;
	// A plain job's GPU count, or the count a running job holds.
	int gpus = 0;
	// Running: the count it asked before the plan rewrote it; 0: not known.
	int asked_gpus = 0;
	int max_nodes = 0;       // 0: any number of nodes
	// Running: GPUs held per node index, ascending by node.
	std::vector<std::pair<int, int>> where;
	// Running: CPUs and memory it holds on each node of `where`; empty:
	// not known (its need at its GPUs there is assumed).
	std::vector<planner::NodeUse> holding;
	// What it takes of a node at a GPU count (planner/plan.hpp): what
	// cons_tres will give it at the count the plan chooses.
	planner::NodeNeed need;
	// Pending: node indices it may run on (partition, --nodelist,
	// --exclude, --constraint), ascending; usable nodes only.
	std::vector<int> eligible;
	// Pending but not free to start yet (begin time ahead, held, waits
	// for a dependency): a resized job's resume grace has not begun.
	bool held = false;
	// The shared limits it counts against (Snapshot::pool_room).
	struct PoolUse {
		std::string key;
		double per_gpu = 0, per_job = 0;
	};
	std::vector<PoolUse> pools;
};

struct Snapshot {
	double now_s = 0;
	std::vector<NodeSnap> nodes;
	std::vector<JobSnap> jobs;
	// The GPU links of the largest nodes (gres.conf Links=, nodes alike),
	// or null: PCIe between every two.  For pipeline splits' costs.
	std::shared_ptr<const GpuLinks> gpu_links;
	// Shared limits that are not about nodes, by key: what each leaves
	// now, Slurm's running jobs counted (omru_ctl_snapshot_pool).
	std::map<std::string, double> pool_room;
};

} // namespace controller
} // namespace omru

#endif
