// gpu_usage.hpp - what a node's GPUs are doing now, from NVML: each
// device's GPU utilisation (the share of the last sample period a kernel
// ran) and memory-controller utilisation (the share device memory was
// read or written), in percent: the solo signals the co-location
// predictor prices unmeasured pairs from (profile/interference_model.hpp).
//
// NVML is the driver's own library (libnvidia-ml.so.1); it is opened at
// run time with dlopen, so nothing is needed to build or install
// slurm-omru and a node without the driver samples nothing.  Devices are
// named by minor number (/dev/nvidiaN), which is what SLURM_JOB_GPUS lists
// where gres.conf names the devices by file or AutoDetect=nvml.
#ifndef OMRU_NODE_GPU_USAGE_HPP
#define OMRU_NODE_GPU_USAGE_HPP

#include <string>
#include <vector>

namespace omru {

struct GpuUtilization {
	int minor = -1;
	double gpu_pct = 0, mem_pct = 0; // 0..100
};

// "0,2" or "0-3" (SLURM_JOB_GPUS) as minor numbers, ascending, distinct;
// false on anything else (at most 1024 devices, each below 1024).
bool parse_gpu_minors(const std::string &text, std::vector<int> &out);

// The listed devices now (all of the node's when `minors` is empty),
// ascending by minor.  RET false and `error` when NVML cannot be used
// (no driver library, no device, an NVML error) or none of the listed
// devices is here; a listed minor the node does not have is left out.
// Thread-safe; NVML stays loaded once opened.
bool sample_gpu_utilization(const std::vector<int> &minors,
			    std::vector<GpuUtilization> &out, std::string &error);

} // namespace omru

#endif
