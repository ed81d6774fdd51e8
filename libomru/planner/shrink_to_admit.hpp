// shrink_to_admit.hpp - phase-aware reallocation in the plan: a running job
// the caller marked may_shrink (late in its training, policy/
// training_phase.hpp) gives GPUs to a job that waits for them, when the
// plan with the shrink ends sooner, its restart paid, than the plan
// without.  Under the reference bound (plan.hpp, ReferenceBound), a plan
// that leaves a job past its bound may also take back GPUs a running
// elastic job holds beyond what its user asked (down to that count): kept
// when fewer jobs are then late, whatever the objective loses.  make_plan
// calls it; doc/omru-planner.md gives the rule.
#ifndef OMRU_PLANNER_SHRINK_TO_ADMIT_HPP
#define OMRU_PLANNER_SHRINK_TO_ADMIT_HPP

#include <functional>

#include "planner/plan.hpp"

namespace omru {
namespace planner {

// A shrink must shorten the plan's makespan (mean JCT under that
// objective) by more than this fraction of what is left of it: a smaller
// gain is within the speed model's error and not worth a restart.
constexpr double kShrinkGain = 0.02;
// Shrinks tried per plan (each is one more plan): the largest holders
// first, each at its nearest smaller counts.
constexpr int kMaxShrinkTries = 8;

// The GPUs a job holding `where` keeps when it shrinks to `gpus`: its
// fullest nodes first, so it spans as few nodes as it can.  Ascending by
// node.
NodeCounts kept_part(const NodeCounts &where, int gpus);

// `base`: the plan for `in` without shrinks; `plan`: plans an input (the
// planner's search).  RET the best plan with one shrink, its Resize
// first in `now`, or `base` when none gains enough or nothing waits.
Plan shrink_to_admit(const PlanInput &in, Plan base,
		     const std::function<Plan(const PlanInput &)> &plan);

} // namespace planner
} // namespace omru

#endif
