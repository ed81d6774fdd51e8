// plan_input.cpp - see plan_input.hpp.
#include "controller/plan_input.hpp"

#include "controller/pair_prices.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <set>

namespace omru {
namespace controller {
namespace {

// A running job past its prediction (or within kOverdueMinS of it) is
// assumed to need this much more of what it has run (at least
// kOverdueMinS): it is late, so the plan must not hand its GPUs out now,
// and the periodic re-plan moves the guess on.  The floor is a second, not
// more: a job still on time keeps its own end.  With 10 s every job ending
// in the next 10 s looked busy 10 s on, so the plan started a job narrow
// now rather than at its asked count when those GPUs freed 2 s later, past
// its reference bound (demo.sh, jobs of 7-25 s, 2026-11-28).
constexpr double kOverdueFraction = 0.1;
constexpr double kOverdueMinS = 1;

// Whether the planner can price an epoch time: a user's rows that the
// speed model turns into 0, inf or NaN must not reach check_plan_input,
// which would fail the plan for every job (doc/report-bounds.md).
bool priced(double epoch_s) { return epoch_s > 0 && std::isfinite(epoch_s); }

double runtime_of(const JobSnap &j)
{
	return j.time_limit_s > 0 ? j.time_limit_s : kDefaultRuntimeS;
}

constexpr double kInf = std::numeric_limits<double>::infinity();

// What pricing curves may cost one plan: a curve has a time per count and
// spread (a "cell", one spread() call and one double), so one
// `--omru-gpus=1-1024` job on 500 nodes of 8 GPUs is ~390,000 cells (3 MB).
// A user's curves past kMaxUserCells, or anyone's past kMaxPlanCells,
// are not priced: those jobs go to cons_tres alone (BuiltInput::
// over_budget), so no user can make slurmctld spend GBs and minutes under
// its job lock (doc/report-bounds.md).
constexpr size_t kMaxPlanCells = 2000000;
constexpr size_t kMaxUserCells = 500000;

// Time limits allow for the prediction being off by the correction margin,
// but at most by this much: a larger CorrectionMargin turns corrections off
// (the test clusters set 10, their CPU runs being faster than the profiles)
// rather than saying that jobs run more than twice their prediction, and
// read as such it would keep most jobs from starting.
constexpr double kLimitMarginMax = 1.0;

// What a job's time limit leaves of its curve (plan_input.hpp): spreads
// slower per epoch than max_epoch_s are dropped, except on count `keep` (a
// running job's own, 0: none); when no count is left, the curve is count
// `fallback` alone, unfiltered (0: the job is not modelled).
struct Limit {
	double max_epoch_s = kInf;
	int keep = 0;
	int fallback = 0;
};

// Identifies a job's curve before its Limit: model (-1: default), count
// range, node cap, and for default curves the runtime they stand for.
using CurveKey = std::tuple<const SpeedBook *, int, int, int, int, double>;
// A curve of the input: its unlimited curve, the slowest epoch time the
// Limit keeps (infinity: all), Limit::keep and Limit::fallback.  Jobs
// whose limits keep the same spreads share one curve.
using LimitedKey = std::tuple<int, double, int, int>;

class Builder {
    public:
	Builder(const Snapshot &s, const BookFor &book_for, const PlanSettings &st,
		const ResizeBook *resizes, const StartOverheadBook *starts = nullptr)
		: snap_(s), book_for_(book_for), settings_(st),
		  resizes_(st.elastic ? resizes : nullptr), starts_(starts)
	{
	}
	BuiltInput build();

    private:
	int min_nodes(int g) const { return (g + gpn_ - 1) / gpn_; }
	int max_span(int g, int max_nodes) const
	{
		int k = std::min(g, nodes_);
		return max_nodes > 0 ? std::min(k, max_nodes) : k;
	}
	// The job's book (its user's) and its speed model for this cluster.
	SpeedBook &book_of(const JobSnap &j) const { return book_for_(j.uid); }
	const SpeedModel *speed_of(SpeedBook &b) { return b.model_for(nodes_, gpn_); }
	int model_of(const JobSnap &j) const;
	// The job's model gave a time the plan cannot price: its jobs are
	// planned as unprofiled from now on in this input (model_of -1).
	void unpriceable(const JobSnap &j, int m);
	// What a pipeline-hybrid split makes of the job's epoch time at g
	// GPUs over k nodes (1: data parallelism).
	double split_factor(const JobSnap &j, int g, int k) const
	{
		return settings_.pipeline ? settings_.pipeline->gain(j.model, g, k, gpn_).factor
					  : 1.0;
	}
	// The job's curve in the input, `limit` applied; -1: none.
	int curve(const JobSnap &j, const Limit &limit);
	// Its curve without a limit (an index into unlimited_); -1: none.
	int unlimited(const JobSnap &j);
	// `cv` without the spreads slower than cap_s, but on count `keep`.
	planner::SpeedCurve limited(const planner::SpeedCurve &cv, double cap_s,
				    int keep) const;
	double limit_margin() const
	{
		return std::min(settings_.correction_margin, kLimitMarginMax);
	}
	Limit pending_limit(const JobSnap &j, int m) const;
	Limit resize_limit(const JobSnap &j, int m, const planner::PlanJob &pj,
			   double left_now) const;
	int node_set(const std::vector<int> &eligible);
	// The nodes' CPUs and memory, when the snapshot knows every node's.
	void add_node_resources();
	// Jobs with a resize under way go to add_held (build() routes them).
	void add_running(const JobSnap &j);
	void add_pending(const JobSnap &j);
	// Appends a job of the input with its id, model and book.
	void push(planner::PlanJob pj, const JobSnap &j, int model);
	// A resize under way: the job holds (or is about to hold) its new GPUs.
	const Resize *held(const JobSnap &j) const;
	// Only where settings_.interference is set.
	PairPrices prices() const
	{
		return PairPrices(*settings_.interference, settings_.measured_pairs.get());
	}
	NodeCounts held_where(const JobSnap &j, const Resize &r) const;
	void add_held(const JobSnap &j, const Resize &r);
	// Epochs left after `done_now` more of this run.
	double epochs_left(const JobSnap &j, double done_now = 0) const;
	// Seconds from the job's start to its first progress: StartOverhead=,
	// or its user's learned one (start_overhead.hpp); 0 for jobs that are
	// not OMRU jobs (their time limit is their whole run).
	double start_overhead(const JobSnap &j) const
	{
		return j.omru ? controller::start_overhead(settings_.start_overhead_s, starts_, j.uid)
			      : 0;
	}

	const Snapshot &snap_;
	const BookFor &book_for_;
	const PlanSettings &settings_;
	const ResizeBook *resizes_;
	const StartOverheadBook *starts_;
	int nodes_ = 0, gpn_ = 1, total_ = 0;
	// Pricing every spread of every count costs the most: done once per
	// CurveKey, then limited per job (cheap).
	std::vector<planner::SpeedCurve> unlimited_;
	std::map<CurveKey, int> unlimited_of_;
	std::map<std::string, int> pool_index_; // pool key -> PlanInput pool
	// Interference kinds (PlanJob::kind) by (owner, model): the owner is
	// the job's user where it measured the model beside others, else
	// kSiteUid (the table's price, shared by every user).
	std::map<std::pair<uint32_t, std::string>, int> kinds_;
	std::map<LimitedKey, int> curves_;
	std::map<std::vector<int>, int> sets_;
	std::set<std::pair<const SpeedBook *, int>> unpriceable_;
	size_t cells_ = 0;                           // priced this plan
	std::map<uint32_t, size_t> user_cells_;      // the same per uid
	BuiltInput out_;
};

int Builder::model_of(const JobSnap &j) const
{
	SpeedBook &b = book_of(j);
	if (!j.omru || !(j.epochs > 0) || !b.profiles() ||
	    !b.model_for(nodes_, gpn_))
		return -1;
	int m = b.profiles()->model_id(j.model);
	return m >= 0 && unpriceable_.count({ &b, m }) ? -1 : m;
}

void Builder::unpriceable(const JobSnap &j, int m)
{
	SpeedBook &b = book_of(j);
	if (unpriceable_.insert({ &b, m }).second)
		out_.unpriced.push_back({ j.uid, j.model });
}

int Builder::unlimited(const JobSnap &j)
{
	int m = model_of(j);
	int lo, hi;
	double runtime = 0;
	if (m >= 0) {
		lo = j.gpus_min;
		hi = j.gpus_max;
	} else {
		lo = hi = j.omru ? j.gpus_min : j.gpus;
		runtime = runtime_of(j);
	}
	if (j.running)
		lo = std::min(lo, j.gpus), hi = std::max(hi, j.gpus);
	hi = std::min(hi, total_);
	if (j.max_nodes > 0)
		hi = std::min(hi, j.max_nodes * gpn_);
	if (lo < 1 || lo > hi || min_nodes(lo) > nodes_)
		return -1;
	SpeedBook &book = book_of(j);
	const SpeedModel *model = speed_of(book);
	CurveKey key{ m >= 0 ? &book : nullptr, m, lo, hi, j.max_nodes, runtime };
	auto it = unlimited_of_.find(key);
	if (it != unlimited_of_.end())
		return it->second;
	size_t cells = 0;
	for (int g = lo; g <= hi; g++)
		if (m >= 0 || g == lo || (j.running && g == j.gpus))
			cells += static_cast<size_t>(std::min(g, nodes_)) + 1;
	size_t &mine = user_cells_[j.uid];
	if (cells_ + cells > kMaxPlanCells || mine + cells > kMaxUserCells) {
		if (out_.over_budget.empty() || out_.over_budget.back() != j.job_id)
			out_.over_budget.push_back(j.job_id);
		return -1;
	}
	cells_ += cells;
	mine += cells;
	planner::SpeedCurve cv;
	for (int g = lo; g <= hi; g++) {
		if (m < 0 && g != lo && !(j.running && g == j.gpus))
			continue;
		int kmin = min_nodes(g), kmax = max_span(g, j.max_nodes);
		if (kmin > kmax)
			continue;
		std::vector<double> by_nodes(std::min(g, nodes_) + 1, planner::kNoRow);
		// Without a profile, spreading is not free either.
		for (int k = kmin; k <= kmax; k++) {
			by_nodes[k] = m >= 0 ? model->spread(m, g, k).epoch_s * split_factor(j, g, k)
					     : runtime * std::pow(settings_.spread_cost, k - kmin);
			if (m >= 0 && !priced(by_nodes[k])) {
				unpriceable(j, m);
				cells_ -= cells; // not priced after all
				mine -= cells;
				return unlimited(j); // now as an unprofiled job
			}
		}
		cv.gpus.push_back(g);
		cv.epoch_s.push_back(std::move(by_nodes));
	}
	if (cv.gpus.empty())
		return -1;
	unlimited_.push_back(std::move(cv));
	int index = static_cast<int>(unlimited_.size()) - 1;
	unlimited_of_.emplace(key, index);
	return index;
}

planner::SpeedCurve Builder::limited(const planner::SpeedCurve &cv, double cap_s,
				     int keep) const
{
	planner::SpeedCurve out;
	for (size_t i = 0; i < cv.gpus.size(); i++) {
		int g = cv.gpus[i];
		std::vector<double> by_nodes = cv.epoch_s[i];
		if (g != keep)
			for (double &e : by_nodes)
				if (!(e <= cap_s))
					e = planner::kNoRow;
		// A count is chosen on its packed time: without it, it is out.
		if (std::isnan(by_nodes[min_nodes(g)]))
			continue;
		out.gpus.push_back(g);
		out.epoch_s.push_back(std::move(by_nodes));
	}
	return out;
}

int Builder::curve(const JobSnap &j, const Limit &limit)
{
	int u = unlimited(j);
	if (u < 0)
		return -1;
	const planner::SpeedCurve &cv = unlimited_[u];
	// The limit as the slowest time it keeps; one that keeps everything
	// is no limit.
	double cap_s = -kInf, slowest = 0;
	for (const std::vector<double> &by_nodes : cv.epoch_s)
		for (double e : by_nodes) {
			if (e <= limit.max_epoch_s)
				cap_s = std::max(cap_s, e);
			if (!std::isnan(e))
				slowest = std::max(slowest, e);
		}
	LimitedKey key{ u, kInf, 0, 0 };
	if (cap_s < slowest)
		key = { u, cap_s, limit.keep, limit.fallback };
	auto it = curves_.find(key);
	if (it != curves_.end())
		return it->second;
	planner::SpeedCurve out = std::get<1>(key) < kInf ? limited(cv, cap_s, limit.keep) : cv;
	if (out.gpus.empty() && limit.fallback > 0) {
		// No count ends within the limit: the one its user chose the
		// limit for (or the nearest the job's nodes allow), at any
		// spread: it overruns on every count.
		size_t best = 0;
		for (size_t i = 1; i < cv.gpus.size(); i++)
			if (std::abs(cv.gpus[i] - limit.fallback) <
			    std::abs(cv.gpus[best] - limit.fallback))
				best = i;
		out.gpus = { cv.gpus[best] };
		out.epoch_s = { cv.epoch_s[best] };
	}
	if (out.gpus.empty())
		return -1;
	out_.in.curves.push_back(std::move(out));
	int index = static_cast<int>(out_.in.curves.size()) - 1;
	curves_.emplace(key, index);
	return index;
}

// A profiled pending job: its whole remaining work, with the correction
// margin, within its limit; else the count it asked.
Limit Builder::pending_limit(const JobSnap &j, int m) const
{
	Limit l;
	if (m < 0 || !(j.time_limit_s > 0))
		return l;
	l.max_epoch_s = j.time_limit_s / ((1 + limit_margin()) * epochs_left(j));
	l.fallback = std::max(1, j.gpus);
	return l;
}

// A resizable running job restarts as a requeued Slurm job, whose limit
// counts again from its new start: the restart and the epochs left now,
// with the margin, within the limit.  Its own count stays.
Limit Builder::resize_limit(const JobSnap &j, int m, const planner::PlanJob &pj,
			    double left_now) const
{
	Limit l;
	if (m < 0 || !pj.resizable || !(j.time_limit_s > 0) || !(left_now > 0))
		return l;
	double room_s = j.time_limit_s - std::max(0.0, pj.restart_s);
	l.max_epoch_s = room_s > 0 ? room_s / ((1 + limit_margin()) * left_now) : -kInf;
	l.keep = j.gpus;
	return l;
}

int Builder::node_set(const std::vector<int> &eligible)
{
	auto it = sets_.find(eligible);
	if (it != sets_.end())
		return it->second;
	out_.in.node_sets.push_back(eligible);
	int index = static_cast<int>(out_.in.node_sets.size()) - 1;
	sets_.emplace(eligible, index);
	return index;
}

void Builder::add_node_resources()
{
	planner::PlanInput &in = out_.in;
	for (const NodeSnap &ns : snap_.nodes)
		if (!(ns.cpus > 0) || !(ns.mem_mb > 0))
			return;
	for (const NodeSnap &ns : snap_.nodes) {
		in.node_cpus.push_back(ns.cpus);
		in.node_mem.push_back(ns.mem_mb);
		// A node nothing may start on has nothing free (as its GPUs).
		in.free_cpus.push_back(ns.usable ? std::clamp(ns.cpus - ns.cpus_alloc, 0.0, ns.cpus)
						 : 0.0);
		in.free_mem.push_back(ns.usable ? std::clamp(ns.mem_mb - ns.mem_alloc_mb, 0.0,
							     ns.mem_mb)
						: 0.0);
	}
}

double Builder::epochs_left(const JobSnap &j, double done_now) const
{
	// An earlier run's epochs are the job's word: they count for a job
	// the plan itself stopped for a resize, and for a running job (a
	// record that kept them through job_begin is one the plan resized).
	// A pending job that exited 85 on its own was requeued by Slurm, not
	// resized: its report must not make it look nearly done and jump the
	// queue (doc/report-bounds.md).
	double done = j.running || (resizes_ && resizes_->under_way(j.job_id)) ? j.epochs_done
									       : 0;
	// A little is always left (the run that said it finished everything
	// is still running).
	return std::max(std::min(1.0, j.epochs) * 0.01, j.epochs - done - done_now);
}

const Resize *Builder::held(const JobSnap &j) const
{
	if (!resizes_ || !j.elastic)
		return nullptr;
	const Resize *r = resizes_->under_way(j.job_id);
	// Pending again only once it stopped for the resize (a requeue for
	// another reason is planned like any pending job).
	if (!r || (!j.running && !(r->stopped_s > 0)))
		return nullptr;
	// Requeued for GPUs on nodes that are gone (a book restored after a
	// restart on another node set): planned like any pending job.
	if (!j.running && held_where(j, *r).empty())
		return nullptr;
	return r;
}

// Stopping: what it holds and what it will get, so nothing else is
// planned into either meanwhile; requeued: what it will get.
NodeCounts Builder::held_where(const JobSnap &j, const Resize &r) const
{
	// A book restored after a restart may name nodes that are gone.
	NodeCounts out;
	if (!j.running) {
		for (auto [node, n] : r.where)
			if (node >= 0 && node < nodes_)
				out.emplace_back(node, n);
		return out;
	}
	std::map<int, int> per_node;
	for (auto [node, n] : j.where)
		per_node[node] = n;
	for (auto [node, n] : r.where)
		if (node >= 0 && node < nodes_)
			per_node[node] = std::max(per_node[node], n);
	return NodeCounts(per_node.begin(), per_node.end());
}

void Builder::add_held(const JobSnap &j, const Resize &r)
{
	int c = curve(j, Limit{});
	if (c < 0)
		return;
	planner::PlanJob pj;
	pj.id = j.job_id;
	pj.curve = c;
	pj.submit_s = j.submit_s;
	pj.running = true;
	pj.resizable = false;
	pj.need = j.need;
	pj.where = held_where(j, r);
	pj.gpus = 0;
	for (auto [node, n] : pj.where)
		pj.gpus += n;
	int m = model_of(j);
	int span = static_cast<int>(r.where.size());
	bool spans = span >= min_nodes(r.to_gpus) && span <= std::min(r.to_gpus, nodes_);
	double e = m >= 0 && spans ? speed_of(book_of(j))->spread(m, r.to_gpus, span).epoch_s : 0;
	if (m >= 0 && spans && !priced(e)) {
		unpriceable(j, m);
		m = -1;
	}
	if (m >= 0 && spans) {
		pj.epoch_s = e;
		pj.epochs_at_progress_start = epochs_left(j);
	} else {
		pj.epoch_s = runtime_of(j);
		pj.epochs_at_progress_start = 1;
	}
	// Progress resumes once the restart is paid (from the request on).
	pj.progress_start_s = std::max(snap_.now_s,
				       r.asked_s + resizes_->priced_cost_s(j.model));
	pj.remaining_epochs = pj.epochs_at_progress_start;
	push(std::move(pj), j, m);
}

// Its shared limits as the plan's pools: a pool's capacity is what the
// limit leaves now plus what the plan's own running jobs hold of it (Slurm
// counts them in the room; the plan holds them again).
void Builder::push(planner::PlanJob pj, const JobSnap &j, int model)
{
	planner::PlanInput &in = out_.in;
	for (const JobSnap::PoolUse &u : j.pools) {
		auto room = snap_.pool_room.find(u.key);
		if (room == snap_.pool_room.end())
			continue; // no limit by that name now
		auto [it, added] = pool_index_.emplace(u.key, static_cast<int>(in.pool_capacity.size()));
		if (added)
			in.pool_capacity.push_back(room->second);
		if (j.running)
			in.pool_capacity[it->second] += u.per_gpu * j.gpus + u.per_job;
		pj.pools.push_back({ it->second, u.per_gpu, u.per_job });
	}
	if (settings_.interference && !settings_.interference->empty() && j.omru &&
	    !j.model.empty()) {
		uint32_t owner = prices().measured_by(j.uid, j.model) ? j.uid : profiler::kSiteUid;
		pj.kind = kinds_.emplace(std::make_pair(owner, j.model),
					 static_cast<int>(kinds_.size()))
				  .first->second;
	}
	out_.in.jobs.push_back(std::move(pj));
	out_.job_ids.push_back(j.job_id);
	out_.model.push_back(model);
	out_.book.push_back(&book_of(j));
}

void Builder::add_running(const JobSnap &j)
{
	planner::PlanJob pj;
	pj.id = j.job_id;
	pj.submit_s = j.submit_s;
	pj.running = true;
	pj.resizable = resizes_ && j.elastic && !resizes_->resting(j.job_id, snap_.now_s);
	if (pj.resizable)
		pj.restart_s = resizes_->priced_cost_s(j.model);
	pj.may_shrink = pj.resizable && resizes_->may_shrink(j.job_id);
	pj.gpus = j.gpus;
	pj.asked_gpus = j.asked_gpus; // what the bound may take back beyond
	pj.where = j.where;
	pj.need = j.need;
	if (j.holding.size() == j.where.size())
		pj.holding = j.holding;
	(void) unlimited(j); // first: it marks a model the plan cannot price
	int m = model_of(j);
	int span = static_cast<int>(j.where.size());
	double end;
	double left_now = 0; // epochs left now, as predicted (0: unknown)
	bool spans = span <= std::min(j.gpus, nodes_) && span >= min_nodes(j.gpus) &&
		     j.gpus <= total_;
	double e = m >= 0 && spans ? speed_of(book_of(j))->spread(m, j.gpus, span).epoch_s : 0;
	if (m >= 0 && spans && !priced(e)) {
		unpriceable(j, m);
		m = -1;
	}
	// Its launch first (an OMRU job priced by its profile).
	const double launch = m >= 0 && spans ? start_overhead(j) : 0;
	if (m >= 0 && spans) {
		pj.epoch_s = e;
		pj.epochs_at_progress_start = epochs_left(j);
		end = j.start_s + launch + pj.epochs_at_progress_start * pj.epoch_s;
		left_now = epochs_left(j, std::max(0.0, snap_.now_s - j.start_s - launch) /
						  pj.epoch_s);
	} else {
		pj.epoch_s = runtime_of(j);
		pj.epochs_at_progress_start = 1;
		end = j.start_s + pj.epoch_s;
	}
	pj.progress_start_s = j.start_s + launch;
	if (end < snap_.now_s + kOverdueMinS) {
		pj.progress_start_s = snap_.now_s;
		pj.epochs_at_progress_start = 1;
		pj.epoch_s = std::max(kOverdueMinS,
				      kOverdueFraction * (snap_.now_s - j.start_s));
	}
	pj.remaining_epochs = pj.epochs_at_progress_start;
	if (j.time_limit_s > 0) // when sched/backfill expects its GPUs back
		pj.limit_end_s = j.start_s + j.time_limit_s;
	pj.curve = curve(j, resize_limit(j, m, pj, left_now));
	if (pj.curve < 0)
		return;
	push(std::move(pj), j, m);
}

void Builder::add_pending(const JobSnap &j)
{
	if (!j.eligible.empty())
		(void) unlimited(j); // first: it marks a model the plan cannot price
	int m = model_of(j);
	int c = j.eligible.empty() ? -1 : curve(j, pending_limit(j, m));
	if (c < 0) {
		out_.unmodelled.push_back(j.job_id);
		return;
	}
	planner::PlanJob pj;
	pj.id = j.job_id;
	pj.curve = c;
	pj.submit_s = j.submit_s;
	pj.remaining_epochs = m >= 0 ? epochs_left(j) : 1;
	pj.start_overhead_s = m >= 0 ? start_overhead(j) : 0;
	// Once started (in the plan), only an elastic job may grow.
	pj.resizable = resizes_ && j.elastic;
	if (pj.resizable)
		pj.restart_s = resizes_->priced_cost_s(j.model);
	bool all = static_cast<int>(j.eligible.size()) == nodes_;
	pj.node_set = all ? -1 : node_set(j.eligible);
	pj.need = j.need;
	// Slurm's own policy: at the count it asked, by Slurm's priority
	// (its partition's PriorityTier above its own factors).
	pj.asked_gpus = std::max(1, j.gpus);
	pj.priority = j.tier * 4294967296.0 + j.priority;
	pj.limit_s = j.time_limit_s; // what sched/backfill reserves by
	push(std::move(pj), j, m);
}

BuiltInput Builder::build()
{
	planner::PlanInput &in = out_.in;
	nodes_ = static_cast<int>(snap_.nodes.size());
	for (const NodeSnap &n : snap_.nodes) {
		gpn_ = std::max(gpn_, n.gpus);
		total_ += std::max(0, n.gpus);
	}
	in.now_s = snap_.now_s;
	in.nodes = nodes_;
	in.gpus_per_node = gpn_;
	in.objective = settings_.objective;
	in.fairness_factor = settings_.fairness_factor;
	in.bound = settings_.bound;
	in.arrival_guard = settings_.arrival_guard;
	// GPU reuse grows elastic jobs, running or not started yet (the
	// plan's counts at the start count on it); without any it only costs.
	in.reuse = false;
	if (resizes_)
		for (const JobSnap &j : snap_.jobs)
			in.reuse = in.reuse || (j.elastic && !resizes_->refused(j.job_id));
	in.restart_overhead_s = resizes_ ? resizes_->priced_cost_s("") : 0;
	in.grow_on_one_node = true;
	// One shrink at a time: until it is done, the stopping job still
	// holds its GPUs and the plan would shrink another for the same job.
	in.shrink_to_admit = resizes_ && resizes_->settings().phase_aware &&
			     resizes_->jobs().empty();
	if (nodes_ == 0 || total_ == 0)
		return std::move(out_);

	// Capacity and free GPUs: what running jobs hold is taken from the
	// jobs themselves, so the plan's books always balance.
	std::vector<int> used(nodes_, 0);
	auto count = [&](const NodeCounts &where) {
		for (auto [node, n] : where)
			if (node >= 0 && node < nodes_)
				used[node] += n;
	};
	for (const JobSnap &j : snap_.jobs) {
		if (const Resize *r = held(j))
			count(held_where(j, *r));
		else if (j.running)
			count(j.where);
	}
	in.node_gpus.resize(nodes_);
	in.free_per_node.resize(nodes_);
	for (int n = 0; n < nodes_; n++) {
		const NodeSnap &ns = snap_.nodes[n];
		int cap = std::max({ ns.gpus, used[n], 0 });
		in.node_gpus[n] = cap;
		int free = std::min(cap - used[n], std::max(0, ns.gpus - ns.gpus_alloc));
		in.free_per_node[n] = ns.usable ? std::max(0, free) : 0;
	}
	gpn_ = std::max(gpn_, *std::max_element(in.node_gpus.begin(), in.node_gpus.end()));
	in.gpus_per_node = gpn_;
	add_node_resources();
	if (settings_.pipeline)
		settings_.pipeline->see_cluster(snap_.gpu_links.get(), nodes_, gpn_);

	std::vector<const JobSnap *> running, pending;
	for (const JobSnap &j : snap_.jobs)
		(j.running || held(j) ? running : pending).push_back(&j);
	auto by_submit = [](const JobSnap *a, const JobSnap *b) {
		if (a->submit_s != b->submit_s)
			return a->submit_s < b->submit_s;
		return a->job_id < b->job_id;
	};
	std::sort(running.begin(), running.end(), by_submit);
	if (pending.size() > settings_.max_pending) {
		std::stable_sort(pending.begin(), pending.end(),
				 [&](const JobSnap *a, const JobSnap *b) {
					 if (a->tier != b->tier)
						 return a->tier > b->tier;
					 if (a->priority != b->priority)
						 return a->priority > b->priority;
					 return by_submit(a, b);
				 });
		for (size_t i = settings_.max_pending; i < pending.size(); i++)
			out_.left_out.push_back(pending[i]->job_id);
		pending.resize(settings_.max_pending);
	}
	std::sort(pending.begin(), pending.end(), by_submit);
	for (const JobSnap *j : running) {
		if (const Resize *r = held(*j)) {
			add_held(*j, *r);
			continue;
		}
		bool ok = !j->where.empty();
		for (auto [node, n] : j->where)
			ok = ok && node >= 0 && node < nodes_ && n > 0;
		if (ok)
			add_running(*j);
	}
	for (const JobSnap *j : pending)
		add_pending(*j);
	if (!kinds_.empty()) {
		// A kind loses what its owner's price says beside the other's
		// model: a user's measurements change only its own jobs' rows.
		const PairPrices p = prices();
		in.slowdown.assign(kinds_.size(), std::vector<double>(kinds_.size(), 1.0));
		for (const auto &[a, ka] : kinds_)
			for (const auto &[b, kb] : kinds_)
				in.slowdown[ka][kb] = p.slowdown(a.first, a.second, b.second);
	}
	return std::move(out_);
}

} // namespace

const char *profile_source_name(ProfileSource s)
{
	switch (s) {
	case ProfileSource::Measured:
		return "measured";
	case ProfileSource::Site:
		return "site";
	case ProfileSource::Estimated:
		return "estimated";
	case ProfileSource::Default:
		return "default";
	}
	return "?";
}

const SpeedModel *SpeedBook::model_for(int nodes, int gpus_per_node)
{
	if (!profiles_ || profiles_->model_count() == 0 || nodes < 1 ||
	    gpus_per_node < 1 || gpus_per_node > kMaxGpusPerNode ||
	    nodes > kMaxClusterNodes)
		return nullptr;
	if (!model_ || nodes != nodes_ || gpus_per_node != gpn_) {
		model_ = std::make_unique<SpeedModel>(*profiles_,
						      Cluster{ nodes, gpus_per_node },
						      spread_cost_);
		nodes_ = nodes;
		gpn_ = gpus_per_node;
	}
	return model_.get();
}

BuiltInput build_plan_input(const Snapshot &snap, const BookFor &book_for,
			    const PlanSettings &settings, const ResizeBook *resizes,
			    const StartOverheadBook *starts)
{
	return Builder(snap, book_for, settings, resizes, starts).build();
}

BuiltInput build_plan_input(const Snapshot &snap, SpeedBook &book,
			    const PlanSettings &settings)
{
	BookFor one = [&book](uint32_t) -> SpeedBook & { return book; };
	return Builder(snap, one, settings, nullptr).build();
}

ProfileSource profile_source(const BuiltInput &b, size_t job, int gpus,
			     int nodes,
			     const std::function<bool(int, int, int)> &own_row)
{
	int m = b.model[job];
	SpeedBook *book = b.book[job];
	const SpeedModel *sm = book ? book->model_for(b.in.nodes, b.in.gpus_per_node) : nullptr;
	if (m < 0 || !sm)
		return ProfileSource::Default;
	int kmin = (gpus + b.in.gpus_per_node - 1) / b.in.gpus_per_node;
	nodes = std::clamp(nodes, kmin, std::min(gpus, b.in.nodes));
	if (own_row && own_row(m, gpus, nodes))
		return ProfileSource::Measured;
	return sm->spread(m, gpus, nodes).confidence == Confidence::Measured
		       ? ProfileSource::Site
		       : ProfileSource::Estimated;
}

} // namespace controller
} // namespace omru
