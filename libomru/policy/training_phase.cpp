// training_phase.cpp - see training_phase.hpp.
#include "policy/training_phase.hpp"

namespace omru {

bool late_phase(const CommentPhase &p, double threshold)
{
	return p.steps >= kPhaseMinSteps && p.first_drop > 0 &&
	       p.recent_drop < threshold * p.first_drop;
}

} // namespace omru
