// shrink_to_admit.cpp - see shrink_to_admit.hpp.
#include "planner/shrink_to_admit.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "planner/plan_simulation.hpp" // clearly_less

namespace omru {
namespace planner {
namespace {

struct Try {
	int job;
	size_t option; // into the job's curve
	NodeCounts keep;
};

bool waiting_job(const PlanInput &in, const Plan &base)
{
	std::vector<char> starts(in.jobs.size(), 0);
	for (const Action &a : base.now)
		starts[a.job] = 1;
	for (size_t j = 0; j < in.jobs.size(); j++)
		if (!in.jobs[j].running && !starts[j] && !base.jobs[j].segments.empty())
			return true;
	return false;
}

// Whether the bound may take back what a running job holds beyond what it
// asked: a job the plan started or grew wider than its user asked holds
// GPUs a job arriving since would have had under Slurm's own policy.
bool reclaimable(const PlanInput &in, const PlanJob &pj)
{
	return !in.deadline_s.empty() && pj.asked_gpus > 0 && pj.gpus > pj.asked_gpus;
}

// `late`: the plan without shrinks breaks a bound, so jobs holding more
// than they asked are donors too (down to what they asked).
std::vector<Try> tries(const PlanInput &in, bool late)
{
	std::vector<int> donors;
	for (size_t j = 0; j < in.jobs.size(); j++) {
		const PlanJob &pj = in.jobs[j];
		if (pj.running && pj.resizable && pj.progress_start_s <= in.now_s &&
		    ((in.shrink_to_admit && pj.may_shrink) || (late && reclaimable(in, pj))))
			donors.push_back(static_cast<int>(j));
	}
	std::stable_sort(donors.begin(), donors.end(), [&](int a, int b) {
		return in.jobs[a].gpus > in.jobs[b].gpus;
	});
	std::vector<Try> out;
	// Round robin over the donors, each at its next smaller count.
	std::vector<int> next(donors.size(), -1), floor(donors.size(), 0);
	for (size_t d = 0; d < donors.size(); d++) {
		const PlanJob &pj = in.jobs[donors[d]];
		const SpeedCurve &cv = in.curves[pj.curve];
		int i = static_cast<int>(cv.gpus.size()) - 1;
		while (i >= 0 && cv.gpus[i] >= pj.gpus)
			i--;
		next[d] = i;
		// Reclaimed only: never below what it asked.
		if (!(in.shrink_to_admit && pj.may_shrink))
			while (floor[d] < static_cast<int>(cv.gpus.size()) &&
			       cv.gpus[floor[d]] < pj.asked_gpus)
				floor[d]++;
	}
	for (bool any = true; any && static_cast<int>(out.size()) < kMaxShrinkTries;) {
		any = false;
		for (size_t d = 0; d < donors.size() &&
				   static_cast<int>(out.size()) < kMaxShrinkTries; d++) {
			const PlanJob &pj = in.jobs[donors[d]];
			const SpeedCurve &cv = in.curves[pj.curve];
			for (; next[d] >= floor[d]; next[d]--) {
				NodeCounts keep = kept_part(pj.where, cv.gpus[next[d]]);
				if (std::isnan(cv.epoch_s[next[d]][keep.size()]))
					continue; // no time for that spread
				out.push_back({ donors[d], static_cast<size_t>(next[d]), keep });
				next[d]--;
				any = true;
				break;
			}
		}
	}
	return out;
}

// The CPUs and memory a shrunk job frees: the part it keeps holds what its
// need takes there (never more than it held), the rest is free.  Before
// pj.where becomes `keep`.
void give_back_resources(PlanInput &v, PlanJob &pj, const NodeCounts &keep)
{
	std::vector<NodeUse> before = pj.holding, after;
	if (before.size() != pj.where.size()) {
		before.clear();
		for (auto [node, n] : pj.where)
			before.push_back(v.use_of(pj.need, node, n));
	}
	for (size_t i = 0; i < pj.where.size(); i++) {
		const int node = pj.where[i].first;
		NodeUse kept;
		for (auto [k, n] : keep)
			if (k == node) {
				kept = v.use_of(pj.need, node, n);
				kept.cpus = std::min(kept.cpus, before[i].cpus);
				kept.mem = std::min(kept.mem, before[i].mem);
				after.push_back(kept);
			}
		v.free_cpus[node] = std::min(v.node_cpus[node],
					     v.free_cpus[node] + before[i].cpus - kept.cpus);
		v.free_mem[node] = std::min(v.node_mem[node],
					    v.free_mem[node] + before[i].mem - kept.mem);
	}
	pj.holding = std::move(after);
}

PlanInput shrunk(const PlanInput &in, const Try &t)
{
	PlanInput v = in;
	v.shrink_to_admit = false;
	PlanJob &pj = v.jobs[t.job];
	const SpeedCurve &cv = in.curves[pj.curve];
	double done = in.now_s > pj.progress_start_s
			      ? (in.now_s - pj.progress_start_s) / pj.epoch_s
			      : 0;
	double left = std::max(0.0, pj.epochs_at_progress_start - done);
	std::map<int, int> freed;
	for (auto [node, n] : pj.where)
		freed[node] += n;
	for (auto [node, n] : t.keep)
		freed[node] -= n;
	for (auto [node, n] : freed)
		v.free_per_node[node] += n;
	if (in.has_resources())
		give_back_resources(v, pj, t.keep);
	double restart = pj.restart_s >= 0 ? pj.restart_s : in.restart_overhead_s;
	pj.gpus = cv.gpus[t.option];
	pj.where = t.keep;
	pj.epoch_s = cv.epoch_s[t.option][t.keep.size()];
	pj.progress_start_s = in.now_s + restart;
	pj.epochs_at_progress_start = left;
	pj.remaining_epochs = left;
	pj.may_shrink = false;
	return v;
}

// How far past its own bound the shrunk job ends in `p` (0: within it;
// its planned end, its neighbours' slowdown included: the safe side).
// Its promise counts as a pending job's does: a shrink that only moves
// lateness from the job that waits to the one that gives is no repair
// (philly-8h-3: a job shrunk to its ask to admit a late one ended 10% past
// its own bound).
double own_lateness(const PlanInput &in, int job, const Plan &p)
{
	if (in.deadline_s.empty() || !std::isfinite(in.deadline_s[job]) ||
	    p.jobs[job].segments.empty() ||
	    !clearly_less(in.deadline_s[job], p.jobs[job].end_s()))
		return 0;
	return p.jobs[job].end_s() - in.deadline_s[job];
}

// The plan's measure of what is left: makespan, or mean JCT.
double measure(const PlanInput &in, const Plan &p)
{
	return in.objective == Objective::MeanJct ? p.mean_jct_s
						  : p.makespan_s - in.now_s;
}

} // namespace

NodeCounts kept_part(const NodeCounts &where, int gpus)
{
	std::vector<std::pair<int, int>> by_size(where.begin(), where.end());
	std::stable_sort(by_size.begin(), by_size.end(),
			 [](auto a, auto b) { return a.second > b.second; });
	NodeCounts keep;
	for (auto [node, n] : by_size) {
		if (gpus <= 0)
			break;
		keep.emplace_back(node, std::min(n, gpus));
		gpus -= std::min(n, gpus);
	}
	std::sort(keep.begin(), keep.end());
	return keep;
}

Plan shrink_to_admit(const PlanInput &in, Plan base,
		     const std::function<Plan(const PlanInput &)> &plan)
{
	const bool late = base.late > 0 && in.reuse;
	if (!(in.shrink_to_admit || late) || !waiting_job(in, base))
		return base;
	std::vector<Try> all = tries(in, late);
	if (all.empty())
		return base;
	const double need = measure(in, base) * (1 - kShrinkGain);
	// Fewer jobs past their bound first (the shrunk one's own included),
	// then fewer seconds past it, whatever it costs; else the gain, with
	// no more lateness than before.
	struct Rank {
		int late;
		double late_s, measure;
	};
	auto worse = [](const Rank &a, const Rank &b) {
		if (a.late != b.late)
			return a.late > b.late;
		if (clearly_less(a.late_s, b.late_s) || clearly_less(b.late_s, a.late_s))
			return a.late_s > b.late_s;
		return a.measure > b.measure;
	};
	int best = -1;
	Rank best_rank{};
	Plan best_plan;
	for (size_t k = 0; k < all.size(); k++) {
		Plan p = plan(shrunk(in, all[k]));
		const double own = own_lateness(in, all[k].job, p);
		const Rank r{ p.late + (own > 0), p.late_s + own, measure(in, p) };
		const bool repairs = base.late > 0 &&
				     (r.late < base.late || (r.late == base.late &&
							     clearly_less(r.late_s, base.late_s)));
		const bool gains = r.late == base.late && !clearly_less(base.late_s, r.late_s) &&
				   r.measure < need;
		if (p.unplaced > base.unplaced || !(repairs || gains))
			continue;
		if (best < 0 || worse(best_rank, r)) {
			best = static_cast<int>(k);
			best_rank = r;
			best_plan = std::move(p);
		}
	}
	if (best < 0)
		return base;
	const Try &t = all[best];
	best_plan.now.insert(best_plan.now.begin(),
			     { Action::Kind::Resize, t.job,
			       in.curves[in.jobs[t.job].curve].gpus[t.option], t.keep });
	best_plan.candidates += base.candidates;
	return best_plan;
}

} // namespace planner
} // namespace omru
