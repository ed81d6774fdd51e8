// reference.cpp - see reference.hpp.
//
// The free resources over time are a list of slots, each the state from its
// start to the next one's: free GPUs (and CPUs and memory) per node and the
// room left in each pool.  Running jobs give theirs back at their predicted
// ends; each reservation takes its own from its start to its end, splitting
// slots there.  A job's earliest start is at a slot's start (resources only
// grow at slot boundaries), found by walking the slots: a window that has a
// slot with too few GPUs in total (on the job's nodes) or too little pool
// room cannot hold the job, nor can any window starting before that slot,
// so the walk skips past it; only windows that pass that test are packed
// node by node.
#include "planner/reference.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "planner/plan_simulation.hpp" // fits_when_idle, clearly_less

namespace omru {
namespace planner {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct Slot {
	double t = 0;
	std::vector<int> gpus;
	std::vector<double> cpus, mem; // empty without node resources
	std::vector<double> pools;     // room left in each
	int total = 0;                 // free GPUs on all nodes
	// Something comes back at its start (a job's end): only such slots,
	// and the first, can be a job's earliest start.
	bool release = false;
};

class Timeline {
    public:
	explicit Timeline(const PlanInput &in) : in_(in)
	{
		Slot s;
		s.t = in.now_s;
		s.gpus = in.free_per_node;
		if (in.has_resources()) {
			s.cpus = in.free_cpus;
			s.mem = in.free_mem;
		}
		s.pools = in.pool_capacity;
		for (int g : s.gpus)
			s.total += g;
		slots_.push_back(std::move(s));
	}

	const std::vector<Slot> &slots() const { return slots_; }

	// Whether `pj`'s pools have room for `gpus` GPUs now (the first slot:
	// running jobs and the jobs placed to start now hold theirs).
	bool pools_room_now(const PlanJob &pj, int gpus) const
	{
		for (const PoolUse &u : pj.pools)
			if (!u.fits(gpus, in_.pool_capacity[u.pool] - slots_[0].pools[u.pool],
				    in_.pool_capacity[u.pool]))
				return false;
		return true;
	}

	// What a job holds of nodes (GPUs, and CPUs and memory: `holding`,
	// else its need there), taken (sign -1) or given back (+1) from `from`
	// to `to` (kInf: for good).
	void nodes(const PlanJob &pj, const NodeCounts &where,
		   const std::vector<NodeUse> &holding, double from, double to, int sign)
	{
		auto [a, b] = span(from, to, sign);
		for (size_t k = a; k < b; k++) {
			Slot &s = slots_[k];
			for (size_t i = 0; i < where.size(); i++) {
				auto [node, n] = where[i];
				s.gpus[node] += sign * n;
				s.total += sign * n;
				if (!s.cpus.empty()) {
					NodeUse u = i < holding.size()
							    ? holding[i]
							    : in_.use_of(pj.need, node, n);
					s.cpus[node] += sign * u.cpus;
					s.mem[node] += sign * u.mem;
				}
			}
		}
	}

	// What a job of `gpus` GPUs holds of its pools, the same way.
	void pools(const PlanJob &pj, int gpus, double from, double to, int sign)
	{
		auto [a, b] = span(from, to, sign);
		for (size_t k = a; k < b; k++)
			for (const PoolUse &u : pj.pools)
				slots_[k].pools[u.pool] += sign * u.of(gpus);
	}

	// The earliest start of `job` at `option` and where, in slots
	// `first` to `last`; false when it never fits there.
	bool earliest(int job, int option, double &start, double &end, NodeCounts &where,
		      size_t first, size_t last) const
	{
		const PlanJob &pj = in_.jobs[job];
		const SpeedCurve &cv = in_.curves[pj.curve];
		const int g = cv.gpus[option];
		const double packed = pj.run_s(cv.packed(option, in_.gpus_per_node));
		for (const PoolUse &u : pj.pools)
			if (!u.fits(g, 0, in_.pool_capacity[u.pool]))
				return false;
		for (size_t k = first; k < slots_.size() && k <= last;) {
			if (k > 0 && !slots_[k].release) { // nothing came back
				k++;
				continue;
			}
			size_t bad = first_short(pj, g, k, slots_[k].t + packed);
			if (bad < slots_.size()) {
				k = bad + 1;
				continue;
			}
			std::vector<int> caps = caps_over(pj, k, slots_[k].t + packed);
			auto placed = pj.node_set < 0
					      ? pack_gpus(caps, g)
					      : pack_gpus(caps, g, in_.node_sets[pj.node_set]);
			double e = placed ? cv.epoch_s[option][placed->size()] : kNoRow;
			if (!placed || std::isnan(e)) {
				k++;
				continue;
			}
			double run = pj.run_s(e);
			if (run > packed) { // spread wider than packed: a longer window
				std::vector<int> longer = caps_over(pj, k, slots_[k].t + run);
				bool fits = first_short(pj, g, k, slots_[k].t + run) == slots_.size();
				for (auto [node, n] : *placed)
					fits &= n <= longer[node];
				if (!fits) {
					k++;
					continue;
				}
			}
			start = slots_[k].t;
			end = start + run;
			where = std::move(*placed);
			return true;
		}
		return false;
	}

    private:
	// The first slot starting in [slots[k].t, until) (slot k always) where
	// the job's nodes have fewer than `g` free GPUs in all or a pool has
	// too little room; slots_.size() when none.
	size_t first_short(const PlanJob &pj, int g, size_t k, double until) const
	{
		for (size_t m = k; m < slots_.size() && (m == k || slots_[m].t < until); m++) {
			const Slot &s = slots_[m];
			int total = 0;
			if (pj.node_set < 0)
				total = s.total;
			else
				for (int n : in_.node_sets[pj.node_set])
					total += s.gpus[n];
			bool room = total >= g;
			for (const PoolUse &u : pj.pools)
				room &= u.fits(g, in_.pool_capacity[u.pool] - s.pools[u.pool],
					       in_.pool_capacity[u.pool]);
			if (!room)
				return m;
		}
		return slots_.size();
	}

	// The GPUs the job can take on each node in every slot of the window:
	// the nodes with room in its first slot, then only those (in a busy
	// cluster most nodes have none).
	std::vector<int> caps_over(const PlanJob &pj, size_t k, double until) const
	{
		auto fit = [&](const Slot &s, int n) {
			return std::max(0, s.cpus.empty() ? s.gpus[n]
							  : in_.fit_on(pj.need, n, s.gpus[n], s.cpus[n],
								       s.mem[n]));
		};
		std::vector<int> caps(in_.nodes, 0), open;
		for (int n = 0; n < in_.nodes; n++)
			if ((caps[n] = fit(slots_[k], n)) > 0)
				open.push_back(n);
		for (size_t m = k + 1; m < slots_.size() && slots_[m].t < until && !open.empty(); m++) {
			size_t kept = 0;
			for (int n : open)
				if ((caps[n] = std::min(caps[n], fit(slots_[m], n))) > 0)
					open[kept++] = n;
			open.resize(kept);
		}
		return caps;
	}

	// The slots from `from` to `to` (kInf: the last one included), split
	// there; the slot where something comes back is marked so.
	std::pair<size_t, size_t> span(double from, double to, int sign)
	{
		size_t a = split(from), b = to < kInf ? split(to) : slots_.size();
		if (sign > 0)
			slots_[a].release = true;
		else if (b < slots_.size())
			slots_[b].release = true;
		return { a, b };
	}

	// The index of the slot starting at t, made if none does.
	size_t split(double t)
	{
		auto it = std::lower_bound(slots_.begin(), slots_.end(), t,
					   [](const Slot &s, double v) { return s.t < v; });
		if (it != slots_.end() && it->t == t)
			return static_cast<size_t>(it - slots_.begin());
		size_t at = static_cast<size_t>(it - slots_.begin());
		Slot copy = slots_[at - 1]; // t > now: slot 0 starts at now
		copy.t = t;
		copy.release = false;
		slots_.insert(slots_.begin() + static_cast<long>(at), std::move(copy));
		return at;
	}

	const PlanInput &in_;
	std::vector<Slot> slots_;
};

// Running jobs end at their progress start plus the epochs left then, on
// their spread alone; one already overdue ends now.
double running_end(const PlanInput &in, const PlanJob &pj)
{
	return std::max(in.now_s, pj.progress_start_s + pj.epochs_at_progress_start * pj.epoch_s);
}

} // namespace

std::vector<int> priority_order(const PlanInput &in)
{
	std::vector<int> order;
	for (size_t j = 0; j < in.jobs.size(); j++)
		if (!in.jobs[j].running)
			order.push_back(static_cast<int>(j));
	std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
		const PlanJob &x = in.jobs[a], &y = in.jobs[b];
		if (x.priority != y.priority)
			return x.priority > y.priority;
		return x.submit_s < y.submit_s;
	});
	return order;
}

int asked_option(const PlanInput &in, int job)
{
	const PlanJob &pj = in.jobs[job];
	const SpeedCurve &cv = in.curves[pj.curve];
	const NodeNeed need = in.has_resources() ? pj.need : NodeNeed{};
	int best = -1;
	for (size_t i = 0; i < cv.gpus.size(); i++) {
		if (!fits_when_idle(in, cv, i, pj.node_set, need))
			continue;
		int d = std::abs(cv.gpus[i] - pj.asked_gpus);
		if (best < 0 || d < std::abs(cv.gpus[best] - pj.asked_gpus))
			best = static_cast<int>(i);
	}
	return best;
}

namespace {

// Whether a job carries a time limit (PlanJob::limit_s, limit_end_s).
bool has_limits(const PlanInput &in)
{
	for (const PlanJob &pj : in.jobs)
		if (pj.running ? pj.limit_end_s > 0 : pj.limit_s > 0)
			return true;
	return false;
}

// `in` as sched/backfill sees it: a running job ends when its limit ends,
// a pending one runs its whole limit at any count; a job without a limit
// keeps its prediction, and so does one past its limit (being killed: its
// GPUs are not free now, and its prediction, never before now, stands in).
PlanInput on_limits(const PlanInput &in)
{
	PlanInput est = in;
	for (PlanJob &pj : est.jobs) {
		if (pj.running && pj.limit_end_s > in.now_s) {
			pj.progress_start_s = pj.limit_end_s;
			pj.epochs_at_progress_start = 0;
		} else if (!pj.running && pj.limit_s > 0) {
			pj.start_overhead_s = pj.limit_s;
			pj.remaining_epochs = 0;
		}
	}
	return est;
}

// Conservative backfill over `in` (backfill_reference), on its predicted
// times.  `starting`: when given, Slurm's policy starts those of its jobs
// that start now, where it starts them, first; every other job starts
// after now (at the first time something comes back: the next event at
// which Slurm's scheduler decides again).
Reference walk(const PlanInput &in, const Reference *starting)
{
	const size_t n = in.jobs.size();
	Reference ref;
	ref.start_s.assign(n, kInf);
	ref.end_s.assign(n, kInf);
	ref.option.assign(n, -1);
	ref.where.assign(n, {});
	Timeline line(in);
	for (size_t j = 0; j < n; j++) {
		const PlanJob &pj = in.jobs[j];
		if (!pj.running)
			continue;
		ref.start_s[j] = pj.progress_start_s;
		ref.end_s[j] = running_end(in, pj);
		// Its GPUs are not in free_per_node: they come back at its end.
		line.nodes(pj, pj.where, pj.holding, ref.end_s[j], kInf, +1);
		// Pools count it in their capacity: it holds its part until then.
		line.pools(pj, pj.gpus, in.now_s, ref.end_s[j], -1);
	}
	ref.order = priority_order(in);
	auto hold = [&](int j, int o, NodeCounts where, double start, double end) {
		const PlanJob &pj = in.jobs[j];
		line.nodes(pj, where, {}, start, end, -1);
		line.pools(pj, in.curves[pj.curve].gpus[o], start, end, -1);
		ref.option[j] = o;
		ref.start_s[j] = start;
		ref.end_s[j] = end;
		ref.where[j] = std::move(where);
	};
	std::vector<char> placed(n, 0);
	if (starting)
		for (int j : ref.order)
			if (starts_now(in, *starting, j)) {
				const PlanJob &pj = in.jobs[j];
				const int o = starting->option[j];
				const NodeCounts &where = starting->where[j];
				const double e = in.curves[pj.curve].epoch_s[o][where.size()];
				hold(j, o, where, in.now_s, in.now_s + pj.run_s(e));
				placed[j] = 1;
			}
	const size_t first = starting ? 1 : 0;
	int walked = 0;
	auto place = [&](int j, int o) {
		// Beyond the first max_jobs (sched/backfill's bf_max_job_test)
		// a job gets no reservation: it starts only if it fits now.
		const size_t last = walked++ < in.bound.max_jobs ? std::numeric_limits<size_t>::max() : 0;
		double start = 0, end = 0;
		NodeCounts where;
		if (!placed[j] && line.earliest(j, o, start, end, where, first, last))
			hold(j, o, std::move(where), start, end);
	};
	// A job its pools have no room for now (its user's GPU limit used, a
	// license out) gets no reservation, as sched/backfill skips a job its
	// limits block (doc/slurm-facts.md, section 12): the jobs after it
	// that fit now go first, its user's included, and it is placed after
	// every job that could be.  Reserving its room by priority promised
	// a QOS-capped job an end neither scheduler gave it (limits bench,
	// 2026-11-28: 117 s early).
	std::vector<std::pair<int, int>> blocked; // job, option
	for (int j : ref.order) {
		int o = asked_option(in, j);
		if (o < 0)
			continue;
		if (!placed[j] &&
		    !line.pools_room_now(in.jobs[j], in.curves[in.jobs[j].curve].gpus[o]))
			blocked.emplace_back(j, o);
		else
			place(j, o);
	}
	for (auto [j, o] : blocked)
		place(j, o);
	return ref;
}

} // namespace

Reference backfill_reference(const PlanInput &in)
{
	if (!has_limits(in))
		return walk(in, nullptr);
	// What starts now is what sched/backfill starts on the limits; when
	// the others start and every end, the predictions say.
	const Reference now = walk(on_limits(in), nullptr);
	return walk(in, &now);
}

namespace {

// submit + (end - submit) x (1 + slack) + slack_s.
double stretched(const PlanInput &in, const PlanJob &pj, double end)
{
	const double from = std::min(pj.submit_s, in.now_s);
	return from + (end - from) * (1 + in.bound.slack) + in.bound.slack_s;
}

} // namespace

std::vector<double> reference_deadlines(const PlanInput &in, const std::vector<double> &end)
{
	std::vector<double> deadline(in.jobs.size(), kInf);
	int bound = 0;
	for (int j : priority_order(in)) {
		if (bound >= in.bound.max_jobs)
			break;
		const PlanJob &pj = in.jobs[j];
		if (pj.asked_gpus <= 0 || !std::isfinite(end[j]))
			continue;
		bound++;
		deadline[j] = stretched(in, pj, end[j]);
	}
	// Running jobs keep theirs (what a shrink must not break); they do not
	// count against max_jobs, which caps the pending jobs backfill walks.
	for (size_t j = 0; j < in.jobs.size(); j++) {
		const PlanJob &pj = in.jobs[j];
		if (pj.running && pj.asked_gpus > 0 && std::isfinite(end[j]))
			deadline[j] = stretched(in, pj, end[j]);
	}
	return deadline;
}

bool starts_now(const PlanInput &in, const Reference &ref, int j)
{
	return ref.option[j] >= 0 && std::isfinite(ref.end_s[j]) && ref.start_s[j] <= in.now_s;
}

Plan reference_plan(const PlanInput &in, const Reference &ref)
{
	Plan plan;
	plan.is_reference = true;
	plan.jobs.resize(in.jobs.size());
	plan.makespan_s = in.now_s;
	double sum_jct = 0;
	for (size_t j = 0; j < in.jobs.size(); j++) {
		const PlanJob &pj = in.jobs[j];
		if (!std::isfinite(ref.end_s[j])) {
			plan.unplaced++;
			continue;
		}
		PlannedSegment s;
		s.start_s = pj.running ? in.now_s : ref.start_s[j];
		s.end_s = ref.end_s[j];
		s.gpus = pj.running ? pj.gpus : in.curves[pj.curve].gpus[ref.option[j]];
		s.nodes = static_cast<int>(pj.running ? pj.where.size() : ref.where[j].size());
		plan.jobs[j].segments.push_back(s);
		plan.makespan_s = std::max(plan.makespan_s, s.end_s);
		sum_jct += s.end_s - pj.submit_s;
	}
	for (int j : ref.order)
		if (starts_now(in, ref, j))
			plan.now.push_back({ Action::Kind::Start, j,
					     in.curves[in.jobs[j].curve].gpus[ref.option[j]],
					     ref.where[j] });
	plan.mean_jct_s = in.jobs.empty() ? 0 : sum_jct / in.jobs.size();
	plan.ref_end_s = ref.end_s;
	return plan;
}

} // namespace planner
} // namespace omru
