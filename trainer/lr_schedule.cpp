// lr_schedule.cpp - see lr_schedule.hpp.  The schedule is a line from
// (start_, from_) to (start_ + warmup, target_), flat before and after; each
// change of the global batch starts a new line at the current rate, so the
// rate never jumps when the world size changes.
#include "lr_schedule.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace omru {
namespace train {

LrSchedule::LrSchedule(double base_lr, int reference_batch,
		       double warmup_epochs)
	: base_lr_(base_lr), warmup_epochs_(warmup_epochs),
	  reference_batch_(reference_batch)
{
	// Written to be false for NaN too.
	if (!(base_lr > 0))
		throw std::invalid_argument("learning rate must be > 0, not " +
					    std::to_string(base_lr));
	if (reference_batch <= 0)
		throw std::invalid_argument("reference batch must be > 0, not " +
					    std::to_string(reference_batch));
	if (!(warmup_epochs >= 0))
		throw std::invalid_argument("warm-up epochs must be >= 0, not " +
					    std::to_string(warmup_epochs));
	from_ = target_ = base_lr;
}

void LrSchedule::set_global_batch(int global_batch, double epoch)
{
	if (global_batch <= 0)
		throw std::invalid_argument("global batch must be > 0, not " +
					    std::to_string(global_batch));
	if (global_batch == global_batch_)
		return;
	from_ = global_batch_ == 0 ? base_lr_ : lr(epoch);
	start_ = epoch;
	target_ = base_lr_ * global_batch / reference_batch_;
	global_batch_ = global_batch;
}

double LrSchedule::lr(double epoch) const
{
	if (warmup_epochs_ == 0 || epoch - start_ >= warmup_epochs_)
		return target_; // exactly, past the warm-up
	double f = std::clamp((epoch - start_) / warmup_epochs_, 0.0, 1.0);
	return from_ + (target_ - from_) * f;
}

LrSchedule::State LrSchedule::state() const
{
	return State{ from_, target_, start_, global_batch_ };
}

void LrSchedule::restore(const State &s)
{
	from_ = s.from_lr;
	target_ = s.target_lr;
	start_ = s.warmup_start_epoch;
	global_batch_ = s.global_batch;
}

} // namespace train
} // namespace omru
