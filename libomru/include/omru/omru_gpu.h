/*
 * omru_gpu.h - what a job's GPUs are doing, for spank_omru in slurmstepd
 * (node/gpu_usage.hpp: NVML opened at run time).  Nothing here throws;
 * messages go into caller buffers (NUL-terminated when errlen > 0).
 */
#ifndef OMRU_OMRU_GPU_H
#define OMRU_OMRU_GPU_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * omru_gpu_sample - the mean GPU and memory-controller utilisation, in
 * percent, of the devices LIST names by minor number (SLURM_JOB_GPUS:
 * "0,2", "0-3"; NULL or "": every device of the node), now.
 * RET the number of devices sampled; 0 when none could be (no NVML, a
 * list that does not parse, none of its devices here: why, in err).
 */
int omru_gpu_sample(const char *list, double *gpu_pct, double *mem_pct, char *err,
		    size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
