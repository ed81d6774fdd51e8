// arrival_guard.cpp - see arrival_guard.hpp.
#include "planner/arrival_guard.hpp"

#include <cmath>
#include <limits>
#include <set>

#include "planner/reference.hpp" // asked_option

namespace omru {
namespace planner {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

} // namespace

void ArrivalGuard::forget()
{
	first_seen_.clear();
	arrivals_.clear();
	last_now_s_ = -kInf;
}

std::vector<ArrivalGuard::Held> ArrivalGuard::guarded(const PlanInput &in)
{
	const double now = in.now_s;
	if (now < last_now_s_) // time went back: a new history
		forget();
	last_now_s_ = now;
	std::map<long, double> seen;
	int fresh = 0;
	for (const PlanJob &pj : in.jobs) {
		auto known = first_seen_.find(pj.id);
		fresh += known == first_seen_.end();
		seen.emplace(pj.id, known != first_seen_.end() ? known->second : now);
	}
	first_seen_ = std::move(seen);
	// How many jobs each pass first saw, counted then: the last job of a
	// batch still here is not a job that arrived alone.
	if (fresh > 0)
		arrivals_[now] += fresh;
	std::set<double> passes;
	for (const auto &[id, t] : first_seen_)
		passes.insert(t);
	for (auto it = arrivals_.begin(); it != arrivals_.end();)
		it = passes.count(it->first) ? std::next(it) : arrivals_.erase(it);
	// The latest two passes that first saw a job still here, and how many
	// jobs the latest one saw.
	double latest = -kInf, before = -kInf;
	for (const auto &[id, t] : first_seen_) {
		if (t > latest) {
			before = latest;
			latest = t;
		} else if (t < latest && t > before) {
			before = t;
		}
	}

	// One job alone at its pass is the first of a stream as far as
	// anyone can tell; several at once are a batch.
	auto at_latest = arrivals_.find(latest);
	const bool lone = at_latest != arrivals_.end() && at_latest->second == 1;
	std::vector<Held> out;
	if (!in.arrival_guard || (!std::isfinite(before) && !lone))
		return out;
	for (size_t j = 0; j < in.jobs.size(); j++) {
		const PlanJob &pj = in.jobs[j];
		// An elastic job gives back what it was widened by.
		if (pj.running || pj.asked_gpus <= 0 || (pj.resizable && in.reuse))
			continue;
		const SpeedCurve &cv = in.curves[pj.curve];
		if (cv.gpus.size() < 2)
			continue;
		const int option = asked_option(in, static_cast<int>(j));
		if (option < 0)
			continue;
		// Two passes with arrivals within its run before now, or one
		// that saw a job alone (its run as the planner and the
		// reference price it: packed).
		const double run = pj.run_s(cv.packed(option, in.gpus_per_node));
		if (now - before < run || (lone && now - latest < run))
			out.push_back({ static_cast<int>(j), option });
	}
	return out;
}

void ArrivalGuard::hold_to_ask(PlanInput &in, const std::vector<Held> &jobs)
{
	std::map<std::pair<int, int>, int> made; // (curve, option) -> curve
	for (auto [j, option] : jobs) {
		PlanJob &pj = in.jobs[j];
		auto [it, fresh] = made.emplace(std::make_pair(pj.curve, option),
						static_cast<int>(in.curves.size()));
		if (fresh) {
			const SpeedCurve &cv = in.curves[pj.curve];
			SpeedCurve one;
			one.gpus = { cv.gpus[option] };
			one.epoch_s = { cv.epoch_s[option] };
			in.curves.push_back(std::move(one));
		}
		pj.curve = it->second;
	}
}

} // namespace planner
} // namespace omru
