// planner.cpp - see planner.hpp and doc/omru-planner.md.
//
// Dual-approximation search (Mounie, Rapine and Trystram's idea for moldable
// tasks): guess a budget D for the longest runtime any pending job may have;
// give every job its cheapest GPU count (least GPU-seconds) whose runtime
// fits in D; list-schedule the jobs in a queue order; reuse idle GPUs at the
// end.  A small D makes long jobs wide and the schedule short but costly in
// GPU-seconds; a large D makes every job cheap but leaves the longest job
// alone at the end.  Rather than bisecting on a bound that list scheduling
// with node packing does not respect, every budget of a geometric grid
// between the two extremes is simulated (plan_simulation.hpp) with each
// queue order, and the best plan is kept.
#include "planner/planner.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string>
#include <tuple>

#include "planner/plan_simulation.hpp"
#include "planner/reference.hpp"
#include "planner/shrink_to_admit.hpp"
#include "profile/colocation_table.hpp" // kMaxSlowdown

namespace omru {
namespace planner {
namespace {

struct PendingJob {
	int job;
	std::vector<double> runtime_s; // per option, packed
	std::vector<double> area;      // GPU-seconds per option
	// Per option: whether it ever fits the job's nodes (fits_when_idle);
	// empty when every option does.
	std::vector<char> fits;
	// Its place in Slurm's priority order (priority_order; 0 first):
	// between jobs a queue order cannot tell apart, Slurm's priority
	// decides, so fair share and QOS order them as under backfill.
	int rank = 0;
	bool usable(size_t option) const { return fits.empty() || fits[option]; }
};

// The cheapest usable option whose runtime fits in `budget`, else the
// fastest usable one (option 0 when none is: the job stays unplaced).
// Ties go to fewer GPUs.
int allot(const PendingJob &p, double budget)
{
	int best = -1, fastest = -1;
	for (size_t i = 0; i < p.runtime_s.size(); i++) {
		if (!p.usable(i))
			continue;
		if (fastest < 0 || p.runtime_s[i] < p.runtime_s[fastest])
			fastest = static_cast<int>(i);
		if (p.runtime_s[i] <= budget &&
		    (best < 0 || p.area[i] < p.area[best]))
			best = static_cast<int>(i);
	}
	return best >= 0 ? best : std::max(fastest, 0);
}

// Budgets from the widest sensible plan to the cheapest: the longest of
// the jobs' fastest runtimes up to the longest runtime at least GPU-seconds
// (usable options only).
std::vector<double> budgets(const std::vector<PendingJob> &pending, int steps)
{
	double lo = 0, hi = 0;
	for (const PendingJob &p : pending) {
		int fastest = -1, cheapest = -1;
		for (size_t i = 0; i < p.runtime_s.size(); i++) {
			if (!p.usable(i))
				continue;
			if (fastest < 0 || p.runtime_s[i] < p.runtime_s[fastest])
				fastest = static_cast<int>(i);
			if (cheapest < 0 || p.area[i] < p.area[cheapest])
				cheapest = static_cast<int>(i);
		}
		if (fastest < 0)
			continue; // never fits: unplaced whatever the budget
		lo = std::max(lo, p.runtime_s[fastest]);
		hi = std::max(hi, p.runtime_s[cheapest]);
	}
	std::vector<double> out{ lo };
	if (hi > lo)
		for (int k = 1; k < steps; k++)
			out.push_back(lo * std::pow(hi / lo, double(k) / (steps - 1)));
	return out;
}

// Enough budgets to find the good plans on small batches; long queues
// (GridSearch) simulate ~10 of their 12 whatever their length.
int budget_steps(size_t pending)
{
	return pending <= 64 ? 40 : pending <= 256 ? 24 : 12;
}

constexpr int kOrderKeys = 3;
// Mean JCT also tries the makespan orders: shortest-first alone starves long
// jobs, and the makespan cap below needs plans that do not.
int order_count(Objective obj)
{
	return obj == Objective::Makespan ? kOrderKeys : 2 * kOrderKeys;
}

// Under the mean-JCT objective a plan may be at most this much longer than
// the shortest plan found: shortest-first under heavy load otherwise defers
// the long jobs to an ever later tail.
constexpr double kJctMakespanSlack = 0.10;

// Queue order `which` by runtime, by GPU count or by GPU-seconds (which % 3):
// largest first for the makespan (LPT and its kin), smallest first for mean
// JCT (SPT and kin); which >= 3 is the other objective's direction.  Ties:
// Slurm's priority (PendingJob::rank), then lower job index.  Jobs whose option never fits their nodes are left out
// (unplaced).
std::vector<int> queue_order(const std::vector<PendingJob> &pending,
			     const std::vector<int> &option,
			     const PlanInput &in, Objective obj, int which)
{
	struct Key {
		double a, b;
		int rank, job;
	};
	std::vector<Key> keys;
	keys.reserve(pending.size());
	for (const PendingJob &p : pending) {
		int o = option[p.job];
		if (!p.usable(o))
			continue;
		double runtime = p.runtime_s[o];
		double gpus = in.curves[in.jobs[p.job].curve].gpus[o];
		const Key by_runtime{ runtime, 0, p.rank, p.job };
		const Key by_gpus{ gpus, runtime, p.rank, p.job };
		const Key by_area{ p.area[o], runtime, p.rank, p.job };
		int key = which % kOrderKeys;
		Key k = key == 0 ? by_runtime : key == 1 ? by_gpus : by_area;
		bool native = which < kOrderKeys;
		if ((obj == Objective::Makespan) == native) { // largest first
			k.a = -k.a;
			k.b = -k.b;
		}
		keys.push_back(k);
	}
	std::sort(keys.begin(), keys.end(), [](const Key &x, const Key &y) {
		if (x.a != y.a)
			return x.a < y.a;
		if (x.b != y.b)
			return x.b < y.b;
		if (x.rank != y.rank)
			return x.rank < y.rank;
		return x.job < y.job;
	});
	std::vector<int> order;
	order.reserve(keys.size());
	for (const Key &k : keys)
		order.push_back(k.job);
	return order;
}

// (late jobs, their seconds late in all): what a repair of the bound
// lowers, the count first.
bool less_late(const Outcome &a, const Outcome &b)
{
	if (a.late != b.late)
		return a.late < b.late;
	return clearly_less(a.late_s, b.late_s);
}

// Fewer unplaced jobs, then fewer jobs past their reference bound (and
// by less: less_late), then (mean JCT) a makespan within `cap`, then the
// objective, then the other one.
bool better(const Outcome &a, const Outcome &b, Objective obj, double cap)
{
	if (a.gave_up || b.gave_up)
		return !a.gave_up;
	if (a.unplaced != b.unplaced)
		return a.unplaced < b.unplaced;
	if (less_late(a, b) || less_late(b, a))
		return less_late(a, b);
	if (obj == Objective::MeanJct) {
		bool a_ok = a.makespan_s <= cap, b_ok = b.makespan_s <= cap;
		if (a_ok != b_ok)
			return a_ok;
	}
	double a1 = obj == Objective::Makespan ? a.makespan_s : a.sum_jct_s;
	double b1 = obj == Objective::Makespan ? b.makespan_s : b.sum_jct_s;
	if (clearly_less(a1, b1))
		return true;
	if (clearly_less(b1, a1))
		return false;
	double a2 = obj == Objective::Makespan ? a.sum_jct_s : a.makespan_s;
	double b2 = obj == Objective::Makespan ? b.sum_jct_s : b.makespan_s;
	return clearly_less(a2, b2);
}

// The fairness guard: pending jobs that the plan finishes later (from
// submission) than `factor` times their first-come-first-served completion
// move to the front of the queue, in submission order, until none does.
// Each round promotes at least one more job, and with every job promoted
// the order is first-come-first-served itself, which meets the guard for
// any factor >= 1, so the loop ends.
Candidate enforce_fairness(const PlanInput &in, Candidate c)
{
	Candidate fifo = c;
	std::stable_sort(fifo.order.begin(), fifo.order.end(), [&](int a, int b) {
		return in.jobs[a].submit_s < in.jobs[b].submit_s;
	});
	Outcome base = simulate_plan(in, fifo, true);
	std::vector<bool> promoted(in.jobs.size(), false);
	for (;;) {
		Outcome o = simulate_plan(in, c, true);
		bool violated = false;
		for (int job : c.order) {
			double jct = o.jobs[job].end_s() - in.jobs[job].submit_s;
			double fair = base.jobs[job].end_s() - in.jobs[job].submit_s;
			if (!promoted[job] &&
			    clearly_less(in.fairness_factor * fair, jct)) {
				promoted[job] = true;
				violated = true;
			}
		}
		if (!violated)
			return c;
		std::vector<int> order;
		for (int job : fifo.order)
			if (promoted[job])
				order.push_back(job);
		for (int job : c.order)
			if (!promoted[job])
				order.push_back(job);
		c.order = std::move(order);
	}
}

// Rounds of enforce_bound at most.
constexpr int kBoundRounds = 8;

// Late jobs best_late_option recounts in one round of enforce_bound at
// most (the first by Slurm's priority; later rounds take the next): a
// simulation per count of each, and a site with thousands of capped jobs
// late in a backlog must not pay thousands of simulations under
// slurmctld's lock.
constexpr size_t kRecountJobs = 8;

// A promoted job under a pool (a user's GPU limit, a license) still late
// at its asked count: the usable option of its curve that leaves the plan
// least late (less_late; the asked count on ties).  The reference
// promised its end from a state in which its user's other jobs held what
// they held under backfill; here they may hold another share of the limit
// (started in another order, or wider), and a count that fits the room
// the limit leaves now may end it sooner than the asked one, which waits
// for room (the limits bench, seed 1: a 1-4 GPU job of a user capped at 4
// GPUs waited 106 s for room for its asked 2 beside its user's 1-GPU job,
// while 1 GPU was free under the cap and on the nodes; it ended 1.63 x
// its backfill JCT).  Jobs outside pools keep the asked count: on the
// Philly windows, recounting them too to shave seconds off the plan's
// lateness made the realized worst job 1.49 x instead of 1.31 (omru-sim,
// fairness-bench): a count other than the reference's holds its GPUs for
// another run, which later arrivals pay for.  One simulation per option,
// once per job.
void best_late_option(const PlanInput &in, const PendingJob &p, Candidate &c,
		      Outcome &now)
{
	const int keep = c.option[p.job];
	int best = keep;
	for (size_t o = 0; o < p.runtime_s.size(); o++) {
		if (static_cast<int>(o) == keep || !p.usable(o))
			continue;
		c.option[p.job] = static_cast<int>(o);
		Outcome tried = simulate_plan(in, c, false);
		if (less_late(tried, now)) {
			best = static_cast<int>(o);
			now = std::move(tried);
		}
	}
	c.option[p.job] = best;
}

// The reference bound, repaired: pending jobs the plan ends after their
// deadline move to the front of the queue, in Slurm's priority order, at
// the count they asked (where it is usable), until none is late or
// kBoundRounds rounds promoted all they could.  A promoted job holds its
// earliest start while it waits (Candidate::reserve), as sched/backfill
// reserves for the jobs it tests: the jobs behind it start on its nodes
// only if they end by then.  Without the hold, list scheduling started
// whatever fit now, and a whole-node job promoted plan after plan waited
// behind smaller ones (fairness-bench's limits streams).  A promoted job
// still late a round later gets the count that makes the plan least late
// (best_late_option), once.  What is still late after that is make_plan's
// fallback to decide.
Candidate enforce_bound(const PlanInput &in, const std::vector<PendingJob> &pending,
			Candidate c)
{
	std::vector<int> pending_of(in.jobs.size(), -1);
	for (size_t k = 0; k < pending.size(); k++)
		pending_of[pending[k].job] = static_cast<int>(k);
	const std::vector<int> by_priority = priority_order(in);
	std::vector<bool> promoted(in.jobs.size(), false), queued(in.jobs.size(), false),
		recounted(in.jobs.size(), false);
	for (int job : c.order)
		queued[job] = true;
	c.reserve.assign(in.jobs.size(), 0);
	for (int round = 0; round < kBoundRounds; round++) {
		Outcome o = simulate_plan(in, c, true);
		if (o.late == 0)
			return c;
		bool more = false;
		std::vector<int> still_late;
		for (auto [job, by] : o.late_jobs) {
			if (promoted[job]) {
				if (!recounted[job] && queued[job] && !in.jobs[job].pools.empty())
					still_late.push_back(job);
				continue;
			}
			promoted[job] = more = true;
			c.reserve[job] = 1;
			int asked = asked_option(in, job);
			if (asked >= 0 && pending[pending_of[job]].usable(asked))
				c.option[job] = asked;
		}
		// Newly promoted jobs are tried at their asked count first (the
		// next round); those it did not repair try the others now.
		if (!more && !still_late.empty()) {
			std::sort(still_late.begin(), still_late.end(), [&](int a, int b) {
				return pending[pending_of[a]].rank < pending[pending_of[b]].rank;
			});
			if (still_late.size() > kRecountJobs)
				still_late.resize(kRecountJobs);
			for (int job : still_late) {
				recounted[job] = true;
				best_late_option(in, pending[pending_of[job]], c, o);
			}
			more = true;
		}
		if (!more)
			return c;
		std::vector<int> order;
		for (int job : by_priority)
			if (promoted[job] && queued[job])
				order.push_back(job);
		for (int job : c.order)
			if (!promoted[job])
				order.push_back(job);
		c.order = std::move(order);
	}
	return c;
}

// The candidate for a choice: the budget's allotment, the counts local
// search moved, the choice's queue order.
Candidate candidate(const PlanInput &in, const std::vector<PendingJob> &pending,
		    const PlanChoice &choice)
{
	std::vector<int> option(in.jobs.size(), -1);
	for (const PendingJob &p : pending) {
		option[p.job] = allot(p, choice.budget_s);
		auto it = std::lower_bound(choice.moved.begin(), choice.moved.end(),
					   std::make_pair(in.jobs[p.job].id, 0));
		if (it == choice.moved.end() || it->first != in.jobs[p.job].id)
			continue;
		const std::vector<int> &gpus = in.curves[in.jobs[p.job].curve].gpus;
		auto g = std::find(gpus.begin(), gpus.end(), it->second);
		if (g != gpus.end() && p.usable(g - gpus.begin()))
			option[p.job] = static_cast<int>(g - gpus.begin());
	}
	return Candidate{ option,
			  queue_order(pending, option, in, in.objective, choice.order),
			  nullptr, {} };
}

// The longest makespan a plan may have under the mean-JCT objective:
// kJctMakespanSlack above the shortest of the candidates simulated (with
// the fewest unplaced jobs); no limit under the makespan objective.
double jct_cap(const PlanInput &in, const std::vector<std::pair<size_t, Outcome>> &done)
{
	double cap = std::numeric_limits<double>::infinity();
	if (in.objective != Objective::MeanJct || done.empty())
		return cap;
	// The least (unplaced, late) first: a plan that breaks a job's bound
	// must not set the cap for those that keep every bound.
	std::pair<int, int> least{ std::numeric_limits<int>::max(), 0 };
	for (const auto &d : done) // none gave up: no limits for JCT
		least = std::min(least, std::make_pair(d.second.unplaced, d.second.late));
	for (const auto &d : done)
		if (std::make_pair(d.second.unplaced, d.second.late) == least)
			cap = std::min(cap, d.second.makespan_s);
	return in.now_s + (cap - in.now_s) * (1 + kJctMakespanSlack);
}

// When a candidate's simulation may stop: under the makespan objective,
// once it is later than the best plan so far, unless it leaves fewer jobs
// unplaced (which wins whatever the makespan).  Mean JCT compares whole
// sums and caps them by the least makespan of all candidates, so its
// simulations run to the end.
double give_up_after(const PlanInput &in, const std::vector<PendingJob> &pending,
		     const Candidate &c, const Outcome *best)
{
	const double never = std::numeric_limits<double>::infinity();
	// A best plan that breaks a bound may lose to a longer one that keeps it.
	if (!best || in.objective != Objective::Makespan || best->late > 0)
		return never;
	int left_out = static_cast<int>(pending.size() - c.order.size());
	return left_out >= best->unplaced ? best->makespan_s : never;
}

// Simulations local search may spend: plenty on batches, none on the long
// queues where slurmctld's planning time matters more than the last percent.
int local_search_budget(size_t pending)
{
	return pending <= 64 ? 400 : pending <= 256 ? 100 : 0;
}

// Local search from the best candidate: move one job's GPU count one step up
// or down (the queue order follows), keep the move when the plan gets
// better, until no move helps or the budget is spent.  RET simulations run.
int improve_locally(const PlanInput &in, const std::vector<PendingJob> &pending,
		    double cap, PlanChoice &choice, Candidate &best_c,
		    Outcome &best)
{
	int left = local_search_budget(pending.size());
	const int budget = left;
	for (bool moved = true; moved && left > 0;) {
		moved = false;
		for (const PendingJob &p : pending) {
			int size = static_cast<int>(p.runtime_s.size());
			for (int step : { 1, -1, 2, -2, 4, -4 }) {
				int o = best_c.option[p.job] + step;
				if (o < 0 || o >= size || left <= 0 || !p.usable(o))
					continue;
				Candidate c = best_c;
				c.option[p.job] = o;
				c.order = queue_order(pending, c.option, in,
						      in.objective, choice.order);
				Outcome out = simulate_plan(in, c, false,
							    give_up_after(in, pending, c, &best));
				left--;
				if (better(out, best, in.objective, cap)) {
					best = std::move(out);
					best_c = std::move(c);
					moved = true;
					break;
				}
			}
		}
	}
	choice.moved.clear();
	for (const PendingJob &p : pending)
		if (best_c.option[p.job] != allot(p, choice.budget_s))
			choice.moved.emplace_back(
				in.jobs[p.job].id,
				in.curves[in.jobs[p.job].curve].gpus[best_c.option[p.job]]);
	std::sort(choice.moved.begin(), choice.moved.end());
	return budget - left;
}

// The budget grid of a long queue (kLongQueue) searched without simulating
// all of it.  Plans change slowly with the budget (each step moves a few
// jobs' GPU counts), so the best budget is found like a minimum of a
// smooth function: four budgets spread over the grid, each with every
// queue order (which order wins varies from queue to queue, and at the
// ends of the grid most), then the neighbours of the best at half the
// spacing with its order, until the spacing is one step.  ~15 simulations
// for a grid of 12 budgets and 3 orders instead of 36.  Under mean JCT
// candidates are compared as the final pick compares them, within the
// makespan cap of those simulated so far.  tests/bench/plan-bench and
// doc/omru-planner.md measure what it gives up.
struct GridSearch {
	const PlanInput &in;
	const std::vector<PendingJob> &pending;
	const std::vector<double> &grid;
	// Simulates a round of candidates; RET their indices into done.
	std::function<std::vector<size_t>(std::vector<std::pair<PlanChoice, Candidate>>)> run;
	const std::vector<std::pair<size_t, Outcome>> &done;
	// (order, allotment) -> index into done: candidates already simulated
	std::map<std::pair<int, std::vector<int>>, size_t> seen;

	void remember(int order, std::vector<int> option, size_t at)
	{
		seen.emplace(std::make_pair(order, std::move(option)), at);
	}

	// Simulates grid budget i with queue order o for every (i, o) of a
	// round (each candidate once), all at once; RET the outcomes.
	std::vector<const Outcome *> round(const std::vector<std::pair<size_t, int>> &points)
	{
		std::vector<std::pair<PlanChoice, Candidate>> fresh;
		std::vector<std::pair<int, std::vector<int>>> keys; // per point
		std::vector<size_t> fresh_key;                      // into keys
		for (auto [i, o] : points) {
			PlanChoice ch{ grid[i], o, {}, true };
			Candidate c = candidate(in, pending, ch);
			keys.emplace_back(o, c.option);
			if (seen.count(keys.back()) ||
			    std::find(keys.begin(), keys.end() - 1, keys.back()) !=
				    keys.end() - 1)
				continue;
			fresh_key.push_back(keys.size() - 1);
			fresh.emplace_back(ch, std::move(c));
		}
		std::vector<size_t> at = run(std::move(fresh));
		for (size_t k = 0; k < fresh_key.size(); k++)
			seen.emplace(keys[fresh_key[k]], at[k]);
		std::vector<const Outcome *> out;
		for (const auto &key : keys)
			out.push_back(&done[seen.at(key)].second);
		return out;
	}

	// Compared as the final pick will compare them: under mean JCT,
	// within the makespan cap of the candidates simulated so far.
	bool wins(const Outcome &a, const Outcome &b) const
	{
		return better(a, b, in.objective, jct_cap(in, done));
	}

	// The best of a round's points (the earlier on ties) if it beats
	// `best_out`.
	void keep_best(const std::vector<std::pair<size_t, int>> &points,
		       size_t &best, int &best_order, const Outcome *&best_out)
	{
		std::vector<const Outcome *> out = round(points);
		for (size_t k = 0; k < points.size(); k++)
			if (!best_out || wins(*out[k], *best_out)) {
				best = points[k].first;
				best_order = points[k].second;
				best_out = out[k];
			}
	}

	void coarse_to_fine()
	{
		const size_t n = grid.size();
		const double spacing = (n - 1) / 3.0;
		size_t best = 0;
		int best_order = 0;
		const Outcome *best_out = nullptr;
		std::vector<std::pair<size_t, int>> points;
		for (int k = 0; k <= 3; k++)
			for (int o = 0; o < order_count(in.objective); o++)
				points.emplace_back(static_cast<size_t>(std::lround(k * spacing)), o);
		keep_best(points, best, best_order, best_out);
		for (size_t step = static_cast<size_t>(std::ceil(spacing / 2)); step >= 1;
		     step /= 2) {
			points.clear();
			if (best >= step)
				points.emplace_back(best - step, best_order);
			if (best + step < n)
				points.emplace_back(best + step, best_order);
			keep_best(points, best, best_order, best_out);
		}
	}

	// An incremental re-plan: the kept choice's order at the `count`
	// grid budgets nearest to its budget.
	void near(const PlanChoice &keep, int count)
	{
		std::vector<size_t> idx(grid.size());
		std::iota(idx.begin(), idx.end(), 0);
		auto dist = [&](size_t i) { return std::fabs(std::log(grid[i] / keep.budget_s)); };
		std::stable_sort(idx.begin(), idx.end(),
				 [&](size_t a, size_t b) { return dist(a) < dist(b); });
		std::vector<std::pair<size_t, int>> points;
		for (size_t k = 0; k < idx.size() && static_cast<int>(k) < count; k++)
			points.emplace_back(idx[k], keep.order);
		round(points);
	}
};
} // namespace

void check_plan_input(const PlanInput &in)
{
	auto bad = [](const std::string &why) {
		throw std::invalid_argument("plan input: " + why);
	};
	if (in.nodes < 1 || in.gpus_per_node < 1 ||
	    in.free_per_node.size() != static_cast<size_t>(in.nodes))
		bad("the cluster needs nodes >= 1, GPUs per node >= 1 and a free count per node");
	if (!in.node_gpus.empty() && in.node_gpus.size() != static_cast<size_t>(in.nodes))
		bad("node_gpus needs one entry per node (or none)");
	for (int n = 0; n < in.nodes; n++) {
		int cap = in.capacity(n);
		if (cap < 0 || cap > in.gpus_per_node)
			bad("node " + std::to_string(n) + " has " + std::to_string(cap) +
			    " GPUs (0.." + std::to_string(in.gpus_per_node) + " allowed)");
		int f = in.free_per_node[n];
		if (f < 0 || f > cap)
			bad("a node has " + std::to_string(f) + " free GPUs");
	}
	if (in.has_resources()) {
		const size_t n = static_cast<size_t>(in.nodes);
		if (in.node_cpus.size() != n || in.node_mem.size() != n ||
		    in.free_cpus.size() != n || in.free_mem.size() != n)
			bad("node resources need CPUs and memory, had and free, per node");
		for (size_t i = 0; i < n; i++)
			if (!(in.node_cpus[i] >= 0) || !(in.node_mem[i] >= 0) ||
			    !std::isfinite(in.node_cpus[i]) || !std::isfinite(in.node_mem[i]) ||
			    !(in.free_cpus[i] >= 0) || !(in.free_cpus[i] <= in.node_cpus[i]) ||
			    !(in.free_mem[i] >= 0) || !(in.free_mem[i] <= in.node_mem[i]))
				bad("node " + std::to_string(i) + ": CPUs and memory must be "
				    "finite, >= 0, and free no more than it has");
	}
	for (size_t s = 0; s < in.node_sets.size(); s++)
		for (size_t i = 0; i < in.node_sets[s].size(); i++) {
			int n = in.node_sets[s][i];
			if (n < 0 || n >= in.nodes || (i && n <= in.node_sets[s][i - 1]))
				bad("node set " + std::to_string(s) +
				    " must list distinct node indices in ascending order");
		}
	for (double cap : in.pool_capacity)
		if (!(cap >= 0) || !std::isfinite(cap))
			bad("a pool's capacity must be finite and >= 0");
	for (const std::vector<double> &row : in.slowdown) {
		if (row.size() != in.slowdown.size())
			bad("the slowdown matrix must be square");
		for (double f : row)
			if (!(f >= 1 && f <= kMaxSlowdown))
				bad("slowdowns must be within [1, " +
				    std::to_string(kMaxSlowdown) + "]");
	}
	if (!(in.restart_overhead_s >= 0) || !std::isfinite(in.restart_overhead_s))
		bad("the restart overhead must be a finite number >= 0");
	if (in.fairness_factor != 0 && !(in.fairness_factor >= 1))
		bad("the fairness factor must be 0 (off) or >= 1");
	if (!(in.bound.slack >= 0) || !std::isfinite(in.bound.slack) ||
	    !(in.bound.slack_s >= 0) || !std::isfinite(in.bound.slack_s) ||
	    in.bound.max_jobs < 0)
		bad("the reference bound's slacks must be finite and >= 0");
	if (!in.deadline_s.empty() && in.deadline_s.size() != in.jobs.size())
		bad("deadlines need one entry per job (or none)");
	for (size_t c = 0; c < in.curves.size(); c++) {
		const SpeedCurve &cv = in.curves[c];
		if (cv.gpus.size() != cv.epoch_s.size())
			bad("curve " + std::to_string(c) + " has " +
			    std::to_string(cv.gpus.size()) + " counts but " +
			    std::to_string(cv.epoch_s.size()) + " time lists");
		for (size_t i = 0; i < cv.gpus.size(); i++) {
			int g = cv.gpus[i];
			int k = (g + in.gpus_per_node - 1) / in.gpus_per_node;
			if (g < 1 || (i && g <= cv.gpus[i - 1]) ||
			    k > in.nodes ||
			    cv.epoch_s[i].size() <= static_cast<size_t>(std::min(g, in.nodes)) ||
			    !(cv.packed(i, in.gpus_per_node) > 0))
				bad("curve " + std::to_string(c) + ", " +
				    std::to_string(g) + " GPUs: counts must ascend, fit the "
				    "cluster and have a packed time > 0 and a time (or none) "
				    "for every spread up to min(GPUs, nodes)");
			for (double e : cv.epoch_s[i])
				if (!std::isnan(e) && !(e > 0 && std::isfinite(e)))
					bad("curve " + std::to_string(c) + ": epoch times must be > 0");
		}
	}
	std::vector<int> used(in.nodes, 0);
	for (size_t j = 0; j < in.jobs.size(); j++) {
		const PlanJob &pj = in.jobs[j];
		std::string name = "job " + std::to_string(j);
		if (pj.curve < 0 || static_cast<size_t>(pj.curve) >= in.curves.size() ||
		    in.curves[pj.curve].gpus.empty())
			bad(name + " has no usable speed curve");
		if (pj.node_set < -1 || pj.node_set >= static_cast<int>(in.node_sets.size()))
			bad(name + " names a node set that does not exist");
		if (pj.kind < -1 || pj.kind >= static_cast<int>(in.slowdown.size()))
			bad(name + " names an interference kind that does not exist");
		if (!(pj.remaining_epochs >= 0) || !std::isfinite(pj.remaining_epochs) ||
		    !std::isfinite(pj.submit_s))
			bad(name + ": remaining epochs and submit time must be finite, work >= 0");
		if (!(pj.start_overhead_s >= 0) || !std::isfinite(pj.start_overhead_s))
			bad(name + ": start overhead must be finite and >= 0");
		const NodeNeed &nd = pj.need;
		for (double v : { nd.cpus_min, nd.cpus_per_gpu, nd.mem_min, nd.mem_per_gpu,
				  nd.mem_per_cpu })
			if (!(v >= 0) || !std::isfinite(v))
				bad(name + ": CPUs and memory it needs must be finite and >= 0");
		for (const NodeUse &u : pj.holding)
			if (!(u.cpus >= 0) || !(u.mem >= 0) || !std::isfinite(u.cpus) ||
			    !std::isfinite(u.mem))
				bad(name + ": CPUs and memory it holds must be finite and >= 0");
		if (!pj.holding.empty() && pj.holding.size() != pj.where.size())
			bad(name + ": what it holds needs one entry per node it runs on");
		for (size_t u = 0; u < pj.pools.size(); u++) {
			const PoolUse &pu = pj.pools[u];
			if (pu.pool < 0 || static_cast<size_t>(pu.pool) >= in.pool_capacity.size() ||
			    !(pu.per_gpu >= 0) || !(pu.per_job >= 0) ||
			    !std::isfinite(pu.per_gpu) || !std::isfinite(pu.per_job))
				bad(name + ": a pool it counts against must exist and its "
				    "amounts be finite and >= 0");
			for (size_t v = 0; v < u; v++)
				if (pj.pools[v].pool == pu.pool)
					bad(name + " names a pool twice");
		}
		if (!pj.running)
			continue;
		int gpus = 0;
		for (auto [node, n] : pj.where) {
			if (node < 0 || node >= in.nodes || n < 1)
				bad(name + " runs on a node that does not exist");
			used[node] += n;
			gpus += n;
		}
		if (gpus != pj.gpus || !(pj.epoch_s > 0) ||
		    !(pj.epochs_at_progress_start >= 0) ||
		    !std::isfinite(pj.progress_start_s))
			bad(name + ": a running job needs its GPUs, epoch time and progress");
	}
	for (int n = 0; n < in.nodes; n++)
		if (used[n] + in.free_per_node[n] > in.capacity(n))
			bad("node " + std::to_string(n) + " has more GPUs held and free than it has");
}

namespace {

Plan plan_once(const PlanInput &in, const PlanChoice &keep,
	       const PlanSearch &search)
{
	// On identical nodes without node sets every option fits; otherwise
	// which do, once per curve and node set.
	// With node resources, also once per need.
	const bool uneven = !in.node_gpus.empty() || !in.node_sets.empty() ||
			    in.has_resources();
	std::map<std::tuple<int, int, decltype(NodeNeed{}.key())>, std::vector<char>> fits;
	std::vector<PendingJob> pending;
	for (size_t j = 0; j < in.jobs.size(); j++) {
		const PlanJob &pj = in.jobs[j];
		if (pj.running)
			continue;
		const SpeedCurve &cv = in.curves[pj.curve];
		PendingJob p{ static_cast<int>(j), {}, {}, {} };
		for (size_t i = 0; i < cv.gpus.size(); i++) {
			double r = pj.run_s(cv.packed(i, in.gpus_per_node));
			p.runtime_s.push_back(r);
			p.area.push_back(r * cv.gpus[i]);
		}
		if (uneven) {
			auto key = std::make_tuple(pj.curve, pj.node_set,
						   in.has_resources() ? pj.need.key()
								      : NodeNeed{}.key());
			auto it = fits.find(key);
			if (it == fits.end()) {
				std::vector<char> f(cv.gpus.size());
				bool all = true;
				for (size_t i = 0; i < cv.gpus.size(); i++)
					all &= (f[i] = fits_when_idle(in, cv, i, pj.node_set,
								      in.has_resources() ? pj.need
											 : NodeNeed{})) != 0;
				if (all)
					f.clear();
				it = fits.emplace(key, std::move(f)).first;
			}
			p.fits = it->second;
		}
		if (!pj.pools.empty()) {
			// A count more than a pool allows at all never starts.
			std::vector<char> f = p.fits;
			if (f.empty())
				f.assign(cv.gpus.size(), 1);
			for (size_t i = 0; i < cv.gpus.size(); i++)
				for (const PoolUse &u : pj.pools)
					if (!u.fits(cv.gpus[i], 0, in.pool_capacity[u.pool]))
						f[i] = 0;
			if (std::find(f.begin(), f.end(), 0) == f.end())
				f.clear();
			p.fits = std::move(f);
		}
		pending.push_back(std::move(p));
	}
	{
		std::vector<int> rank(in.jobs.size(), 0);
		const std::vector<int> by_priority = priority_order(in);
		for (size_t r = 0; r < by_priority.size(); r++)
			rank[by_priority[r]] = static_cast<int>(r);
		for (PendingJob &p : pending)
			p.rank = rank[p.job];
	}

	// Every candidate is given up once it cannot beat the best so far
	// (give_up_after).
	const double inf = std::numeric_limits<double>::infinity();
	std::vector<PlanChoice> tries;
	std::vector<std::pair<size_t, Outcome>> done; // index into tries
	size_t lead = 0; // into done: the best so far without a JCT cap
	// The jobs' pools, interned once for every candidate of this input.
	auto sig = std::make_shared<const std::vector<int>>(pool_signatures(in));
	auto run = [&](std::vector<std::pair<PlanChoice, Candidate>> batch) {
		std::vector<size_t> at;
		for (auto &[choice, c] : batch) {
			c.pool_sig = sig;
			const Outcome *best = done.empty() ? nullptr : &done[lead].second;
			tries.push_back(choice);
			done.emplace_back(tries.size() - 1,
					  simulate_plan(in, c, false,
							give_up_after(in, pending, c, best)));
			at.push_back(done.size() - 1);
			if (better(done.back().second, done[lead].second, in.objective, inf))
				lead = done.size() - 1;
		}
		return at;
	};
	// The kept choice is simulated first and recorded: it is the likely
	// winner of a re-plan, and then needs no simulation of its own below.
	Candidate keep_c;
	if (keep.valid) {
		keep_c = candidate(in, pending, keep);
		keep_c.pool_sig = sig;
		tries.push_back(keep);
		done.emplace_back(0, simulate_plan(in, keep_c, true));
	}
	const std::vector<double> grid = budgets(pending, budget_steps(pending.size()));
	const bool incremental = keep.valid && search.max_simulations > 0;
	if (!incremental && (search.exhaustive || pending.size() <= kLongQueue)) {
		// Every budget with every order; neighbouring budgets often
		// give the same allotment, simulated once.
		std::vector<std::vector<int>> last_option(order_count(in.objective),
							  std::vector<int>{ -2 });
		std::vector<std::pair<PlanChoice, Candidate>> all;
		for (double b : grid)
			for (int o = 0; o < order_count(in.objective); o++) {
				PlanChoice ch{ b, o, {}, true };
				Candidate c = candidate(in, pending, ch);
				if (c.option == last_option[o])
					continue;
				last_option[o] = c.option;
				all.emplace_back(ch, std::move(c));
			}
		run(std::move(all));
	} else {
		GridSearch g{ in, pending, grid, run, done, {} };
		if (keep.valid)
			g.remember(keep.order, keep_c.option, 0);
		if (incremental)
			g.near(keep, search.max_simulations);
		else
			g.coarse_to_fine();
	}
	int simulated = static_cast<int>(done.size());
	const double cap = jct_cap(in, done);
	size_t pick = 0; // the first wins ties: the kept choice comes first
	for (size_t k = 1; k < done.size(); k++)
		if (better(done[k].second, done[pick].second, in.objective, cap))
			pick = k;
	PlanChoice best_choice = tries[done[pick].first];
	Candidate best_c = keep.valid && pick == 0 ? keep_c
						  : candidate(in, pending, best_choice);
	best_c.pool_sig = sig;
	Outcome best = std::move(done[pick].second);
	if (!incremental)
		simulated += improve_locally(in, pending, cap, best_choice, best_c,
					     best);
	if (in.fairness_factor > 0 && !pending.empty())
		best_c = enforce_fairness(in, std::move(best_c));
	if (!in.deadline_s.empty() && best.late > 0)
		best_c = enforce_bound(in, pending, std::move(best_c));

	// The kept choice's recorded outcome stands for it only if it is
	// the one in hand (local search may wander back to the kept choice
	// with an outcome it did not record).
	const bool kept = keep.valid && pick == 0 && best_c.option == keep_c.option &&
			  best_c.order == keep_c.order && best_c.reserve == keep_c.reserve &&
			  best.jobs.size() == in.jobs.size();
	Outcome rec = kept ? std::move(best) : simulate_plan(in, best_c, true);
	Plan plan;
	plan.now = std::move(rec.now);
	plan.jobs = std::move(rec.jobs);
	plan.makespan_s = rec.makespan_s;
	plan.mean_jct_s = in.jobs.empty() ? 0 : rec.sum_jct_s / in.jobs.size();
	plan.unplaced = rec.unplaced;
	plan.late = rec.late;
	plan.late_s = rec.late_s;
	plan.late_jobs = std::move(rec.late_jobs);
	plan.choice = best_choice;
	plan.candidates = simulated;
	plan.incremental = incremental;
	return plan;
}

} // namespace

namespace {

Plan plan_and_shrink(const PlanInput &in, const PlanChoice &keep,
		     const PlanSearch &search)
{
	Plan base = plan_once(in, keep, search);
	// A shrunk job's plan is searched afresh: the kept choice was for
	// the input without the shrink.
	PlanSearch fresh = search;
	fresh.max_simulations = 0;
	return shrink_to_admit(in, std::move(base), [&](const PlanInput &v) {
		return plan_once(v, PlanChoice{}, fresh);
	});
}

// Fewer unplaced jobs, then fewer late ones, then clearly less of the
// objective.
bool clearly_better(const Plan &a, const Plan &b, Objective obj)
{
	if (a.unplaced != b.unplaced)
		return a.unplaced < b.unplaced;
	if (a.late != b.late)
		return a.late < b.late;
	return obj == Objective::Makespan ? clearly_less(a.makespan_s, b.makespan_s)
					  : clearly_less(a.mean_jct_s, b.mean_jct_s);
}

// The search: the plan placed apart from interference, or the one placed
// as pack_gpus places it where that is clearly better.
Plan search_plan(const PlanInput &in, const PlanChoice &keep,
		 const PlanSearch &search)
{
	Plan apart = plan_and_shrink(in, keep, search);
	if (in.slowdown.empty() || !in.place_apart)
		return apart;
	// Keeping interfering jobs apart can split nodes a later large job
	// needed whole, and pricing interference reshapes the search: the
	// plan the planner makes blind to interference (its choice of counts
	// and order, then searched from with interference priced and placed
	// as pack_gpus places) wins where it is clearly better.
	PlanInput blind = in;
	blind.slowdown.clear();
	for (PlanJob &pj : blind.jobs)
		pj.kind = -1;
	const PlanChoice blind_choice = plan_and_shrink(blind, keep, search).choice;
	PlanInput packed_in = in;
	packed_in.place_apart = false;
	Plan packed = plan_and_shrink(packed_in, blind_choice, search);
	return clearly_better(packed, apart, in.objective) ? packed : apart;
}

// Pending jobs the bound covers (a finite deadline) that `plan` never
// places, plus its late ones (Plan::late, counted without interference).
int broken_bounds(const PlanInput &in, const Plan &plan)
{
	int broken = plan.late;
	for (size_t j = 0; j < in.jobs.size(); j++)
		broken += !in.jobs[j].running && std::isfinite(in.deadline_s[j]) &&
			  plan.jobs[j].segments.empty();
	return broken;
}

// The reference plan's late jobs (Plan::late, late_s, late_jobs): it
// prices no interference, so its ends are the solo ends the bound compares.
void note_late_in_reference(const PlanInput &in, Plan &plan)
{
	for (size_t j = 0; j < in.jobs.size(); j++) {
		if (in.jobs[j].running || !std::isfinite(in.deadline_s[j]) ||
		    plan.jobs[j].segments.empty() ||
		    !clearly_less(in.deadline_s[j], plan.jobs[j].end_s()))
			continue;
		const double by = plan.jobs[j].end_s() - in.deadline_s[j];
		plan.late++;
		plan.late_s += by;
		plan.late_jobs.emplace_back(static_cast<int>(j), by);
	}
}

} // namespace

Plan make_plan(const PlanInput &in, const PlanChoice &keep,
	       const PlanSearch &search, const std::vector<double> *ref_end)
{
	check_plan_input(in);
	if (!in.bound.on)
		return search_plan(in, keep, search);
	// The reference bound as one layer around the search: each pending
	// job's deadline from its reference end (the caller's shadow, else the
	// reference from this state), the search within them, and the
	// reference from this state where the search broke a bound (made only
	// then when a shadow gave the ends).
	const bool given = ref_end && ref_end->size() == in.jobs.size();
	Reference ref;
	if (!given)
		ref = backfill_reference(in);
	const std::vector<double> &end = given ? *ref_end : ref.end_s;
	PlanInput bounded = in;
	bounded.deadline_s = reference_deadlines(in, end);
	Plan plan = search_plan(bounded, keep, search);
	if (int broken = broken_bounds(bounded, plan); broken > 0) {
		if (given)
			ref = backfill_reference(in);
		// The reference from this state keeps its own bounds.  Against
		// a shadow's it may not (a job not elastic that the plan widened
		// holds GPUs the shadow gave others): then it is run only where
		// it keeps them all, else the search's plan, which breaks the
		// fewest it could, stands.
		Plan reference = reference_plan(in, ref);
		note_late_in_reference(bounded, reference);
		if (!given || broken_bounds(bounded, reference) == 0) {
			reference.choice = plan.choice;
			reference.candidates = plan.candidates;
			plan = std::move(reference);
		}
	}
	plan.ref_end_s = end;
	return plan;
}

} // namespace planner
} // namespace omru
