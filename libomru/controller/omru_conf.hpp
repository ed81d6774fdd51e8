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
#include "profile/speed_model.hpp" // kDefaultSpreadCost

namespace omru {
namespace controller {

// The settings of omru.conf, each at its default (doc/omru.conf.5).
struct OmruConf {
	planner::Objective objective = planner::Objective::MeanJct; // Objective=, doc/omru.conf.5
	double fairness_factor = 0;             // FairnessFactor=: 0 = off, else 1..1000
	bool reference_bound = true;            // ReferenceBound=: keep Slurm's own policy's ends
	double reference_slack = 0.05;          // ReferenceSlack=, 0..10
	double reference_slack_s = 1;           // ReferenceSlackSeconds=, 0..86400
	bool arrival_guard = true;              // ArrivalGuard=: asked counts while jobs keep arriving
	std::vector<std::string> profile_files; // ProfileFile=, in the file's order
	std::string state_dir;                  // StateDir=; "" = StateSaveLocation/omru
	double plan_interval_min_s = 1;         // PlanIntervalMin=, 0..3600
	double plan_interval_max_s = 30;        // PlanIntervalMax=, 1..86400, >= min
	double plan_time_max_ms = 200;          // PlanTimeMax=, 1..60000
	int cpus_per_gpu = 0;                   // CpusPerGpu=, 0..1024; 0 = leave CPUs alone
	int max_job_gpus = 0;                   // MaxJobGpus=, 0..OMRU_GPUS_LIMIT; 0 = that limit
	bool loader_cpus = false;               // LoaderCpus=: + the model's loader demand
	bool plan_rigid_jobs = true;            // PlanRigidJobs=
	int max_pending_planned = 5000;         // MaxPendingPlanned=, 1..1000000
	bool log_plans = false;                 // LogPlans=
	double correction_margin = 0.25;        // CorrectionMargin=, 0.01..10
	double spread_cost = kDefaultSpreadCost; // SpreadCost=, 1..10 per extra node
	bool elastic = true;                    // Elastic=: resize --omru-elastic jobs
	double elastic_grace_s = 300;           // ElasticGrace=, 5..86400 seconds
	double restart_overhead_s = 60;         // RestartOverhead=, 0..86400 (until measured)
	double start_overhead_s = -1;           // StartOverhead=: -1 auto (learned), 0..3600
	double resize_margin = 0.1;             // ResizeMargin=, 0..10
	bool phase_aware = true;                // PhaseAware=: shrink late-phase jobs to admit
	double phase_threshold = 0.5;           // PhaseThreshold=, 0..1 (training_phase.hpp)
	std::string layer_profile_dir;          // LayerProfileDir=; "" = none
	int pipeline_batch = 32;                // PipelineBatch=, 1..1048576 samples per GPU
	double pipeline_gpu_mem_gib = 0;        // PipelineGpuMem=, 0..1048576 GiB; 0 = no limit
	std::string colocation_file;            // ColocationFile=; "" = none
	std::string colocation_signals;         // ColocationSignals=; "" = none
};

constexpr size_t kMaxOmruConfBytes = 1u << 20; // the whole file
constexpr size_t kMaxOmruConfLine = 4096;      // one line, without its newline
constexpr size_t kMaxOmruConfPath = 4095;      // ProfileFile=, StateDir=, LayerProfileDir=, Colocation*=

// None of these throws anything but std::bad_alloc.

/*
 * parse_omru_conf - parses the text of omru.conf.
 * IN text - the whole file
 * IN file - names the text in messages ("FILE:LINE: ...")
 * RET the settings, or the first error: "FILE:LINE: KEY=VALUE: what is
 *     allowed" (or "FILE:LINE: what is wrong" for a line that is no setting)
 */
Parsed<OmruConf> parse_omru_conf(std::string_view text, const std::string &file);

/*
 * load_omru_conf - reads (a regular file of at most kMaxOmruConfBytes) and
 * parses omru.conf.
 * IN path - the file; it names the text in messages
 * IN missing_ok - when true a missing file (ENOENT) gives the defaults;
 *     when false it is an error
 * RET the settings, or "PATH: cannot read: REASON", "PATH: larger than
 *     1 MiB" or a parse_omru_conf error
 */
Parsed<OmruConf> load_omru_conf(const std::string &path, bool missing_ok);

/*
 * format_omru_conf - every key on one line, for the log and for tests:
 * "Objective=makespan FairnessFactor=0 ProfileFile=(none) StateDir=(default)
 * PlanIntervalMin=1 ...".  Numbers are written in the shortest decimal that
 * reads back the same; ProfileFile= repeats per file.
 */
std::string format_omru_conf(const OmruConf &c);

} // namespace controller
} // namespace omru

#endif
