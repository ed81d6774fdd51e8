// interference_model.cpp - see interference_model.hpp.
#include "profile/interference_model.hpp"

#include <algorithm>
#include <cmath>
#include <set>

namespace omru {
namespace {

constexpr int K = InterferenceFit::kTerms;
constexpr double kRidge = 1e-3; // per observation, on c1..c4
// Fewer directions than this leave five coefficients underdetermined.
constexpr int kMinObservations = 2 * K;

// Solves a x = b in place (Gaussian elimination, partial pivoting).
// RET false when a is singular.
bool solve(std::array<std::array<double, K>, K> &a, std::array<double, K> &b)
{
	for (int c = 0; c < K; c++) {
		int p = c;
		for (int r = c + 1; r < K; r++)
			if (std::fabs(a[r][c]) > std::fabs(a[p][c]))
				p = r;
		if (std::fabs(a[p][c]) < 1e-12)
			return false;
		std::swap(a[p], a[c]);
		std::swap(b[p], b[c]);
		for (int r = 0; r < K; r++) {
			if (r == c)
				continue;
			double f = a[r][c] / a[c][c];
			for (int k = c; k < K; k++)
				a[r][k] -= f * a[c][k];
			b[r] -= f * b[c];
		}
	}
	for (int c = 0; c < K; c++)
		b[c] /= a[c][c];
	return true;
}

} // namespace

std::array<double, InterferenceFit::kTerms> interference_features(double u_a, double m_a,
								   double u_b, double m_b)
{
	return { 1, u_b, m_b, u_a * u_b, m_a * m_b };
}

InterferenceModel::InterferenceModel(const ColocationData &d)
{
	std::map<std::pair<std::string, std::string>, std::pair<double, double>> sums;
	auto add = [&](const std::string &a, const std::string &b, double s, double w) {
		auto &[sum, weight] = sums[{ a, b }];
		sum += s * w;
		weight += w;
	};
	for (const ColocationPair &p : d.pairs) {
		if (p.has_a)
			add(p.a, p.b, p.slowdown_a, p.samples);
		if (p.has_b)
			add(p.b, p.a, p.slowdown_b, p.samples);
	}
	for (const auto &[key, sw] : sums)
		measured_[key] = std::clamp(sw.first / sw.second, 1.0, kMaxSlowdown);
	for (const SoloSignals &s : d.signals)
		signals_[s.model] = { s.gpu_util / 100, s.mem_util / 100 };

	// Normal equations of the ridge fit on the measured directions whose
	// two models have signals.
	std::array<std::array<double, K>, K> ata{};
	std::array<double, K> aty{};
	struct Observation {
		const Signals *a, *b;
		double slowdown;
	};
	std::vector<Observation> obs;
	for (const auto &[key, s] : measured_) {
		auto ia = signals_.find(key.first), ib = signals_.find(key.second);
		if (ia == signals_.end() || ib == signals_.end())
			continue;
		obs.push_back({ &ia->second, &ib->second, s });
		auto x = interference_features(ia->second.u, ia->second.m, ib->second.u,
					       ib->second.m);
		for (int i = 0; i < K; i++) {
			for (int j = 0; j < K; j++)
				ata[i][j] += x[i] * x[j];
			aty[i] += x[i] * (s - 1);
		}
	}
	fit_.observations = static_cast<int>(obs.size());
	if (fit_.observations < kMinObservations)
		return;
	for (int i = 1; i < K; i++)
		ata[i][i] += kRidge * fit_.observations;
	if (!solve(ata, aty))
		return;
	for (double c : aty)
		if (!std::isfinite(c))
			return;
	fit_.coef = aty;
	fit_.fitted = true;
	double se = 0;
	for (const Observation &o : obs) {
		double e = predicted(*o.a, *o.b) - o.slowdown;
		se += e * e;
	}
	fit_.rmse = std::sqrt(se / fit_.observations);
}

double InterferenceModel::predicted(const Signals &a, const Signals &b) const
{
	auto x = interference_features(a.u, a.m, b.u, b.m);
	double excess = 0;
	for (int i = 0; i < K; i++)
		excess += fit_.coef[i] * x[i];
	return std::clamp(1 + excess, 1.0, kMaxSlowdown);
}

InterferenceModel::Source InterferenceModel::source(const std::string &a,
						     const std::string &b) const
{
	if (measured_.count({ a, b }))
		return Source::Measured;
	if (fit_.fitted && signals_.count(a) && signals_.count(b))
		return Source::Predicted;
	return Source::None;
}

double InterferenceModel::priced(const std::string &a, const Signals *sa,
				 const std::string &b) const
{
	if (auto it = measured_.find({ a, b }); it != measured_.end())
		return it->second;
	auto ib = signals_.find(b);
	if (!fit_.fitted || !sa || ib == signals_.end())
		return 1;
	return predicted(*sa, ib->second);
}

double InterferenceModel::slowdown(const std::string &a, const std::string &b) const
{
	auto ia = signals_.find(a);
	return priced(a, ia == signals_.end() ? nullptr : &ia->second, b);
}

double InterferenceModel::slowdown(const std::string &a, double u_a, double m_a,
				   const std::string &b) const
{
	const Signals sa{ std::clamp(u_a, 0.0, 1.0), std::clamp(m_a, 0.0, 1.0) };
	return priced(a, &sa, b);
}

HeldOutError held_out_error(const ColocationData &d)
{
	std::set<std::string> with_signals;
	for (const SoloSignals &s : d.signals)
		with_signals.insert(s.model);
	auto key = [](const ColocationPair &p) {
		return p.a < p.b ? std::make_pair(p.a, p.b) : std::make_pair(p.b, p.a);
	};
	std::set<std::pair<std::string, std::string>> pairs;
	for (const ColocationPair &p : d.pairs)
		if (with_signals.count(p.a) && with_signals.count(p.b))
			pairs.insert(key(p));
	HeldOutError e;
	double se_fit = 0, se_mean = 0, se_none = 0;
	for (const auto &held : pairs) {
		ColocationData rest;
		rest.signals = d.signals;
		ColocationData out;
		for (const ColocationPair &p : d.pairs)
			(key(p) == held ? out : rest).pairs.push_back(p);
		InterferenceModel m(rest);
		if (!m.fit().fitted)
			continue;
		double sum = 0;
		int n = 0;
		for (const auto &[a, b] : m.measured_directions()) {
			sum += m.slowdown(a, b);
			n++;
		}
		const double mean = n ? sum / n : 1;
		InterferenceModel truth(out);
		for (const auto &[a, b] : truth.measured_directions()) {
			double s = truth.slowdown(a, b), p = m.slowdown(a, b);
			se_fit += (p - s) * (p - s);
			se_mean += (mean - s) * (mean - s);
			se_none += (1 - s) * (1 - s);
			e.directions++;
		}
	}
	if (e.directions) {
		e.rmse_fit = std::sqrt(se_fit / e.directions);
		e.rmse_mean = std::sqrt(se_mean / e.directions);
		e.rmse_none = std::sqrt(se_none / e.directions);
	}
	return e;
}

std::vector<std::pair<std::string, std::string>> InterferenceModel::measured_directions() const
{
	std::vector<std::pair<std::string, std::string>> out;
	for (const auto &[key, s] : measured_)
		out.push_back(key);
	return out;
}

std::vector<std::string> InterferenceModel::models() const
{
	std::vector<std::string> out;
	for (const auto &[key, s] : measured_)
		out.push_back(key.first);
	for (const auto &[model, s] : signals_)
		out.push_back(model);
	std::sort(out.begin(), out.end());
	out.erase(std::unique(out.begin(), out.end()), out.end());
	return out;
}

std::vector<std::vector<double>>
InterferenceModel::matrix(const std::vector<std::string> &models) const
{
	std::vector<std::vector<double>> m(models.size(),
					   std::vector<double>(models.size(), 1.0));
	for (size_t i = 0; i < models.size(); i++)
		for (size_t j = 0; j < models.size(); j++)
			m[i][j] = slowdown(models[i], models[j]);
	return m;
}

} // namespace omru
