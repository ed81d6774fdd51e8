// profile_curve.hpp - the planner's speed curve taken straight from measured
// profiles: in simulation a job may only run at a count and spread with a
// row, so these curves are the truth and the plan predicts the run exactly.
#ifndef OMRU_PLANNER_PROFILE_CURVE_HPP
#define OMRU_PLANNER_PROFILE_CURVE_HPP

#include "model/cluster.hpp"
#include "profile/profile_table.hpp"
#include "planner/plan.hpp"

namespace omru {
namespace planner {

// The usable counts of `model` in [gpus_min, gpus_max] on `c` (those with a
// packed row, usable_counts.hpp), each with the profiles' epoch time for
// every spread that has a row and kNoRow for the others.  On nodes that
// differ, the spreads narrower than c.min_nodes(g) that SpeedCurve::packed
// reads (counted in nodes of the largest size) carry the packed time.
SpeedCurve profile_curve(const ProfileTable &p, const Cluster &c, int model,
			 int gpus_min, int gpus_max);

} // namespace planner
} // namespace omru

#endif
