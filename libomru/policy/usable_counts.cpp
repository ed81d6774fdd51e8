// usable_counts.cpp - see usable_counts.hpp.
#include "policy/usable_counts.hpp"

namespace omru {

UsableCounts usable_counts(const ProfileTable &p, const Cluster &c, const Job &j)
{
	UsableCounts u;
	for (int g : p.counts(j.model)) {
		if (g < j.gpus_min || g > j.gpus_max || g > c.total_gpus())
			continue;
		if (auto e = p.packed_epoch_s(j.model, g, c)) {
			u.gpus.push_back(g);
			u.epoch_s.push_back(*e);
		}
	}
	return u;
}

} // namespace omru
