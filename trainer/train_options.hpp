// train_options.hpp - omru-train's options: the command line, with defaults
// from the environment the scheduler sets (OMRU_EPOCHS, OMRU_LOADER_WORKERS,
// OMRU_PROFILE, OMRU_METRICS_FILE...).
#ifndef OMRU_TRAINER_TRAIN_OPTIONS_HPP
#define OMRU_TRAINER_TRAIN_OPTIONS_HPP

#include <string>
#include <vector>

#include "data_loader.hpp"
#include "slurm_env.hpp"

namespace omru {
namespace train {

// The most steps profile mode times per count, however fast they are.
constexpr int kMaxProfileSteps = 2000;
// ... and the most of one epoch a count's timed window may take.
constexpr double kMaxProfileEpochShare = 0.25;

struct TrainOptions {
	std::string model = "resnet18";
	std::string data;               // CIFAR-10 binary or JPEG class folders
	int image_size = 0;             // JPEG sets: training side (0: the default)
	int epochs = 1;
	int batch_size = 128;           // per process
	double base_lr = 0.1;           // for reference_batch samples
	int reference_batch = 256;
	double warmup_epochs = 5;
	double momentum = 0.9;
	double weight_decay = 5e-4;
	int loader_workers = 2;
	std::string loader_share_file;  // followed within a second (loader_share.hpp)
	std::string loader_report;      // OMRU_LOADER_REPORT: what the loader measured
	std::string phase_file;         // OMRU_PHASE_FILE: the phase signal (phase_tracker.hpp)
	std::string resume_file;        // OMRU_RESUME_FILE: when a resumed run trains again
	bool augment = true;
	int threads = 0;                // torch intra-op threads; 0: cores / local tasks
	uint64_t seed = 1;
	std::string checkpoint;
	// --elastic or OMRU_ELASTIC=1 (--omru-elastic): SIGUSR1 stops the run at
	// the next step with a checkpoint and exit status kElasticExitCode.
	bool elastic = false;
	std::string metrics; // --metrics: the user's file; failing to write it is fatal
	// OMRU_METRICS_FILE: spank_omru's copy, from which the job's summary
	// reaches sacct; best effort (it exists on the batch node only, and
	// rank 0 may run elsewhere).  Empty when it is the --metrics file.
	std::string slurm_metrics;
	std::vector<int> profile_gpus;  // empty: no profile mode
	int profile_steps = 20;
	int profile_warmup = 5;
	double profile_min_s = 2; // timed steps last at least this long (see profile_mode.cpp)
	std::string profile_out;
	std::string save_params;        // test hook: flat parameters per rank
	int max_steps_per_epoch = 0;    // 0: whole epochs
	int loader_benchmark = 0;       // > 0: only time the loader over N batches
	std::string profile_layers;     // only write the layer profile (layer_profile_mode.hpp)
	// --parallel pipeline (pipeline_trainer.hpp): the split, its
	// micro-batches (0: 4 per first-stage replica) and recomputed blocks.
	bool pipeline_mode = false;
	std::string pipeline;
	int micro_batches = 0;
	std::string recompute;
	bool profile_skipped = false; // OMRU_PROFILE asked, pipeline mode cannot
	bool parallel_auto = false;   // --parallel auto (parallel_auto.hpp)
	std::string layer_profile;    // its --layer-profile
	std::string gpu_links;        // its --gpu-links: one node's Links lines
};

// RET the options, or throws UsageError (libomru/cli_args.hpp) naming what
// was wrong.  `world` is the number of processes (default profile counts).
TrainOptions parse_train_options(const std::vector<std::string> &args,
				 const GetEnv &getenv_fn, int world);

// The loader settings the options give, for rank `rank` of `world`.
LoaderOptions loader_options(const TrainOptions &o, int rank, int world);

extern const char kTrainUsage[];
extern const char kTrainHelp[];

} // namespace train
} // namespace omru

#endif
