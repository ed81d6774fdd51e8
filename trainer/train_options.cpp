// train_options.cpp - see train_options.hpp.
#include "train_options.hpp"

#include <algorithm>
#include <cmath>

#include "cli_args.hpp"
#include "models.hpp"

namespace omru {
namespace train {

const char kTrainUsage[] =
	"usage: omru-train --data DIR [--model NAME] [--epochs N] [--batch-size B]\n"
	"                  [--lr LR] [--reference-batch N] [--warmup-epochs E]\n"
	"                  [--loader-workers N] [--checkpoint PATH] [--metrics PATH]\n"
	"                  [--profile-gpus 1,2,4] [options]   (see --help)\n";

const char kTrainHelp[] =
	"Data-parallel training of an image classifier, one process per GPU (or CPU\n"
	"share) under srun: rank, world and rendezvous come from Slurm's\n"
	"environment; NCCL on GPUs, Gloo otherwise.\n\n"
	"  --data DIR              CIFAR-10 binary set (data_batch_1..5.bin), or an\n"
	"                          image folder: one sub-directory of JPEG files per\n"
	"                          class (ImageNet's layout; see omru-jpeg-synth(1))\n"
	"  --image-size S          image folders: train on S x S crops (64)\n"
	"  --model NAME            tiny, resnet18 (default), resnet50, vgg16\n"
	"  --epochs N              default: OMRU_EPOCHS rounded up, else 1\n"
	"  --batch-size B          per process (default 128)\n"
	"  --lr LR                 base learning rate for the reference batch (0.1)\n"
	"  --reference-batch N     global batch the base rate is for (256)\n"
	"  --warmup-epochs E       linear warm-up to the scaled rate (5)\n"
	"  --momentum M            SGD momentum (0.9)\n"
	"  --weight-decay W        (5e-4)\n"
	"  --loader-workers N      data-loader threads (else OMRU_LOADER_WORKERS, else 2)\n"
	"  --no-augment            no random crop and flip\n"
	"  --threads N             torch threads per process (default: cores / tasks on the node)\n"
	"  --seed N                (1)\n"
	"  --checkpoint PATH       save at epoch ends; resume from it if present\n"
	"  --elastic               (or OMRU_ELASTIC=1) SIGUSR1 stops the run at the next\n"
	"                          step: checkpoint, exit status 85 (requeue, resize)\n"
	"  --metrics PATH          one JSON line per epoch (also to OMRU_METRICS_FILE,\n"
	"                          spank_omru's copy for sacct, when set)\n"
	"  --profile-gpus LIST     profile mode: time steps on these process counts\n"
	"                          first (else OMRU_PROFILE=force|on|1 profiles the\n"
	"                          counts of OMRU_PROFILE_GPUS, else 1,2,4..world)\n"
	"  --profile-steps K       timed steps per count (20); --profile-warmup W (5)\n"
	"  --profile-min-s S       time more steps, until S seconds, when they are fast (2)\n"
	"  --profile-out PATH      rows model,gpus,epoch_s,nodes (else OMRU_PROFILE_OUT)\n"
	"  --max-steps-per-epoch N cut epochs short (tests and smoke runs)\n"
	"  --save-params PATH      write each rank's parameters to PATH.RANK (tests)\n"
	"  --loader-benchmark N    only run the data loader over N batches and print\n"
	"                          images/s (and per worker); no training\n"
	"  --parallel data|pipeline|auto  data parallelism (default), a pipeline of\n"
	"                          stages given by --pipeline, or the partitioner's\n"
	"                          choice for the step's processes per node\n"
	"  --layer-profile PATH    auto: the model's layer profile (--profile-layers)\n"
	"  --gpu-links PATH        auto: one node's gres.conf Links= values, a line per\n"
	"                          GPU; each node's processes are taken to sit on the\n"
	"                          GPUs select/omru gives (the best-linked); default\n"
	"                          PCIe between every two\n"
	"  --pipeline END:R,...    stages: blocks up to END (exclusive) on R processes\n"
	"                          each, e.g. 2:1,4:1 (omru-partition's plan)\n"
	"  --micro-batches M       micro-batches per global batch (4 per first-stage\n"
	"                          process)\n"
	"  --recompute B1,B2       blocks that keep only their input and run forward\n"
	"                          again in backward (less memory, more time)\n"
	"  --profile-layers PATH   only time each block of the model at --batch-size\n"
	"                          and a quarter of it (random --image-size images,\n"
	"                          32 by default; no --data) and write the layer\n"
	"                          profile omru-partition(1) reads; no training\n\n"
	"Environment: OMRU_LOADER_SHARE_FILE names a file holding the number of\n"
	"loader workers, followed within a second; OMRU_LOADER_REPORT names the\n"
	"file where the first task on a node reports what its loader measured;\n"
	"OMRU_PHASE_FILE names the file where rank 0 keeps the training-phase\n"
	"signal (steps, loss fall over the first and the latest 100-step windows);\n"
	"OMRU_RESUME_FILE the one where a resumed run's rank 0 writes the Unix time\n"
	"its first step ended (the end of a resize's restart).\n"
	"Exit status: 0 done, 1 training failed, 2 bad usage or input, 85 stopped\n"
	"for a resize (elastic; checkpoint written).\n"
	"See omru-train(1).\n";

static std::vector<int> parse_counts(const std::string &v)
{
	std::vector<int> out;
	size_t pos = 0;
	while (pos <= v.size()) {
		size_t comma = v.find(',', pos);
		std::string item = v.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
		char *end = nullptr;
		long g = std::strtol(item.c_str(), &end, 10);
		if (item.empty() || *end || g < 1 || g > 4096)
			throw UsageError("--profile-gpus '" + v +
					 "': expected GPU counts 1..4096, comma-separated (e.g. 1,2,4)");
		out.push_back(static_cast<int>(g));
		if (comma == std::string::npos)
			break;
		pos = comma + 1;
	}
	std::sort(out.begin(), out.end());
	out.erase(std::unique(out.begin(), out.end()), out.end());
	return out;
}

LoaderOptions loader_options(const TrainOptions &o, int rank, int world)
{
	LoaderOptions lo;
	lo.batch_size = o.batch_size;
	lo.workers = o.loader_workers;
	lo.augment = o.augment;
	lo.seed = o.seed;
	lo.rank = rank;
	lo.world = world;
	return lo;
}

TrainOptions parse_train_options(const std::vector<std::string> &argv,
				 const GetEnv &getenv_fn, int world)
{
	CliArgs a(argv, { { "data", true }, { "image-size", true }, { "model", true },
			  { "epochs", true },
			  { "batch-size", true }, { "lr", true },
			  { "reference-batch", true }, { "warmup-epochs", true },
			  { "momentum", true }, { "weight-decay", true },
			  { "loader-workers", true }, { "no-augment", false },
			  { "threads", true }, { "seed", true },
			  { "checkpoint", true }, { "elastic", false }, { "metrics", true },
			  { "profile-gpus", true }, { "profile-steps", true },
			  { "profile-min-s", true },
			  { "profile-warmup", true }, { "profile-out", true },
			  { "max-steps-per-epoch", true }, { "save-params", true },
			  { "loader-benchmark", true }, { "profile-layers", true },
			  { "parallel", true }, { "pipeline", true },
			  { "micro-batches", true }, { "recompute", true },
			  { "layer-profile", true }, { "gpu-links", true } });
	auto env = [&getenv_fn](const char *name) -> std::string {
		const char *v = getenv_fn(name);
		return v ? v : "";
	};
	TrainOptions o;
	o.profile_layers = a.get("profile-layers").value_or("");
	if (o.profile_layers.empty() || a.has("data"))
		o.data = a.required("data");
	o.image_size = static_cast<int>(a.integer("image-size", 0, 8, 1024));
	o.model = a.get("model").value_or(o.model);
	const auto &names = model_names();
	if (std::find(names.begin(), names.end(), o.model) == names.end())
		throw UsageError("--model '" + o.model +
				 "' is not a model (tiny, resnet18, resnet50, vgg16)");
	int env_epochs = 1;
	if (std::string e = env("OMRU_EPOCHS"); !e.empty()) {
		char *end = nullptr;
		double d = std::strtod(e.c_str(), &end);
		if (*end || !(d > 0) || d > 1e6)
			throw UsageError("OMRU_EPOCHS='" + e + "' is not a number in (0, 1e6]");
		env_epochs = static_cast<int>(std::ceil(d));
	}
	o.epochs = static_cast<int>(a.integer("epochs", env_epochs, 1, 1000000));
	o.batch_size = static_cast<int>(a.integer("batch-size", o.batch_size, 1, 65536));
	o.base_lr = a.number("lr", o.base_lr, 1e-9, 100);
	o.reference_batch = static_cast<int>(a.integer("reference-batch", o.reference_batch, 1, 1 << 24));
	o.warmup_epochs = a.number("warmup-epochs", o.warmup_epochs, 0, 1e6);
	o.momentum = a.number("momentum", o.momentum, 0, 0.999999);
	o.weight_decay = a.number("weight-decay", o.weight_decay, 0, 1);
	long env_workers = o.loader_workers;
	if (std::string w = env("OMRU_LOADER_WORKERS"); !w.empty()) {
		char *end = nullptr;
		env_workers = std::strtol(w.c_str(), &end, 10);
		if (*end || env_workers < 1 || env_workers > 256)
			throw UsageError("OMRU_LOADER_WORKERS='" + w + "' is not an integer in 1..256");
	}
	o.loader_workers = static_cast<int>(a.integer("loader-workers", env_workers, 1, 256));
	o.loader_share_file = env("OMRU_LOADER_SHARE_FILE");
	o.loader_report = env("OMRU_LOADER_REPORT");
	o.phase_file = env("OMRU_PHASE_FILE");
	o.resume_file = env("OMRU_RESUME_FILE");
	o.augment = !a.has("no-augment");
	o.threads = static_cast<int>(a.integer("threads", 0, 1, 1024));
	o.seed = static_cast<uint64_t>(a.integer("seed", 1, 0, 1L << 62));
	o.checkpoint = a.get("checkpoint").value_or("");
	o.elastic = a.has("elastic") || env("OMRU_ELASTIC") == "1";
	if (o.elastic && o.checkpoint.empty())
		throw UsageError(std::string(a.has("elastic") ? "--elastic" :
					     "OMRU_ELASTIC=1 (sbatch --omru-elastic)") +
				 " needs --checkpoint PATH on storage the restarted job "
				 "sees: a resized job resumes from it");
	o.metrics = a.get("metrics").value_or("");
	o.slurm_metrics = env("OMRU_METRICS_FILE");
	if (o.slurm_metrics == o.metrics)
		o.slurm_metrics.clear();
	std::string profile_env = env("OMRU_PROFILE");
	bool profile_on = profile_env == "force" || profile_env == "on" || profile_env == "1";
	if (auto g = a.get("profile-gpus")) {
		o.profile_gpus = parse_counts(*g);
	} else if (std::string g = env("OMRU_PROFILE_GPUS"); profile_on && !g.empty()) {
		// spank_omru's choice for this job; counts above the world size
		// are skipped by the profiler with a message.
		o.profile_gpus = parse_counts(g);
	} else if (profile_on) {
		for (int g = 1; g < world; g *= 2)
			o.profile_gpus.push_back(g);
		o.profile_gpus.push_back(world);
	}
	o.profile_steps = static_cast<int>(a.integer("profile-steps", o.profile_steps, 1, 100000));
	o.profile_warmup = static_cast<int>(a.integer("profile-warmup", o.profile_warmup, 0, 100000));
	o.profile_min_s = a.number("profile-min-s", o.profile_min_s, 0, 3600);
	o.profile_out = a.get("profile-out").value_or(env("OMRU_PROFILE_OUT"));
	if (!o.profile_gpus.empty() && o.profile_out.empty())
		throw UsageError("profile mode needs --profile-out or OMRU_PROFILE_OUT");
	o.max_steps_per_epoch = static_cast<int>(a.integer("max-steps-per-epoch", 0, 1, 1 << 30));
	o.save_params = a.get("save-params").value_or("");
	o.loader_benchmark = static_cast<int>(a.integer("loader-benchmark", 0, 1, 1 << 30));
	std::string parallel = a.get("parallel").value_or("data");
	if (parallel != "data" && parallel != "pipeline" && parallel != "auto")
		throw UsageError("--parallel '" + parallel + "': data, pipeline or auto");
	o.pipeline_mode = parallel == "pipeline";
	o.parallel_auto = parallel == "auto";
	o.layer_profile = a.get("layer-profile").value_or("");
	if (o.parallel_auto != !o.layer_profile.empty())
		throw UsageError("--parallel auto and --layer-profile FILE go together");
	o.gpu_links = a.get("gpu-links").value_or("");
	if (!o.gpu_links.empty() && !o.parallel_auto)
		throw UsageError("--gpu-links goes with --parallel auto");
	if (o.parallel_auto && (!o.checkpoint.empty() || o.elastic))
		throw UsageError("--parallel auto does not take --checkpoint or --elastic yet");
	o.pipeline = a.get("pipeline").value_or("");
	o.micro_batches = static_cast<int>(a.integer("micro-batches", 0, 1, 1 << 16));
	o.recompute = a.get("recompute").value_or("");
	if (o.pipeline_mode && o.pipeline.empty())
		throw UsageError("--parallel pipeline needs --pipeline END:REPLICAS,...");
	if (!o.pipeline_mode &&
	    (!o.pipeline.empty() || a.has("micro-batches") || a.has("recompute")))
		throw UsageError("--pipeline, --micro-batches and --recompute need "
				 "--parallel pipeline");
	if (o.pipeline_mode && (!o.checkpoint.empty() || o.elastic || a.has("profile-gpus")))
		throw UsageError("--parallel pipeline does not take --checkpoint, --elastic "
				 "or --profile-gpus yet");
	// The scheduler's OMRU_PROFILE asks for data-parallel epoch times,
	// which a pipeline run does not give: said on stderr, not done.
	o.profile_skipped = o.pipeline_mode && !o.profile_gpus.empty();
	if (o.profile_skipped)
		o.profile_gpus.clear();
	return o;
}

} // namespace train
} // namespace omru
