/*
 * gpu_request.c - allocator/local context: --omru-gpus=MIN-MAX plans the
 * job's total GPU count, which select/omru can only rewrite in a --gpus=N
 * request.  So at submit:
 *  - --gpus=N given: fine (N is replaced by the plan's count);
 *  - no GPU option at all: the job asks --gpus=MIN, as if the user had;
 *  - --gpus-per-node, --gpus-per-task, --gpus-per-socket or a gpu --gres:
 *    refused with a message saying what to use instead.
 * sbatch, salloc and srun keep their options in a global `opt`
 * (slurm_opt_t, exported by the commands) that libslurm's
 * slurm_option_isset()/slurm_option_set() read and write; sbatch and salloc
 * build the job request from it after this hook.  Where the symbol is
 * missing (another front end) nothing is changed and slurmctld plans the
 * job at its own count.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "omru_spank.h"

/* libslurm (src/common/slurm_opt.h); the option struct stays opaque. */
extern bool slurm_option_isset(void *opt, const char *name);
extern int slurm_option_set(void *opt, const char *name, const char *value,
			    bool early);
extern char *slurm_option_get(void *opt, const char *name);

static bool option_mentions_gpu(void *opt, const char *name)
{
	char *v;
	bool gpu;

	if (!slurm_option_isset(opt, name))
		return false;
	v = slurm_option_get(opt, name);
	gpu = v && strstr(v, "gpu");
	free(v);
	return gpu;
}

extern int omru_gpu_request_check(bool may_set)
{
	static const char *per_unit[] = { "gpus-per-node", "gpus-per-task",
					  "gpus-per-socket" };
	void *opt;
	char min[16];

	if (!(omru_opts.set & OMRU_OPT_GPUS))
		return 0;
	/* srun inside a job: the step takes the allocation's GPUs. */
	if (!may_set && getenv("SLURM_JOB_ID"))
		return 0;
	opt = dlsym(RTLD_DEFAULT, "opt");
	if (!opt)
		return 0;
	if (slurm_option_isset(opt, "gpus"))
		return 0;
	for (size_t i = 0; i < sizeof(per_unit) / sizeof(per_unit[0]); i++)
		if (slurm_option_isset(opt, per_unit[i])) {
			slurm_error("%s: --omru-gpus=%u-%u plans the job's total "
				    "GPU count and cannot be combined with "
				    "--%s; use --gpus=N (or no GPU option: "
				    "--gpus=%u is implied)", OMRU_SPANK_NAME,
				    omru_opts.gpus_min, omru_opts.gpus_max,
				    per_unit[i], omru_opts.gpus_min);
			return -1;
		}
	if (option_mentions_gpu(opt, "gres")) {
		slurm_error("%s: --omru-gpus=%u-%u plans the job's total GPU "
			    "count and cannot be combined with --gres=gpu:...; "
			    "use --gpus=N (or no GPU option: --gpus=%u is "
			    "implied)", OMRU_SPANK_NAME, omru_opts.gpus_min,
			    omru_opts.gpus_max, omru_opts.gpus_min);
		return -1;
	}
	if (!may_set) {
		slurm_error("%s: --omru-gpus=%u-%u needs --gpus=N here (srun "
			    "creating its own allocation)", OMRU_SPANK_NAME,
			    omru_opts.gpus_min, omru_opts.gpus_max);
		return -1;
	}
	snprintf(min, sizeof(min), "%u", omru_opts.gpus_min);
	if (slurm_option_set(opt, "gpus", min, false) != 0) {
		slurm_error("%s: --omru-gpus without --gpus: could not request "
			    "--gpus=%s; give --gpus=N", OMRU_SPANK_NAME, min);
		return -1;
	}
	return 0;
}
