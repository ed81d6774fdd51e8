// lr_schedule.hpp - the linear scaling rule with gradual warm-up (Goyal et
// al., "Accurate, Large Minibatch SGD", 2017): lr = base_lr x global batch /
// reference batch, reached linearly over the first warm-up epochs.  When the
// world size (so the global batch) changes, the rule is applied again: the
// rate moves linearly from where it is to the new target over the warm-up.
#ifndef OMRU_TRAINER_LR_SCHEDULE_HPP
#define OMRU_TRAINER_LR_SCHEDULE_HPP

namespace omru {
namespace train {

class LrSchedule {
    public:
	// base_lr > 0 for reference_batch > 0 samples; warmup_epochs >= 0.
	LrSchedule(double base_lr, int reference_batch, double warmup_epochs);

	// The global batch from `epoch` (fractional) on.  The first call
	// warms up from base_lr; later calls with a different batch warm from
	// the rate at `epoch` to the new target.  Same batch: no change.
	void set_global_batch(int global_batch, double epoch);
	double lr(double epoch) const;
	double target() const { return target_; }

	// State for checkpoints: restoring it reproduces lr() exactly.
	struct State {
		double from_lr, target_lr, warmup_start_epoch;
		int global_batch;
	};
	State state() const;
	void restore(const State &s);

    private:
	double base_lr_, warmup_epochs_;
	int reference_batch_;
	int global_batch_ = 0;
	double from_ = 0, target_ = 0, start_ = 0;
};

} // namespace train
} // namespace omru

#endif
