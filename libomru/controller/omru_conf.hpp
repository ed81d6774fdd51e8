// omru_conf.hpp - omru.conf, select/omru's configuration file next to
// slurm.conf (doc/omru.conf.5), parsed strictly: one Key=Value per line,
// keys case-insensitive as in slurm.conf, an unknown key or a bad value is
// an error that says FILE:LINE, the key, the value and what is allowed.
#ifndef OMRU_CONTROLLER_OMRU_CONF_HPP
#define OMRU_CONTROLLER_OMRU_CONF_HPP

#include <string>
#include <string_view>
#include <vector>

#include "job_options.hpp" // Parsed
#include "planner/plan.hpp"

namespace omru {
namespace controller {

struct OmruConf {
	planner::Objective objective = planner::Objective::Makespan;
	double fairness_factor = 0;             // 0 = off, else >= 1
	std::vector<std::string> profile_files; // in order
	std::string state_dir;                  // "" = StateSaveLocation/omru
	double plan_interval_min_s = 1;
	double plan_interval_max_s = 30;
	double plan_time_max_ms = 200;
	int cpus_per_gpu = 0;                   // 0 = leave CPUs alone
	bool plan_rigid_jobs = true;
	int max_pending_planned = 5000;
	bool log_plans = false;
};

constexpr size_t kMaxOmruConfBytes = 1u << 20;
constexpr size_t kMaxOmruConfLine = 4096;

// `file` names the text in messages.
Parsed<OmruConf> parse_omru_conf(std::string_view text, const std::string &file);
// Reads and parses `path`; a missing file gives the defaults when
// `missing_ok`, else it is an error.
Parsed<OmruConf> load_omru_conf(const std::string &path, bool missing_ok);
// Every key on one line ("Objective=makespan FairnessFactor=0 ...").
std::string format_omru_conf(const OmruConf &c);

} // namespace controller
} // namespace omru

#endif
