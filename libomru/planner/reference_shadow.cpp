// reference_shadow.cpp - see reference_shadow.hpp.
#include "planner/reference_shadow.hpp"

#include <algorithm>
#include <limits>

#include "planner/reference.hpp"

namespace omru {
namespace planner {
namespace {

// a is before b by more than rounding.  Not clearly_less: its tolerance is
// relative, and select/omru's times are Unix seconds (about 1.8e9), where
// it is 1.8 s: the shadow ended runs and started jobs that much early, and
// every reference end made from it was early by as much (against a bound
// of 5% + 1 s on jobs of tens of seconds).  A microsecond is far above the
// rounding of times computed the same way and far below a plan's interval.
bool before(double a, double b)
{
	return a < b - 1e-6;
}

constexpr double kInf = std::numeric_limits<double>::infinity();

// What `pj` holds of each node of `where` (its holding as Slurm reported
// it, else its need there); empty without node resources.
std::vector<NodeUse> uses_of(const PlanInput &in, const PlanJob &pj, const NodeCounts &where,
			     const std::vector<NodeUse> &holding = {})
{
	if (!in.has_resources())
		return {};
	if (holding.size() == where.size())
		return holding;
	std::vector<NodeUse> use;
	for (auto [node, n] : where)
		use.push_back(node >= 0 && node < in.nodes ? in.use_of(pj.need, node, n)
							   : NodeUse{});
	return use;
}

} // namespace

// First seen start, so a resize's restart does not move it.
void ReferenceShadow::note_real_run(Seen &seen, const PlanJob &pj)
{
	if (!pj.running)
		return;
	seen.real_end_s = pj.progress_start_s + pj.epochs_at_progress_start * pj.epoch_s;
	if (seen.real_start_s < 0) {
		seen.real_start_s = pj.progress_start_s;
		seen.first_real_end_s = seen.real_end_s;
	}
}

// Seconds, observed: how long it has run past its first predicted end (a
// job the shadow planned to start on its GPUs at its earlier end then
// waits: start_planned).
void ReferenceShadow::stretch_by_overrun(long id, const Seen &seen, double now)
{
	auto r = running_.find(id);
	if (r == running_.end() || !(seen.first_real_end_s >= 0) || !(now > seen.first_real_end_s))
		return;
	Run &run = r->second;
	run.end_s = std::max(run.end_s, run.planned_end_s + (now - seen.first_real_end_s));
}

void ReferenceShadow::cut_to_real_run(long id, const Seen &seen, double now)
{
	auto r = running_.find(id);
	if (r == running_.end())
		return;
	Run &run = r->second;
	if (seen.first_real_end_s >= 0 && now >= seen.first_real_end_s) {
		// It ran to or past its first predicted end: not an early end.
		stretch_by_overrun(id, seen, now);
		if (!before(now, run.end_s))
			running_.erase(r);
		return;
	}
	double end = now; // never ran for real: withdrawn now
	if (seen.real_start_s >= 0 && seen.real_end_s > seen.real_start_s) {
		double share = std::clamp((now - seen.real_start_s) /
					  (seen.real_end_s - seen.real_start_s), 0.0, 1.0);
		end = std::max(now, run.start_s + share * (run.end_s - run.start_s));
	}
	if (!before(now, end))
		running_.erase(r);
	else
		run.end_s = std::min(run.end_s, end);
}

void ReferenceShadow::node_resources(const PlanInput &in, PlanInput &s)
{
	if (!in.has_resources())
		return;
	s.node_cpus = in.node_cpus;
	s.node_mem = in.node_mem;
	s.free_cpus = in.free_cpus;
	s.free_mem = in.free_mem;
	for (const PlanJob &pj : in.jobs) {
		if (!pj.running)
			continue;
		std::vector<NodeUse> use = uses_of(in, pj, pj.where, pj.holding);
		for (size_t i = 0; i < use.size(); i++) {
			int node = pj.where[i].first;
			if (node < 0 || node >= in.nodes)
				continue;
			s.free_cpus[node] = std::min(s.node_cpus[node], s.free_cpus[node] + use[i].cpus);
			s.free_mem[node] = std::min(s.node_mem[node], s.free_mem[node] + use[i].mem);
		}
	}
}

bool ReferenceShadow::free_at(const PlanInput &in, const NodeCounts &where, double t) const
{
	for (auto [node, n] : where) {
		if (node < 0 || node >= in.nodes)
			continue;
		int held = 0;
		for (const auto &[id, r] : running_)
			if (!before(t, r.start_s) && before(t, r.end_s))
				for (auto [m, k] : r.where)
					held += m == node ? k : 0;
		if (held + n > in.capacity(node))
			return false;
	}
	return true;
}

void ReferenceShadow::start_planned(const PlanInput &in, double now)
{
	std::vector<std::pair<double, long>> due; // by start, then id
	for (const auto &[id, s] : seen_)
		if (s.planned && s.end_s < 0 && !running_.count(id) &&
		    !before(now, s.next.start_s))
			due.emplace_back(s.next.start_s, id);
	std::sort(due.begin(), due.end());
	for (auto [start, id] : due) {
		Seen &s = seen_.at(id);
		if (free_at(in, s.next.where, start))
			running_.emplace(id, s.next);
		else
			s.planned = false; // an overrun holds its GPUs: placed anew below
	}
}

void ReferenceShadow::end_runs_by(double t)
{
	for (auto it = running_.begin(); it != running_.end();) {
		if (before(t, it->second.end_s)) {
			++it;
			continue;
		}
		auto s = seen_.find(it->first);
		if (s != seen_.end())
			s->second.end_s = it->second.end_s;
		it = running_.erase(it);
	}
}

void ReferenceShadow::catch_up(const PlanInput &in, double now, const std::map<long, size_t> &input_of)
{
	// Each step either starts the jobs due at its time or plans again at a
	// later time; the cap bounds the cost of a long gap between passes.
	constexpr int kMaxSteps = 32;
	for (int step = 0; step < kMaxSteps; step++) {
		double t = kInf;
		for (const auto &[id, s] : seen_)
			if (s.planned && s.end_s < 0 && !running_.count(id) &&
			    !before(now, s.next.start_s))
				t = std::min(t, s.next.start_s);
		if (!(t < kInf))
			break;
		end_runs_by(t);
		if (before(planned_at_s_, t)) {
			plan_from(in, t, input_of);
			continue;
		}
		start_planned(in, t);
	}
	start_planned(in, now); // past the cap: the last reference's starts stand
	end_runs_by(now);
}

void ReferenceShadow::plan_from(const PlanInput &in, double t, const std::map<long, size_t> &input_of)
{
	planned_at_s_ = t;
	// The shadow's state as a plan input: GPUs, CPUs and memory per node
	// and pools (a user's GPU limit, a license: Slurm's own policy waits
	// for them too; a shadow that ignored them promised nobody's capped
	// jobs ends no scheduler could give, and the bound then held them at
	// their asked counts: slurm-limits.sh, 2026-11-28).  A job gone from the input
	// that still runs in the shadow holds no pool (its uses are not
	// known any more: pool numbers are the input's).
	PlanInput s;
	s.now_s = t;
	s.nodes = in.nodes;
	s.gpus_per_node = in.gpus_per_node;
	s.node_gpus = in.node_gpus;
	s.node_sets = in.node_sets;
	s.curves = in.curves;
	s.pool_capacity = in.pool_capacity;
	s.free_per_node.resize(in.nodes);
	for (int n = 0; n < in.nodes; n++)
		s.free_per_node[n] = in.capacity(n);
	// CPUs and memory bind Slurm's policy too: a job asking 8 CPUs per
	// GPU waits for them under backfill, and a shadow blind to them
	// promised it an end no scheduler could give (slurm-limits.sh's
	// L05-cpu, 3.8 x its reference, 2026-11-28).
	node_resources(in, s);
	for (const auto &[id, r] : running_) {
		PlanJob pj;
		pj.id = id;
		pj.running = true;
		pj.progress_start_s = r.start_s;
		pj.epochs_at_progress_start = 1;
		pj.epoch_s = r.end_s - r.start_s;
		pj.limit_end_s = r.limit_end_s;
		for (size_t i = 0; i < r.where.size(); i++) {
			auto [node, count] = r.where[i];
			if (node < 0 || node >= in.nodes)
				continue;
			int held = std::min(count, s.free_per_node[node]);
			s.free_per_node[node] -= held;
			if (held <= 0)
				continue;
			pj.where.emplace_back(node, held);
			if (!s.has_resources())
				continue;
			NodeUse u = i < r.use.size() ? r.use[i] : NodeUse{};
			u.cpus = std::min(u.cpus, s.free_cpus[node]);
			u.mem = std::min(u.mem, s.free_mem[node]);
			s.free_cpus[node] -= u.cpus;
			s.free_mem[node] -= u.mem;
			pj.holding.push_back(u);
		}
		for (auto [node, count] : pj.where)
			pj.gpus += count;
		if (auto k = input_of.find(id); k != input_of.end())
			pj.pools = in.jobs[k->second].pools;
		s.jobs.push_back(std::move(pj));
	}
	// The input's jobs pending in the shadow, those submitted by t when
	// planning between passes (a job is seen at the pass after its
	// submission; under Slurm's policy it competed from its submission).
	std::vector<Seen *> of_s; // s.jobs -> seen_, pending ones
	of_s.assign(s.jobs.size(), nullptr);
	for (const PlanJob &pj : in.jobs) {
		Seen &seen = seen_.at(pj.id);
		if (running_.count(pj.id) || seen.end_s >= 0 ||
		    (t < in.now_s && before(t, pj.submit_s)))
			continue;
		PlanJob q;
		q.id = pj.id;
		q.curve = pj.curve;
		q.submit_s = pj.submit_s;
		q.remaining_epochs = seen.work;
		q.start_overhead_s = pj.start_overhead_s;
		q.node_set = pj.node_set;
		q.asked_gpus = pj.asked_gpus;
		q.priority = pj.priority;
		q.limit_s = pj.limit_s;
		q.pools = pj.pools;
		q.need = pj.need;
		s.jobs.push_back(std::move(q));
		of_s.push_back(&seen);
	}
	const Reference ref = backfill_reference(s);
	for (size_t k = 0; k < s.jobs.size(); k++) {
		Seen *seen = of_s[k];
		if (!seen)
			continue;
		seen->planned = ref.option[k] >= 0;
		if (!seen->planned)
			continue;
		seen->next.start_s = ref.start_s[k];
		seen->next.end_s = seen->next.planned_end_s = ref.end_s[k];
		seen->next.gpus = s.curves[s.jobs[k].curve].gpus[ref.option[k]];
		seen->next.limit_end_s = s.jobs[k].limit_s > 0 ? ref.start_s[k] + s.jobs[k].limit_s : 0;
		seen->next.where = ref.where[k];
		seen->next.use = uses_of(s, s.jobs[k], ref.where[k]);
	}
}

std::vector<double> ReferenceShadow::ends(const PlanInput &in)
{
	const double now = in.now_s;
	if (now < last_now_s_) { // time went back: a new history
		running_.clear();
		seen_.clear();
		planned_at_s_ = -1;
	}
	last_now_s_ = now;

	// What the input says of real runs first: a job that overran its
	// predicted end holds its shadow GPUs longer before anything ends.
	for (const PlanJob &pj : in.jobs)
		if (auto known = seen_.find(pj.id); known != seen_.end() && pj.running) {
			note_real_run(known->second, pj);
			stretch_by_overrun(pj.id, known->second, now);
		}

	// Jobs seen for the first time: their whole work, or, first seen
	// running, where they run.  in.jobs by id: which jobs are still in
	// the input, and their pools.
	std::map<long, size_t> input_of;
	for (size_t j = 0; j < in.jobs.size(); j++)
		input_of.emplace(in.jobs[j].id, j);
	for (const PlanJob &pj : in.jobs) {
		if (seen_.count(pj.id))
			continue; // its real run noted above
		Seen s;
		if (pj.running) {
			Run r;
			r.start_s = pj.progress_start_s;
			r.end_s = std::max(now, pj.progress_start_s +
							pj.epochs_at_progress_start * pj.epoch_s);
			r.gpus = pj.gpus;
			r.limit_end_s = pj.limit_end_s;
			r.where = pj.where;
			r.planned_end_s = r.end_s;
			r.use = uses_of(in, pj, pj.where, pj.holding);
			running_.emplace(pj.id, std::move(r));
		} else {
			s.work = pj.remaining_epochs;
		}
		note_real_run(s, pj);
		seen_.emplace(pj.id, std::move(s));
	}

	// Slurm's policy from the last pass to now, event by event.
	catch_up(in, now, input_of);

	// Jobs gone from the input are forgotten (unless they still run in
	// the shadow: they hold its GPUs).
	for (auto it = seen_.begin(); it != seen_.end();) {
		if (input_of.count(it->first)) {
			++it;
			continue;
		}
		cut_to_real_run(it->first, it->second, now);
		it = seen_.erase(it);
	}

	plan_from(in, now, input_of);
	std::vector<double> out(in.jobs.size(), kInf);
	for (size_t j = 0; j < in.jobs.size(); j++) {
		const Seen &seen = seen_.at(in.jobs[j].id);
		if (auto r = running_.find(in.jobs[j].id); r != running_.end())
			out[j] = r->second.end_s;
		else if (seen.end_s >= 0)
			out[j] = seen.end_s;
		else if (seen.planned)
			out[j] = seen.next.end_s;
	}
	return out;
}

} // namespace planner
} // namespace omru
