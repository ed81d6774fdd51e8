// gpu_usage.cpp - see gpu_usage.hpp.  The few NVML entry points used are
// declared here as the library exports them (nvml.h's C ABI: a return code,
// 0 for success; devices as opaque handles; utilisation as two unsigned
// percentages), so no NVML header is needed to build.
#include "node/gpu_usage.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>

namespace omru {
namespace {

using NvmlReturn = int; // nvmlReturn_t; 0: NVML_SUCCESS
using NvmlDevice = void *;
struct NvmlUtilization {
	unsigned int gpu, memory;
};

struct Nvml {
	NvmlReturn (*init)() = nullptr;
	NvmlReturn (*count)(unsigned int *) = nullptr;
	NvmlReturn (*by_index)(unsigned int, NvmlDevice *) = nullptr;
	NvmlReturn (*minor)(NvmlDevice, unsigned int *) = nullptr;
	NvmlReturn (*utilization)(NvmlDevice, NvmlUtilization *) = nullptr;
	const char *(*error_string)(NvmlReturn) = nullptr;
	std::string error; // why it cannot be used; "" when it can

	std::string failed(const char *what, NvmlReturn rc) const
	{
		return std::string(what) + ": " +
		       (error_string ? error_string(rc) : "NVML error " + std::to_string(rc));
	}
};

template <typename F> bool bind(void *lib, const char *name, F &fn)
{
	fn = reinterpret_cast<F>(dlsym(lib, name));
	return fn != nullptr;
}

Nvml &nvml()
{
	static Nvml n;
	static std::once_flag once;
	std::call_once(once, [] {
		// Never closed: NVML keeps per-process state and threads.
		void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
		if (!lib) {
			n.error = "no NVML (libnvidia-ml.so.1: the NVIDIA driver's library)";
			return;
		}
		bind(lib, "nvmlErrorString", n.error_string);
		if (!bind(lib, "nvmlInit_v2", n.init) ||
		    !bind(lib, "nvmlDeviceGetCount_v2", n.count) ||
		    !bind(lib, "nvmlDeviceGetHandleByIndex_v2", n.by_index) ||
		    !bind(lib, "nvmlDeviceGetMinorNumber", n.minor) ||
		    !bind(lib, "nvmlDeviceGetUtilizationRates", n.utilization)) {
			n.error = "NVML lacks an entry point slurm-omru needs";
			return;
		}
		if (NvmlReturn rc = n.init(); rc != 0)
			n.error = n.failed("nvmlInit", rc);
	});
	return n;
}

} // namespace

bool parse_gpu_minors(const std::string &text, std::vector<int> &out)
{
	constexpr int kMaxMinor = 1024;
	out.clear();
	size_t pos = 0;
	while (pos <= text.size()) {
		size_t comma = text.find(',', pos);
		std::string item = text.substr(pos, comma == std::string::npos ? std::string::npos
									     : comma - pos);
		size_t dash = item.find('-');
		auto number = [](const std::string &s, int &v) {
			if (s.empty() || s.size() > 4 ||
			    !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
				return false;
			v = std::atoi(s.c_str());
			return v < kMaxMinor;
		};
		int lo, hi;
		if (dash == std::string::npos) {
			if (!number(item, lo))
				return false;
			hi = lo;
		} else if (!number(item.substr(0, dash), lo) || !number(item.substr(dash + 1), hi) ||
			   hi < lo) {
			return false;
		}
		for (int m = lo; m <= hi; m++)
			out.push_back(m);
		if (out.size() > kMaxMinor)
			return false;
		if (comma == std::string::npos)
			break;
		pos = comma + 1;
	}
	std::sort(out.begin(), out.end());
	out.erase(std::unique(out.begin(), out.end()), out.end());
	return !out.empty();
}

bool sample_gpu_utilization(const std::vector<int> &minors,
			    std::vector<GpuUtilization> &out, std::string &error)
{
	out.clear();
	Nvml &n = nvml();
	if (!n.error.empty()) {
		error = n.error;
		return false;
	}
	unsigned int count = 0;
	if (NvmlReturn rc = n.count(&count); rc != 0) {
		error = n.failed("nvmlDeviceGetCount", rc);
		return false;
	}
	for (unsigned int i = 0; i < count; i++) {
		NvmlDevice d = nullptr;
		unsigned int minor = 0;
		NvmlUtilization u{};
		if (n.by_index(i, &d) != 0 || n.minor(d, &minor) != 0)
			continue;
		if (!minors.empty() &&
		    !std::binary_search(minors.begin(), minors.end(), static_cast<int>(minor)))
			continue;
		if (NvmlReturn rc = n.utilization(d, &u); rc != 0) {
			error = n.failed("nvmlDeviceGetUtilizationRates", rc);
			return false;
		}
		out.push_back({ static_cast<int>(minor), std::min(100.0, 1.0 * u.gpu),
				std::min(100.0, 1.0 * u.memory) });
	}
	if (count == 0) {
		error = "NVML sees no GPU";
		return false;
	}
	if (out.empty()) {
		std::string listed;
		for (int m : minors)
			listed += (listed.empty() ? "" : ",") + std::to_string(m);
		error = "none of the GPUs " + listed + " is on this node";
		return false;
	}
	std::sort(out.begin(), out.end(),
		  [](const GpuUtilization &a, const GpuUtilization &b) { return a.minor < b.minor; });
	return true;
}

} // namespace omru
