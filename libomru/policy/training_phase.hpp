// training_phase.hpp - phase-aware reallocation: when a running elastic job
// may give GPUs to a waiting job.
//
// The signal (Wei and Shudo's): how fast the training loss still falls.
// omru-train averages its loss over windows of 100 global steps and reports
// the fall from the first window to the second (FIRST) and over its latest
// two windows (RECENT), in the job's record (`phase`, CommentPhase).  A job
// is in its late phase once RECENT < threshold x FIRST: its loss falls at
// less than that share of its initial rate.
//
// The rule (ours; doc/omru-planner.md "Phase-aware reallocation" gives the
// sources and where it differs from the paper): only a job in its late
// phase may be shrunk so that a waiting job starts (PlanJob::may_shrink,
// PlanInput::shrink_to_admit), and only when the plan with the shrink ends
// sooner than the plan without, restart paid.  Early in training the
// network changes fast and the linear scaling rule is least reliable
// (Goyal et al. 2017 warm up for that reason); a batch change there risks
// the model, late it does not.  A job with no signal is never shrunk.
#ifndef OMRU_POLICY_TRAINING_PHASE_HPP
#define OMRU_POLICY_TRAINING_PHASE_HPP

#include "model/admin_comment.hpp" // CommentPhase

namespace omru {

constexpr double kPhaseWindowSteps = 100;
// FIRST and a later window pair: the first report that can say "late".
constexpr double kPhaseMinSteps = 3 * kPhaseWindowSteps;

// True when `p` says the job's loss falls at less than `threshold` (0..1)
// of its initial rate.  No signal (too few steps, or a loss that did not
// fall over the first windows) is not late.
bool late_phase(const CommentPhase &p, double threshold);

} // namespace omru

#endif
