// colocation_observed.cpp - see colocation_observed.hpp.
#include "colocation_observed.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>

namespace omru {
namespace report {
namespace {

// Beside its neighbour for at least this share of its run, and never beside
// two at once beyond the rest (overlaps may touch at a start or an end).
constexpr double kCovered = 0.9;
constexpr double kSlack = 0.1;

// A job whose time says what one epoch of its model costs.
bool usable(const JobReport &r)
{
	const OmruRecord &o = r.record;
	return r.phase == JobPhase::Finished && r.job.state == "COMPLETED" && o.present &&
	       !o.model.empty() && o.resizes.empty() && !o.profiled() && o.epochs > 0 &&
	       r.real_s > 0 && r.job.gpus > 0 && !r.job.nodes.empty();
}

double epoch_of(const JobReport &r)
{
	const OmruRecord &o = r.record;
	return o.epoch_s > 0 ? o.epoch_s : r.real_s / o.epochs;
}

bool share_node(const SacctJob &a, const SacctJob &b)
{
	for (const std::string &n : a.nodes)
		if (std::find(b.nodes.begin(), b.nodes.end(), n) != b.nodes.end())
			return true;
	return false;
}

} // namespace

ColocationFindings observe_colocation(const std::vector<JobReport> &jobs)
{
	ColocationFindings f;
	// Every started OMRU job with a model is a neighbour, usable or not.
	std::vector<const JobReport *> omru;
	for (const JobReport &r : jobs)
		if (r.record.present && !r.record.model.empty() && !std::isnan(r.job.start_s))
			omru.push_back(&r);
	using Key = std::tuple<std::string, int, size_t>; // model, GPUs, nodes
	std::map<Key, std::pair<double, int>> alone;
	struct Candidate {
		const JobReport *job;
		std::string neighbour;
	};
	std::vector<Candidate> beside;
	for (const JobReport &r : jobs) {
		if (!usable(r))
			continue;
		const double s = r.job.start_s, e = r.job.end_s;
		std::set<std::string> models;
		double covered = 0;
		for (const JobReport *k : omru) {
			if (k == &r || !share_node(r.job, k->job))
				continue;
			double ke = std::isnan(k->job.end_s) ? e : k->job.end_s;
			double overlap = std::min(e, ke) - std::max(s, k->job.start_s);
			if (overlap <= 0)
				continue;
			models.insert(k->record.model);
			covered += overlap;
		}
		const double run = e - s;
		if (models.empty()) {
			auto &[sum, n] = alone[Key(r.record.model, r.job.gpus, r.job.nodes.size())];
			sum += epoch_of(r);
			n++;
			f.alone++;
		} else if (models.size() == 1 && covered >= kCovered * run &&
			   covered <= (1 + kSlack) * run) {
			beside.push_back({ &r, *models.begin() });
		} else {
			f.mixed++;
		}
	}
	for (const Candidate &c : beside) {
		const JobReport &r = *c.job;
		auto it = alone.find(Key(r.record.model, r.job.gpus, r.job.nodes.size()));
		if (it == alone.end()) {
			f.no_reference++;
			continue;
		}
		double ref = it->second.first / it->second.second;
		double s = epoch_of(r) / ref;
		if (!(s > 0) || !std::isfinite(s))
			continue;
		f.observations.push_back({ r.record.model, c.neighbour, r.job.id, s });
	}
	return f;
}

void write_colocation_pairs(std::ostream &out, const ColocationFindings &f)
{
	// (a, b) unordered, a <= b: the sums and counts of each side.
	struct Sides {
		double sum_a = 0, sum_b = 0;
		int n_a = 0, n_b = 0;
	};
	std::map<std::pair<std::string, std::string>, Sides> pairs;
	for (const PairObservation &o : f.observations) {
		bool a_first = o.model <= o.neighbour;
		Sides &s = pairs[a_first ? std::make_pair(o.model, o.neighbour)
					 : std::make_pair(o.neighbour, o.model)];
		// A model beside itself measures both sides at once.
		if (a_first || o.model == o.neighbour) {
			s.sum_a += o.slowdown;
			s.n_a++;
		}
		if (!a_first || o.model == o.neighbour) {
			s.sum_b += o.slowdown;
			s.n_b++;
		}
	}
	out << "model_a,model_b,slowdown_a,slowdown_b,samples\n";
	char buf[64];
	for (const auto &[key, s] : pairs) {
		out << key.first << ',' << key.second << ',';
		if (s.n_a) {
			std::snprintf(buf, sizeof(buf), "%.3f", s.sum_a / s.n_a);
			out << buf;
		}
		out << ',';
		if (s.n_b) {
			std::snprintf(buf, sizeof(buf), "%.3f", s.sum_b / s.n_b);
			out << buf;
		}
		int samples = key.first == key.second ? s.n_a : s.n_a + s.n_b;
		out << ',' << samples << '\n';
	}
}

} // namespace report
} // namespace omru
