// colocation_book.cpp - see colocation_book.hpp.
#include "controller/colocation_book.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

namespace omru {
namespace controller {

// A plan sees thousands of jobs at most once a second; a job that vanished
// without an end (slurmctld restarted, its end logged before the plugin
// saw it) is dropped after this long unseen.
constexpr double kForgetAfterS = 7 * 86400.0;

void ColocationBook::observe(const Snapshot &snap, const PairPrices &prices)
{
	// The running OMRU jobs with a model on each node.
	std::map<int, std::vector<const JobSnap *>> on_node;
	for (const JobSnap &j : snap.jobs)
		if (j.running && j.omru && !j.model.empty())
			for (auto [node, n] : j.where)
				on_node[node].push_back(&j);
	for (const JobSnap &j : snap.jobs) {
		if (!j.running || !j.omru || j.model.empty())
			continue;
		std::set<uint32_t> seen;
		std::set<std::string> models;
		double excess = 0;
		for (auto [node, n] : j.where)
			for (const JobSnap *k : on_node[node])
				if (k->job_id != j.job_id && seen.insert(k->job_id).second) {
					excess += prices.slowdown(j.uid, j.model, k->model) - 1;
					models.insert(k->model);
				}
		auto [it, added] = jobs_.try_emplace(j.job_id);
		Track &t = it->second;
		if (added) {
			t.first_s = t.last_s = snap.now_s;
		} else if (snap.now_s > t.last_s) {
			t.integral += t.factor * (snap.now_s - t.last_s);
			t.last_s = snap.now_s;
		}
		t.factor = combined_slowdown(excess);
		t.met = t.met || !models.empty();
		if (models.size() != 1)
			t.several = true;
		else if (t.neighbour.empty())
			t.neighbour = *models.begin();
		else if (t.neighbour != *models.begin())
			t.several = true;
	}
	for (auto it = jobs_.begin(); it != jobs_.end();)
		it = snap.now_s - it->second.last_s > kForgetAfterS ? jobs_.erase(it) : std::next(it);
}

ColocationBook::Seen ColocationBook::take(uint32_t job_id, double now_s)
{
	Seen s;
	auto it = jobs_.find(job_id);
	if (it == jobs_.end())
		return s;
	Track t = it->second;
	jobs_.erase(it);
	double end = std::max(now_s, t.last_s);
	double integral = t.integral + t.factor * (end - t.last_s);
	s.seen_s = end - t.first_s;
	s.mean_factor = s.seen_s > 0 ? integral / s.seen_s : t.factor;
	if (!t.several)
		s.only_neighbour = t.neighbour;
	s.alone = !t.met;
	return s;
}

} // namespace controller
} // namespace omru
