// node_need.cpp - see node_need.hpp.
#include "model/node_need.hpp"

namespace omru {
namespace {

// Resources are counted in whole CPUs and MB; sums of doubles may be off
// by rounding.
constexpr double kSlack = 1e-6;

} // namespace

int NodeNeed::fit(int gpus, double free_cpus, double free_mem, int node_gpus,
		  double node_cpus, double node_mem) const
{
	if (none() || gpus <= 0)
		return std::max(0, gpus);
	if (whole_node) // an idle node, all of it
		return gpus == node_gpus && free_cpus + kSlack >= node_cpus &&
				       free_mem + kSlack >= node_mem
			       ? gpus
			       : 0;
	if (all_mem && free_mem + kSlack < node_mem)
		return 0;
	// CPUs and memory grow with the GPUs: the most that fits.
	for (int g = gpus; g >= 1; g--)
		if (cpus(g) <= free_cpus + kSlack &&
		    (all_mem || mem(g) <= free_mem + kSlack))
			return g;
	return 0;
}

} // namespace omru
