// interference_model.hpp - how much a training job slows down next to
// another on one node: measured where the pair met, predicted from the two
// models' solo signals where it did not (doc/omru-planner.md,
// "Interference").
//
// The prediction is a linear model anyone can read off its five
// coefficients.  With u and m a model's GPU and memory-controller
// utilisation alone (fractions of 1), a's slowdown next to b is
//
//   slowdown(a, b) = 1 + c0 + c1 u_b + c2 m_b + c3 u_a u_b + c4 m_a m_b
//
// a suffers more the busier its neighbour keeps the GPUs and memory it
// shares (c1, c2), and most when both lean on the same resource (c3, c4).
// The coefficients are fitted by least squares (ridge 1e-3 per pair, the
// intercept unpenalised) on every measured pair whose two models have
// signals, both directions; the fit is made again from the whole table
// whenever the table changes, so each new measurement corrects it, and a
// measured pair is always answered by its measurement, never the fit.
// Answers are kept within [1, kMaxSlowdown].  A pair with neither a
// measurement nor signals for both models is not priced (1): the plan then
// places it as if it did not interfere, as it did before it knew of any.
//
// Several neighbours add up: a job next to jobs k1..kn (distinct jobs on
// any of its nodes) runs at 1 + sum (slowdown(a, ki) - 1), within
// kMaxSlowdown (combined_slowdown) -- the additive rule of co-location
// studies, which keeps one bad neighbour from counting once per node.
#ifndef OMRU_PROFILE_INTERFERENCE_MODEL_HPP
#define OMRU_PROFILE_INTERFERENCE_MODEL_HPP

#include <array>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "profile/colocation_table.hpp"

namespace omru {

// 1 + the sum of each neighbour's excess slowdown, within [1, kMaxSlowdown].
inline double combined_slowdown(double excess_sum)
{
	double f = 1 + excess_sum;
	return f < 1 ? 1 : (f > kMaxSlowdown ? kMaxSlowdown : f);
}

struct InterferenceFit {
	static constexpr int kTerms = 5;
	std::array<double, kTerms> coef{}; // c0..c4 above
	int observations = 0;              // (a, b) directions fitted on
	double rmse = 0;                   // of the fit on them
	bool fitted = false;               // too few observations: false
};

class InterferenceModel {
    public:
	enum class Source { Measured, Predicted, None };

	InterferenceModel() = default; // knows nothing: every pair is 1
	explicit InterferenceModel(const ColocationData &d);

	bool empty() const { return measured_.empty() && !fit_.fitted; }
	// a's slowdown next to one job of b, and where it comes from.
	double slowdown(const std::string &a, const std::string &b) const;
	Source source(const std::string &a, const std::string &b) const;
	// The same with a's solo signals given (fractions of 1: a user's own,
	// sampled on its nodes) in place of the table's: the measured pair
	// where there is one, else the fit; 1 without a fit or b's signals.
	double slowdown(const std::string &a, double u_a, double m_a,
			const std::string &b) const;
	const InterferenceFit &fit() const { return fit_; }
	// The measured (a, b) directions, sorted.
	std::vector<std::pair<std::string, std::string>> measured_directions() const;
	// Every model the table names (pairs or signals), sorted.
	std::vector<std::string> models() const;
	// slowdown(models[i], models[j]) for every i, j.
	std::vector<std::vector<double>> matrix(const std::vector<std::string> &models) const;

    private:
	struct Signals {
		double u = 0, m = 0; // fractions of 1
	};
	double predicted(const Signals &a, const Signals &b) const;
	// a's slowdown next to b with a's signals `sa` (null: none): the
	// measured pair, else the fit, else 1.
	double priced(const std::string &a, const Signals *sa, const std::string &b) const;
	// (a, b) -> a's mean slowdown next to b, over the table's rows.
	std::map<std::pair<std::string, std::string>, double> measured_;
	std::map<std::string, Signals> signals_;
	InterferenceFit fit_;
};

// How well the fit prices pairs nobody measured: each measured pair whose
// two models have signals is held out in turn and its directions predicted
// by the fit on the rest (omru-profile interference prints it).  Beside it,
// the error of the rest's mean measured slowdown and of no slowdown (1), so
// the fit's number has something to be compared with.  O(pairs x rows).
struct HeldOutError {
	int directions = 0; // predicted (0: too few pairs to fit without one)
	double rmse_fit = 0, rmse_mean = 0, rmse_none = 0;
};
HeldOutError held_out_error(const ColocationData &d);

// The regression's features for a next to b (c0's is 1).
std::array<double, InterferenceFit::kTerms> interference_features(double u_a, double m_a,
								   double u_b, double m_b);

} // namespace omru

#endif
