// slurm_env.hpp - where this process sits in a data-parallel job, read from
// the environment srun gives every task (SLURM_PROCID, SLURM_NTASKS,
// SLURM_LOCALID, SLURM_STEP_NODELIST...), or a single process without it.
// MASTER_ADDR / MASTER_PORT override the rendezvous point, as torchrun's do.
#ifndef OMRU_TRAINER_SLURM_ENV_HPP
#define OMRU_TRAINER_SLURM_ENV_HPP

#include <functional>
#include <string>
#include <vector>

namespace omru {
namespace train {

struct RankEnv {
	int rank = 0;
	int world = 1;
	int local_rank = 0;
	std::string node;        // this task's node name (SLURMD_NODENAME)
	std::string master_host; // the step's first node, or MASTER_ADDR
	int master_port = 0;     // MASTER_PORT, else the step's reserved port, else from job/step ids
	bool under_slurm = false;
};

using GetEnv = std::function<const char *(const char *)>;

// Throws std::runtime_error naming the variable when a Slurm variable is
// present but malformed (a rank outside the world, a bad port...).
RankEnv rank_env(const GetEnv &getenv_fn);

// Expands a Slurm host list ("n[1-3,7],gpu02") into names, in order.
// Throws std::runtime_error on a malformed list.
std::vector<std::string> expand_hostlist(const std::string &list);

// An IPv4/IPv6 address string for a host: getaddrinfo, else the node's
// NodeAddr from `scontrol show node` (test clusters name nodes that DNS
// does not know).  Throws std::runtime_error when neither works.
std::string resolve_node_address(const std::string &host);

} // namespace train
} // namespace omru

#endif
