// loader_model.hpp - how fast one training task runs as a function of the
// data-loader workers it has (A-Dloader's per-job throughput model).
//
// A training step consumes a batch the loader workers prepared ahead of it
// (a prefetch queue between them), so in steady state the task runs at the
// slower of two rates:
//   compute: 1 / c samples/s, c = seconds the step itself needs per sample
//            (forward, backward, allreduce: everything but waiting for data);
//   loading: w x r samples/s, r = samples one worker prepares per second of
//            its own work (read, decode, augment), w workers.
// So   samples/s(w) = min(1 / c, w x r),
// saturating at w* = ceil(1 / (c r)) workers, beyond which more loader CPUs
// buy nothing.  Both numbers come from what the task measures while it
// trains at whatever w it has: r from the workers' busy time, and c from the
// observed rate X and the fraction f of the time the step waited for data:
// per sample the task spends 1/X, of which f/X waiting, so c = (1 - f) / X.
// One window of measurements at any w is enough to predict every other w;
// what it cannot see is CPU contention (workers that share cores run slower),
// which is why the allocator never hands out more workers than there are
// loader CPUs.
#ifndef OMRU_PROFILE_LOADER_MODEL_HPP
#define OMRU_PROFILE_LOADER_MODEL_HPP

#include <optional>
#include <string>

namespace omru {

// What a task measured over a window of training (per task, not per job).
struct LoaderSample {
	int workers = 0;          // loader workers it had
	double samples_s = 0;     // samples/s it consumed
	double wait_fraction = 0; // of the wall time, waiting for a batch
	double worker_rate = 0;   // samples per busy worker-second
};

class LoaderModel {
    public:
	// c > 0 seconds per sample of compute, r > 0 samples/s per worker.
	LoaderModel(double compute_s_per_sample, double worker_rate);

	// The model a measurement implies; nothing when it is not plausible
	// (non-positive rates, a wait fraction outside [0, 1), workers < 1)
	// with the reason in *why.
	static std::optional<LoaderModel> fit(const LoaderSample &s,
					      std::string *why = nullptr);

	double samples_s(int workers) const;
	// The rate with unlimited workers: the step's own speed.
	double peak_samples_s() const { return 1.0 / compute_s_; }
	// samples_s(w) / peak, in (0, 1].
	double normalised(int workers) const;
	// The fewest workers that reach the peak.
	int saturation_workers() const;

	double compute_s_per_sample() const { return compute_s_; }
	double worker_rate() const { return worker_rate_; }

    private:
	double compute_s_;
	double worker_rate_;
};

// A job nothing has been measured of yet: it is assumed to saturate at
// `workers` workers (what it asked for, or the site's default), so it is
// given that many when they are free.
LoaderModel loader_prior(int workers);

} // namespace omru

#endif
