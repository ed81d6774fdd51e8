// usable_counts.hpp - the GPU counts a moldable policy may give a job: the
// profiled counts in [gpus_min, gpus_max] that fit the cluster and have a row
// for the packed spread, with that row's epoch time as the speed estimate.
#ifndef OMRU_POLICY_USABLE_COUNTS_HPP
#define OMRU_POLICY_USABLE_COUNTS_HPP

#include <vector>

#include "model/workload.hpp"

namespace omru {

struct UsableCounts {
	std::vector<int> gpus;       // ascending
	std::vector<double> epoch_s; // packed epoch time per entry of gpus
};

UsableCounts usable_counts(const ProfileTable &p, const Cluster &c, const Job &j);

} // namespace omru

#endif
