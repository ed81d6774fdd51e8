// phase_tracker.cpp - see phase_tracker.hpp.
#include "phase_tracker.hpp"

#include "policy/training_phase.hpp" // kPhaseWindowSteps

namespace omru {
namespace train {

std::optional<CommentPhase> PhaseTracker::add(double loss)
{
	sum_ += loss;
	steps_++;
	const long window = static_cast<long>(kPhaseWindowSteps);
	if (steps_ % window != 0)
		return std::nullopt;
	double mean = sum_ / window;
	sum_ = 0;
	windows_++;
	if (windows_ == 1) {
		first_ = previous_ = mean;
		return std::nullopt;
	}
	if (windows_ == 2)
		first_drop_ = first_ - mean;
	CommentPhase p;
	p.steps = static_cast<double>(steps_);
	p.first_drop = first_drop_;
	p.recent_drop = previous_ - mean;
	previous_ = mean;
	return p;
}

std::string phase_line(const CommentPhase &p)
{
	// The record's codec writes numbers locale-free; its fields, blank
	// separated, are the file's line.
	std::string s = format_comment_phase(p);
	for (char &c : s)
		if (c == ':')
			c = ' ';
	return s;
}

} // namespace train
} // namespace omru
