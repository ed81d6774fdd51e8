// reference_shadow.cpp - see reference_shadow.hpp.
#include "planner/reference_shadow.hpp"

#include <algorithm>
#include <limits>

#include "planner/plan_simulation.hpp" // clearly_less
#include "planner/reference.hpp"

namespace omru {
namespace planner {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

} // namespace

// First seen start, so a resize's restart does not move it.
void ReferenceShadow::note_real_run(Seen &seen, const PlanJob &pj)
{
	if (!pj.running)
		return;
	if (seen.real_start_s < 0)
		seen.real_start_s = pj.progress_start_s;
	seen.real_end_s = pj.progress_start_s + pj.epochs_at_progress_start * pj.epoch_s;
}

void ReferenceShadow::cut_to_real_run(long id, const Seen &seen, double now)
{
	auto r = running_.find(id);
	if (r == running_.end())
		return;
	Run &run = r->second;
	double end = now; // never ran for real: withdrawn now
	if (seen.real_start_s >= 0 && seen.real_end_s > seen.real_start_s) {
		double share = std::clamp((now - seen.real_start_s) /
					  (seen.real_end_s - seen.real_start_s), 0.0, 1.0);
		end = std::max(now, run.start_s + share * (run.end_s - run.start_s));
	}
	if (!clearly_less(now, end))
		running_.erase(r);
	else
		run.end_s = std::min(run.end_s, end);
}

std::vector<double> ReferenceShadow::ends(const PlanInput &in)
{
	const double now = in.now_s;
	if (now < last_now_s_) { // time went back: a new history
		running_.clear();
		seen_.clear();
	}
	last_now_s_ = now;

	// What the last reference started by now starts, at its time and
	// place; what runs in the shadow and ends by now ends.
	for (auto &[id, s] : seen_)
		if (s.planned && s.end_s < 0 && !running_.count(id) &&
		    !clearly_less(now, s.next.start_s))
			running_.emplace(id, s.next);
	for (auto it = running_.begin(); it != running_.end();) {
		if (clearly_less(now, it->second.end_s)) {
			++it;
			continue;
		}
		auto s = seen_.find(it->first);
		if (s != seen_.end())
			s->second.end_s = it->second.end_s;
		it = running_.erase(it);
	}

	// Jobs seen for the first time: their whole work, or, first seen
	// running, where they run.  Jobs gone from the input are forgotten
	// (unless they still run in the shadow: they hold its GPUs).
	// in.jobs by id: which jobs are still in the input, and their pools.
	std::map<long, size_t> input_of;
	for (size_t j = 0; j < in.jobs.size(); j++)
		input_of.emplace(in.jobs[j].id, j);
	for (const PlanJob &pj : in.jobs) {
		if (auto known = seen_.find(pj.id); known != seen_.end()) {
			note_real_run(known->second, pj);
			continue;
		}
		Seen s;
		if (pj.running) {
			Run r;
			r.start_s = pj.progress_start_s;
			r.end_s = std::max(now, pj.progress_start_s +
							pj.epochs_at_progress_start * pj.epoch_s);
			r.gpus = pj.gpus;
			r.where = pj.where;
			running_.emplace(pj.id, std::move(r));
		} else {
			s.work = pj.remaining_epochs;
		}
		note_real_run(s, pj);
		seen_.emplace(pj.id, std::move(s));
	}
	for (auto it = seen_.begin(); it != seen_.end();) {
		if (input_of.count(it->first)) {
			++it;
			continue;
		}
		cut_to_real_run(it->first, it->second, now);
		it = seen_.erase(it);
	}

	// The shadow's state as a plan input: GPUs per node and pools (a
	// user's GPU limit, a license: Slurm's own policy waits for them too;
	// a shadow that ignored them promised nobody's capped jobs ends no
	// scheduler could give, and the bound then held them at their asked
	// counts: slurm-limits.sh, 2026-11-28).  A job gone from the input
	// that still runs in the shadow holds no pool (its uses are not
	// known any more: pool numbers are the input's).
	PlanInput s;
	s.now_s = now;
	s.nodes = in.nodes;
	s.gpus_per_node = in.gpus_per_node;
	s.node_gpus = in.node_gpus;
	s.node_sets = in.node_sets;
	s.curves = in.curves;
	s.pool_capacity = in.pool_capacity;
	s.free_per_node.resize(in.nodes);
	for (int n = 0; n < in.nodes; n++)
		s.free_per_node[n] = in.capacity(n);
	for (const auto &[id, r] : running_) {
		PlanJob pj;
		pj.id = id;
		pj.running = true;
		pj.progress_start_s = r.start_s;
		pj.epochs_at_progress_start = 1;
		pj.epoch_s = r.end_s - r.start_s;
		for (auto [node, count] : r.where)
			if (node >= 0 && node < in.nodes) {
				int held = std::min(count, s.free_per_node[node]);
				s.free_per_node[node] -= held;
				if (held > 0)
					pj.where.emplace_back(node, held);
			}
		for (auto [node, count] : pj.where)
			pj.gpus += count;
		if (auto k = input_of.find(id); k != input_of.end())
			pj.pools = in.jobs[k->second].pools;
		s.jobs.push_back(std::move(pj));
	}
	std::vector<int> index_of(in.jobs.size(), -1); // in.jobs -> s.jobs
	for (size_t j = 0; j < in.jobs.size(); j++) {
		const PlanJob &pj = in.jobs[j];
		const Seen &seen = seen_.at(pj.id);
		if (running_.count(pj.id) || seen.end_s >= 0)
			continue;
		PlanJob q;
		q.id = pj.id;
		q.curve = pj.curve;
		q.submit_s = pj.submit_s;
		q.remaining_epochs = seen.work;
		q.node_set = pj.node_set;
		q.asked_gpus = pj.asked_gpus;
		q.priority = pj.priority;
		q.pools = pj.pools;
		index_of[j] = static_cast<int>(s.jobs.size());
		s.jobs.push_back(std::move(q));
	}
	const Reference ref = backfill_reference(s);

	std::vector<double> out(in.jobs.size(), kInf);
	for (size_t j = 0; j < in.jobs.size(); j++) {
		Seen &seen = seen_.at(in.jobs[j].id);
		auto r = running_.find(in.jobs[j].id);
		if (r != running_.end()) {
			out[j] = r->second.end_s;
		} else if (seen.end_s >= 0) {
			out[j] = seen.end_s;
		} else if (int k = index_of[j]; k >= 0) {
			seen.planned = ref.option[k] >= 0;
			if (!seen.planned)
				continue;
			seen.next.start_s = ref.start_s[k];
			seen.next.end_s = ref.end_s[k];
			seen.next.gpus = s.curves[s.jobs[k].curve].gpus[ref.option[k]];
			seen.next.where = ref.where[k];
			out[j] = ref.end_s[k];
		}
	}
	return out;
}

} // namespace planner
} // namespace omru
