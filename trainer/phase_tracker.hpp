// phase_tracker.hpp - the training-phase signal omru-train reports while it
// runs (policy/training_phase.hpp says what the controller does with it):
// the mean loss over windows of 100 global steps, the fall from the first
// window to the second and over the latest two windows.  Written by rank 0
// to OMRU_PHASE_FILE (spank_omru forwards it to the job's record) after
// every window from the second on, replaced atomically.
#ifndef OMRU_TRAINER_PHASE_TRACKER_HPP
#define OMRU_TRAINER_PHASE_TRACKER_HPP

#include <optional>
#include <string>

#include "model/admin_comment.hpp" // CommentPhase

namespace omru {
namespace train {

class PhaseTracker {
    public:
	// One step's loss; RET the signal when this step closed a window and
	// two or more windows are done.
	std::optional<CommentPhase> add(double loss);

    private:
	double sum_ = 0;
	long steps_ = 0;  // in all windows
	int windows_ = 0; // closed
	double first_ = 0, previous_ = 0, first_drop_ = 0;
};

// The file's line: "STEPS FIRST_DROP RECENT_DROP" (metrics.hpp
// replace_line writes it).
std::string phase_line(const CommentPhase &p);

} // namespace train
} // namespace omru

#endif
