// plan_simulation.cpp - see plan_simulation.hpp.
//
// Placement is pack_gpus (fewest nodes, fullest node that fits) on the
// simulated free GPUs of the job's node set, exactly as the caller will
// place the jobs the plan starts now; a spread whose time is kNoRow is not
// used (the job waits), and one wider than the job's count needs is used
// only if waiting for fewer nodes would not end the job sooner (see
// start_phase).
//
// Reuse.  When every pending job has started and GPUs are idle, running jobs
// grow: under the makespan objective, first the job that ends last, as long
// as growing it ends it sooner (it sets the makespan); then, under either
// objective, the growth that saves the most completion time per added GPU,
// until no growth saves anything.  A growth restarts the job on the larger
// count, so it pays the restart overhead and must save more than that.  A
// job paying its overhead cannot be resized until the overhead ends, which
// is an event of its own.
//
// Interference (PlanInput::slowdown).  A job's epoch time is its spread's
// time alone times the slowdown its neighbours cause (the distinct jobs on
// any of its nodes, combined_slowdown); whenever a job starts, grows or
// ends, the jobs on its nodes are priced again from that instant (their
// progress so far kept).  A start is placed on the nodes where the job's
// and its neighbours' added slowdown is least among placements on no more
// nodes than pack_gpus's (best fit within that), so a plan without
// interfering pairs places exactly as without a table.
#include "planner/plan_simulation.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <queue>
#include <set>
#include <tuple>
#include <unordered_map>

#include "planner/free_gpu_index.hpp"
#include "profile/interference_model.hpp" // combined_slowdown

namespace omru {
namespace planner {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Reuse weighs the jobs that end last, this many of them: they gain the
// most from more GPUs, and looking at every running job at every event
// would make a plan for thousands of jobs quadratic.
constexpr int kReuseCandidates = 16;

struct JobState {
	enum class Phase { Waiting, Running, Done } phase = Phase::Waiting;
	int option = -1; // index into the curve's gpus (-1: not in the curve)
	int gpus = 0;
	NodeCounts where;
	double progress_start_s = 0;
	double left_at_progress_start = 0;
	double epoch_s = 0;      // with its neighbours' slowdown
	double solo_epoch_s = 0; // its spread's time alone
	double end_s = 0;
	// Its end with its neighbours' slowdown left out, from its last
	// segment's start: what the reference bound holds it to (the
	// reference prices no interference, and backfill's jobs share nodes
	// too).
	double solo_end_s = 0;
	// solo_end_s of its first segment in this plan: the end it keeps if
	// it never grows.  A pending job is held to this, not to a growth
	// later plans may not give it (a job started on 1 GPU of the 4 it
	// asked, to grow into GPUs freed later, was passed over by the plans
	// after and ended 29% past its reference; philly-8h-3).
	double firm_end_s = kInf;
	double resizable_from_s = kInf;
	unsigned version = 0; // tells stale completion events apart
	// CPUs and memory held on each node of `where` (node resources only).
	std::vector<NodeUse> use;
};

// Waiting jobs that start under the same conditions: the same GPU count,
// node set and spreads without a row.  Which of them may start depends
// only on the free GPUs, so the start phase asks each class once instead of
// each waiting job (see start_phase).
struct StartClass {
	int gpus = 0;
	int set = -1;
	int job = -1;    // a member: its NodeNeed is every member's
	int curve = -1;  // one member's curve and option: its NaN spreads are
	int option = -1; // every member's
	// Some spread has no row: a class that does not fit may fit again
	// after a start takes GPUs (the packing lands on a different spread).
	bool may_flip = false;
	std::vector<int> pos;  // members' positions in the order, ascending
	std::vector<int> skip; // skip[i]: first member >= i still waiting
	int waiting = 0;
};

struct Event {
	double t;
	int job;
	unsigned version;
	bool operator>(const Event &o) const
	{
		return t > o.t || (t == o.t && job > o.job);
	}
};

// Events in time order.  sooner_on_fewer_nodes reads the heap itself (in
// std::push_heap's layout: the children of i at 2i + 1 and 2i + 2) to see
// the running jobs in end order without popping them.
struct EventQueue : std::priority_queue<Event, std::vector<Event>, std::greater<Event>> {
	const std::vector<Event> &heap() const { return c; }
};

class PlanRun {
    public:
	PlanRun(const PlanInput &in, const Candidate &c, bool record)
		: in_(in), c_(c), record_(record), jobs_(in.jobs.size()),
		  free_(in.free_per_node, in.gpus_per_node, in.node_sets),
		  cpus_free_(in.free_cpus), mem_free_(in.free_mem),
		  coloc_(!in.slowdown.empty())
	{
		intern_needs();
		if (coloc_) {
			residents_.assign(in.nodes, {});
			neighbour_mark_.assign(in.jobs.size(), 0);
			allowed_.assign(in.nodes, 0);
		}
		intern_pools();
		is_blocked_.assign(in.jobs.size(), 0);
		released_mark_.assign(in.jobs.size(), 0);
		released_.assign(in.free_per_node.size(), 0);
		rel_cpus_.assign(in.free_per_node.size(), 0);
		rel_mem_.assign(in.free_per_node.size(), 0);
		if (record)
			out_.jobs.resize(in.jobs.size());
	}

	// IN give_up_after: stop once simulated time passes it (the plan's
	// makespan can then only be later); the outcome says so.
	Outcome run(double give_up_after);

    private:
	const SpeedCurve &curve(int job) const
	{
		return in_.curves[in_.jobs[job].curve];
	}
	double restart_s(int job) const
	{
		double own = in_.jobs[job].restart_s;
		return own >= 0 ? own : in_.restart_overhead_s;
	}
	double left_at(int job, double t) const
	{
		const JobState &s = jobs_[job];
		double done = t > s.progress_start_s
				      ? (t - s.progress_start_s) / s.epoch_s
				      : 0;
		return std::max(0.0, s.left_at_progress_start - done);
	}
	// pack_gpus on the free GPUs of class k's node set, remembered until
	// they change: several classes of one size ask the same question.  A
	// class whose jobs need CPUs or memory is packed on what those leave
	// of each node, each time.
	// RET the packing, or nullptr when it does not fit.
	const NodeCounts *packed_now(const StartClass &k)
	{
		const int gpus = k.gpus, set = k.set;
		if (coloc_ && in_.place_apart && in_.jobs[k.job].kind >= 0)
			return pack_aware(k.job, gpus, set, need_where_) ? &need_where_
									 : nullptr;
		if (need_id_[k.job])
			return pack_job(k.job, gpus, set, need_where_) ? &need_where_
								       : nullptr;
		size_t s = static_cast<size_t>(set + 1);
		if (pack_cache_.size() <= s)
			pack_cache_.resize(s + 1);
		auto &cache = pack_cache_[s];
		if (cache.size() <= static_cast<size_t>(gpus))
			cache.resize(gpus + 1);
		Packing &p = cache[gpus];
		if (p.gen != free_gen_) {
			p.fits = free_.pack_into(gpus, set, p.where);
			p.gen = free_gen_;
		}
		return p.fits ? &p.where : nullptr;
	}
	// The job's GPUs (and with node resources, what its need takes
	// there) taken from the free ones, or given back.
	void take(int job, const NodeCounts &where);
	void give_back(int job);
	// The GPUs, CPUs and memory of `where` that `use` holds, added (sign
	// 1) to the free ones or taken (-1).
	void add_resources(const NodeCounts &where, const std::vector<NodeUse> &use,
			   int sign);
	// The most GPUs of job's node that its need allows there, with
	// `gpus` of them free and `cpus`, `mem` more than free now.
	int fit(int job, int node, int gpus, double cpus = 0, double mem = 0) const
	{
		if (!need_id_[job])
			return gpus;
		return in_.fit_on(in_.jobs[job].need, node, gpus,
				  cpus_free_[node] + cpus, mem_free_[node] + mem);
	}
	// pack_gpus for the job on node set `set`: on the free GPUs, or with
	// a need on what its CPUs and memory allow per node.
	bool pack_job(int job, int gpus, int set, NodeCounts &out);
	// Interference (PlanInput::slowdown):
	// pack_job, then moved to nodes where the job and its neighbours lose
	// less, on no more nodes.
	bool pack_aware(int job, int gpus, int set, NodeCounts &out);
	// The slowdown `job` and the job kinds on `node` would add to each
	// other if it ran there.
	double node_cost(int job, int node) const;
	// f(r) for each distinct priced job r other than `job` on `where`.
	template <typename F> void each_neighbour(int job, const NodeCounts &where, F f)
	{
		const unsigned long call = ++neighbour_calls_;
		for (auto [node, n] : where)
			for (int r : residents_[node])
				if (r != job && in_.jobs[r].kind >= 0 &&
				    neighbour_mark_[r] != call) {
					neighbour_mark_[r] = call;
					f(r);
				}
	}
	// The factor on job's time alone on `where`, from the other jobs
	// there.
	double factor_on(int job, const NodeCounts &where);
	// Prices job again from now after its neighbours changed.
	void reprice(int job);
	// reprice for every other job on `where`.
	void reprice_neighbours(int job, const NodeCounts &where);
	void add_resident(int job, const NodeCounts &where);
	void drop_resident(int job, const NodeCounts &where);
	void intern_needs();
	// Pools (PlanInput::pool_capacity): each job's signature (its pools
	// and amounts; 0 for none), what the running jobs hold of each.
	void intern_pools();
	// What `job` holds of its pools at `gpus` GPUs, taken (sign 1) or
	// given back (-1).
	void pool_add(int job, int gpus, int sign);
	// Whether its pools have room for it at `gpus` GPUs, what it holds at
	// `held` (0: nothing) given back first.
	bool pool_room(int job, int gpus, int held = 0) const;
	void add_running_inputs();
	void set_resizable_from(int job, double t);
	void refresh_growable(int job);
	void enter_tail();
	void build_classes();
	int class_next(StartClass &k, int i);
	int first_waiting_from(int k, int pos);
	void start(int k, int pos, const NodeCounts &packed);
	bool sooner_on_fewer_nodes(int job, int gpus, int set, int span);
	// The running jobs' predicted ends in time order (the event heap read
	// in place), each adding what it frees on the nodes of `set` (-1:
	// every node) to released_, rel_cpus_ and rel_mem_, with before(node)
	// and after(node, gpus) around each node's share.  instant(at) is
	// asked once the ends at `at` are all in, before a later one is played
	// and after the last; true stops the walk.  Ends not clearly before
	// `until` (kInf: none) are not played.  RET whether instant stopped it; the
	// buffers are zero again on return.
	template <typename Instant, typename Before, typename After>
	bool walk_ends(int set, double until, Instant instant, Before before, After after);
	// Candidate::reserve: the earliest time the running jobs' predicted
	// ends let `job` (waiting, `gpus` GPUs on node set `set`) be packed,
	// and where; false when none does.
	bool earliest_fit(int job, int gpus, int set, double &at, NodeCounts &where,
			  NodeCounts &spare);
	// Whether a hold made before position `pos` keeps `job` from
	// starting on `packed` now: it would still run then on a held node
	// with too few spare GPUs.  take_spare: `job` starts on `packed`,
	// and takes what it holds past a hold from that hold's spare.
	double end_if_started(int job, const NodeCounts &packed) const;
	bool held_off(int pos, int job, const NodeCounts &packed) const;
	void take_spare(int pos, int job, const NodeCounts &packed);
	void run_segment(int job, int option, NodeCounts where, double epoch_s,
			 double left, double progress_start);
	int next_waiting(int pos);
	void start_phase();
	void reuse_phase();
	bool grow_latest();
	bool grow_best_per_gpu();
	struct Growth {
		int option = -1;
		NodeCounts where;
		double epoch_s = 0;
		double end_s = kInf;
	};
	Growth placed_growth(int job, int option);
	struct Weighed {
		int job = -1;
		int first_option = 0;
		std::vector<double> gain; // per option from first_option
		double best = -kInf;      // the largest of them
	};
	void weigh(int job, Weighed &w) const;
	void resize(int job, const Growth &g);
	Growth soonest_growth(int job, int from);
	void finish(int job);

	const PlanInput &in_;
	const Candidate &c_;
	const bool record_;
	std::vector<JobState> jobs_;
	FreeGpuIndex free_;
	unsigned long free_gen_ = 1; // changes whenever free_ does
	// By node set + 1, then by GPU count.
	struct Packing {
		NodeCounts where; // its buffer is reused: no allocation per pack
		bool fits = false;
		unsigned long gen = 0; // the free_gen_ it was packed at
	};
	std::vector<std::vector<Packing>> pack_cache_;
	NodeCounts growth_where_; // placed_growth's packing buffer
	// Node resources (PlanInput::has_resources): free CPUs and memory per
	// node; per job its need's id, 0 for none (GPUs alone decide); the
	// GPUs a need allows per node, and a packing buffer.
	std::vector<double> cpus_free_, mem_free_;
	std::vector<int> need_id_;
	std::vector<int> pool_sig_;
	std::vector<double> pool_used_;
	std::vector<int> allowed_;
	NodeCounts need_where_;
	// Interference: on; the running jobs on each node; per job the
	// factor_on/reprice_neighbours call that last counted it.
	const bool coloc_;
	std::vector<std::vector<int>> residents_;
	std::vector<unsigned long> neighbour_mark_;
	unsigned long neighbour_calls_ = 0;
	double t_ = 0;
	int waiting_ = 0;
	std::vector<StartClass> classes_;
	std::vector<int> active_;   // classes with waiting members
	std::vector<int> deferred_; // start_phase: may fit again later
	// start_phase: the holds of waiting Candidate::reserve jobs, by their
	// position in the order, until when and on which nodes.
	struct Hold {
		int pos;
		double until;
		NodeCounts where;   // the GPUs it takes per node then
		NodeCounts spare;   // per node of `where`: GPUs free then beyond
				    // those, that jobs running past `until` may
				    // take (GPUs only: CPUs and memory unpriced)
	};
	std::vector<Hold> holds_;
	// Waiting jobs per GPU count, to skip start phases nothing can fill.
	std::vector<int> waiting_by_gpus_;
	int min_waiting_gpus_ = 1;
	// Could not grow at this instant: skipped until the phase ends (a
	// flag, not a removal from growable_, which would cost two tree
	// updates per blocked job and event).
	std::vector<int> blocked_;
	std::vector<char> is_blocked_;
	std::vector<Weighed> window_; // grow_best_per_gpu's jobs
	// Running jobs by planned end: reuse looks at the latest few only.
	bool tail_ = false; // every waiting job has started: by_end_ is kept
	std::set<std::pair<double, int>> by_end_;
	// The running jobs reuse may grow now (a count in their curve,
	// resizable from t_ or before, not blocked), by planned end.
	std::set<std::pair<double, int>> growable_;
	EventQueue events_;
	// sooner_on_fewer_nodes's buffers: nodes by free count as running
	// jobs end, GPUs those ends freed per node (zero between calls) and
	// the nodes that got some, the heap positions to visit, and per job
	// the call that last counted its end (a job may have two events at
	// one time).
	std::vector<int> by_free_;
	std::vector<int> released_;
	std::vector<double> rel_cpus_, rel_mem_;
	std::vector<int> touched_;
	std::vector<int> walk_;
	std::vector<unsigned long> released_mark_;
	unsigned long release_calls_ = 0;
	Outcome out_;
};

// Jobs that need the same CPUs and memory share an id; 0: no need, or no
// node resources in the input.
void PlanRun::intern_needs()
{
	need_id_.assign(in_.jobs.size(), 0);
	if (!in_.resources_bind())
		return;
	std::map<decltype(NodeNeed{}.key()), int> ids;
	for (size_t j = 0; j < in_.jobs.size(); j++) {
		const NodeNeed &n = in_.jobs[j].need;
		if (!n.none())
			need_id_[j] = ids.emplace(n.key(), static_cast<int>(ids.size()) + 1)
					      .first->second;
	}
	allowed_.assign(in_.nodes, 0);
}

void PlanRun::intern_pools()
{
	pool_used_.assign(in_.pool_capacity.size(), 0);
	if (c_.pool_sig && c_.pool_sig->size() == in_.jobs.size())
		pool_sig_ = *c_.pool_sig;
	else
		pool_sig_ = pool_signatures(in_);
}

void PlanRun::pool_add(int job, int gpus, int sign)
{
	for (const PoolUse &u : in_.jobs[job].pools)
		pool_used_[u.pool] += sign * u.of(gpus);
}

bool PlanRun::pool_room(int job, int gpus, int held) const
{
	for (const PoolUse &u : in_.jobs[job].pools)
		if (!u.fits(gpus, pool_used_[u.pool] - (held > 0 ? u.of(held) : 0),
			    in_.pool_capacity[u.pool]))
			return false;
	return true;
}

void PlanRun::add_resources(const NodeCounts &where, const std::vector<NodeUse> &use,
			    int sign)
{
	free_gen_++;
	if (sign > 0)
		free_.give_back(where);
	else
		free_.take(where);
	for (size_t i = 0; i < use.size() && i < where.size(); i++) {
		int node = where[i].first;
		// A running job's holding as Slurm reported it may not match
		// its need: never more free than the node has.
		cpus_free_[node] = std::clamp(cpus_free_[node] + sign * use[i].cpus, 0.0,
					      in_.node_cpus[node]);
		mem_free_[node] = std::clamp(mem_free_[node] + sign * use[i].mem, 0.0,
					     in_.node_mem[node]);
	}
}

void PlanRun::take(int job, const NodeCounts &where)
{
	JobState &s = jobs_[job];
	s.use.clear();
	if (need_id_[job])
		for (auto [node, n] : where)
			s.use.push_back(in_.use_of(in_.jobs[job].need, node, n));
	add_resources(where, s.use, -1);
	if (coloc_) {
		add_resident(job, where);
		reprice_neighbours(job, where);
	}
}

void PlanRun::give_back(int job)
{
	add_resources(jobs_[job].where, jobs_[job].use, 1);
	if (coloc_) {
		drop_resident(job, jobs_[job].where);
		reprice_neighbours(job, jobs_[job].where);
	}
}

void PlanRun::add_resident(int job, const NodeCounts &where)
{
	for (auto [node, n] : where)
		residents_[node].push_back(job);
}

void PlanRun::drop_resident(int job, const NodeCounts &where)
{
	for (auto [node, n] : where) {
		std::vector<int> &r = residents_[node];
		if (auto it = std::find(r.begin(), r.end(), job); it != r.end())
			r.erase(it);
	}
}

double PlanRun::node_cost(int job, int node) const
{
	const std::vector<std::vector<double>> &f = in_.slowdown;
	const int a = in_.jobs[job].kind;
	double cost = 0;
	for (int r : residents_[node])
		if (int b = in_.jobs[r].kind; b >= 0 && r != job)
			cost += (f[a][b] - 1) + (f[b][a] - 1);
	return cost;
}

double PlanRun::factor_on(int job, const NodeCounts &where)
{
	const int a = in_.jobs[job].kind;
	if (!coloc_ || a < 0)
		return 1;
	double excess = 0;
	each_neighbour(job, where,
		       [&](int r) { excess += in_.slowdown[a][in_.jobs[r].kind] - 1; });
	return combined_slowdown(excess);
}

void PlanRun::reprice_neighbours(int job, const NodeCounts &where)
{
	if (in_.jobs[job].kind < 0)
		return; // it slows no one
	// Collected first: reprice's factor_on reuses the marks.
	std::vector<int> others;
	each_neighbour(job, where, [&](int r) { others.push_back(r); });
	for (int r : others)
		reprice(r);
}

void PlanRun::reprice(int job)
{
	JobState &s = jobs_[job];
	if (s.phase != JobState::Phase::Running)
		return;
	double e = s.solo_epoch_s * factor_on(job, s.where);
	if (!clearly_less(e, s.epoch_s) && !clearly_less(s.epoch_s, e))
		return;
	if (t_ > s.progress_start_s) {
		s.left_at_progress_start = left_at(job, t_);
		s.progress_start_s = t_;
	}
	if (tail_) {
		by_end_.erase({ s.end_s, job });
		growable_.erase({ s.end_s, job });
	}
	s.epoch_s = e;
	s.end_s = s.progress_start_s + s.left_at_progress_start * e;
	if (tail_) {
		by_end_.insert({ s.end_s, job });
		refresh_growable(job);
	}
	s.version++;
	events_.push({ s.end_s, job, s.version });
	if (s.resizable_from_s > t_ && std::isfinite(s.resizable_from_s))
		events_.push({ s.resizable_from_s, job, s.version });
	if (record_ && !out_.jobs[job].segments.empty())
		out_.jobs[job].segments.back().end_s = s.end_s;
}

bool PlanRun::pack_aware(int job, int gpus, int set, NodeCounts &out)
{
	if (!pack_job(job, gpus, set, out))
		return false;
	double worst = 0;
	for (auto [node, n] : out)
		worst = std::max(worst, node_cost(job, node));
	if (worst <= 1e-9)
		return true; // nothing to avoid
	// Thresholds: the distinct costs of the nodes it could use, below
	// the packing's worst; the first that still packs it on no more
	// nodes wins.
	const std::vector<int> &free = free_.free();
	std::vector<std::pair<double, int>> nodes; // (cost, node)
	auto consider = [&](int node) {
		if (free[node] > 0)
			nodes.emplace_back(node_cost(job, node), node);
	};
	if (set < 0)
		for (int node = 0; node < in_.nodes; node++)
			consider(node);
	else
		for (int node : in_.node_sets[set])
			consider(node);
	std::sort(nodes.begin(), nodes.end());
	const size_t span = out.size();
	for (size_t i = 0; i < nodes.size() && nodes[i].first < worst - 1e-9;) {
		const double level = nodes[i].first;
		while (i < nodes.size() && nodes[i].first <= level + 1e-9)
			i++;
		std::fill(allowed_.begin(), allowed_.end(), 0);
		for (size_t k = 0; k < i; k++)
			allowed_[nodes[k].second] = fit(job, nodes[k].second, free[nodes[k].second]);
		std::optional<NodeCounts> p = set < 0 ? pack_gpus(allowed_, gpus)
						      : pack_gpus(allowed_, gpus, in_.node_sets[set]);
		if (p && p->size() <= span) {
			out = std::move(*p);
			return true;
		}
	}
	return true;
}

bool PlanRun::pack_job(int job, int gpus, int set, NodeCounts &out)
{
	if (!need_id_[job])
		return free_.pack_into(gpus, set, out);
	const std::vector<int> &free = free_.free();
	auto allow = [&](int node) { allowed_[node] = fit(job, node, free[node]); };
	std::optional<NodeCounts> p;
	if (set < 0) {
		for (int node = 0; node < in_.nodes; node++)
			allow(node);
		p = pack_gpus(allowed_, gpus);
	} else {
		for (int node : in_.node_sets[set])
			allow(node);
		p = pack_gpus(allowed_, gpus, in_.node_sets[set]);
	}
	if (!p)
		return false;
	out = std::move(*p);
	return true;
}

void PlanRun::run_segment(int job, int option, NodeCounts where, double epoch_s,
			  double left, double progress_start)
{
	JobState &s = jobs_[job];
	if (tail_ && s.phase == JobState::Phase::Running) {
		by_end_.erase({ s.end_s, job });
		growable_.erase({ s.end_s, job });
	}
	const bool first = s.phase == JobState::Phase::Waiting;
	s.phase = JobState::Phase::Running;
	s.option = option;
	s.gpus = 0;
	for (auto [node, n] : where)
		s.gpus += n;
	s.where = std::move(where);
	s.progress_start_s = progress_start;
	s.left_at_progress_start = left;
	s.solo_epoch_s = epoch_s;
	s.epoch_s = epoch_s * factor_on(job, s.where);
	s.end_s = progress_start + left * s.epoch_s;
	s.solo_end_s = progress_start + left * epoch_s;
	if (first)
		s.firm_end_s = s.solo_end_s;
	if (tail_)
		by_end_.insert({ s.end_s, job });
	s.version++;
	events_.push({ s.end_s, job, s.version });
	if (record_)
		out_.jobs[job].segments.push_back(
			{ t_, s.end_s, s.gpus, static_cast<int>(s.where.size()) });
}

void PlanRun::set_resizable_from(int job, double t)
{
	jobs_[job].resizable_from_s = t;
	refresh_growable(job);
}

// Reuse starts when the last waiting job has started, and only then needs
// the running jobs by planned end: keeping them sorted before would cost a
// tree update at every start and end of the queue's main part.
void PlanRun::enter_tail()
{
	tail_ = true;
	for (size_t j = 0; j < jobs_.size(); j++)
		if (jobs_[j].phase == JobState::Phase::Running) {
			by_end_.insert({ jobs_[j].end_s, static_cast<int>(j) });
			refresh_growable(static_cast<int>(j));
		}
}

void PlanRun::refresh_growable(int job)
{
	if (!tail_)
		return;
	const JobState &s = jobs_[job];
	if (s.phase == JobState::Phase::Running && s.option >= 0 &&
	    s.resizable_from_s <= t_)
		growable_.insert({ s.end_s, job });
	else
		growable_.erase({ s.end_s, job });
}

void PlanRun::add_running_inputs()
{
	if (coloc_)
		for (size_t j = 0; j < in_.jobs.size(); j++)
			if (in_.jobs[j].running)
				add_resident(static_cast<int>(j), in_.jobs[j].where);
	for (size_t j = 0; j < in_.jobs.size(); j++) {
		const PlanJob &pj = in_.jobs[j];
		if (!pj.running)
			continue;
		const SpeedCurve &cv = curve(static_cast<int>(j));
		auto it = std::find(cv.gpus.begin(), cv.gpus.end(), pj.gpus);
		int option = it == cv.gpus.end() ? -1 : static_cast<int>(it - cv.gpus.begin());
		run_segment(static_cast<int>(j), option, pj.where, pj.epoch_s,
			    pj.epochs_at_progress_start, pj.progress_start_s);
		pool_add(static_cast<int>(j), pj.gpus, 1);
		JobState &s = jobs_[j];
		// Already out of the free resources: what it holds, to give
		// back when it ends.
		if (in_.has_resources()) {
			s.use = pj.holding;
			if (s.use.size() != s.where.size()) {
				s.use.clear();
				for (auto [node, n] : s.where)
					s.use.push_back(in_.use_of(pj.need, node, n));
			}
		}
		set_resizable_from(static_cast<int>(j),
				   !pj.resizable ? kInf
						 : std::max(in_.now_s, pj.progress_start_s));
		if (s.resizable_from_s > in_.now_s && std::isfinite(s.resizable_from_s))
			events_.push({ s.resizable_from_s, static_cast<int>(j), s.version });
	}
}

// Classes of the waiting jobs, members in priority order.  A class is
// (GPU count, node set, the spreads its curve has no row for): two jobs of
// one class fit, or do not, at the same moments.
void PlanRun::build_classes()
{
	std::map<std::pair<int, std::vector<char>>, int> pattern_ids;
	std::vector<std::vector<int>> pattern(in_.curves.size());
	std::unordered_map<long long, int> class_ids;
	for (int pos = 0; pos < static_cast<int>(c_.order.size()); pos++) {
		int job = c_.order[pos];
		int cv_i = in_.jobs[job].curve, option = c_.option[job];
		const SpeedCurve &cv = in_.curves[cv_i];
		std::vector<int> &ids = pattern[cv_i];
		if (ids.empty())
			ids.assign(cv.gpus.size(), -1);
		if (ids[option] < 0) {
			std::vector<char> nan;
			for (double e : cv.epoch_s[option])
				nan.push_back(std::isnan(e));
			auto key = std::make_pair(cv.gpus[option], std::move(nan));
			auto it = pattern_ids.emplace(std::move(key),
						      static_cast<int>(pattern_ids.size()));
			ids[option] = it.first->second;
		}
		const long long n_ids = static_cast<long long>(in_.jobs.size()) + 1;
		long long key = ((static_cast<long long>(ids[option]) *
					  (static_cast<long long>(in_.node_sets.size()) + 1) +
				  (in_.jobs[job].node_set + 1)) *
					 n_ids +
				 need_id_[job]) *
					n_ids +
				pool_sig_[job];
		// Interference: jobs of one kind are placed alike.
		if (coloc_)
			key = key * (static_cast<long long>(in_.slowdown.size()) + 1) +
			      (in_.jobs[job].kind + 1);
		auto [it, added] = class_ids.emplace(key, static_cast<int>(classes_.size()));
		if (added) {
			StartClass k;
			k.gpus = cv.gpus[option];
			k.set = in_.jobs[job].node_set;
			k.job = job;
			k.curve = cv_i;
			k.option = option;
			for (size_t n = 1; n < cv.epoch_s[option].size(); n++)
				k.may_flip |= std::isnan(cv.epoch_s[option][n]);
			classes_.push_back(std::move(k));
			active_.push_back(it->second);
		}
		StartClass &k = classes_[it->second];
		k.pos.push_back(pos);
		k.waiting++;
	}
	for (StartClass &k : classes_) {
		k.skip.resize(k.pos.size() + 1);
		for (size_t i = 0; i < k.skip.size(); i++)
			k.skip[i] = static_cast<int>(i);
	}
}

// The first member >= i still waiting (path-compressed, as in union-find).
int PlanRun::class_next(StartClass &k, int i)
{
	int root = i;
	while (k.skip[root] != root)
		root = k.skip[root];
	while (k.skip[i] != root) {
		int next = k.skip[i];
		k.skip[i] = root;
		i = next;
	}
	return root;
}

// The position of class k's first waiting member at or after `pos`, or -1.
int PlanRun::first_waiting_from(int k, int pos)
{
	StartClass &c = classes_[k];
	int i = static_cast<int>(std::lower_bound(c.pos.begin(), c.pos.end(), pos) -
				 c.pos.begin());
	i = class_next(c, i);
	return i < static_cast<int>(c.pos.size()) ? c.pos[i] : -1;
}

void PlanRun::start(int k, int pos, const NodeCounts &packed)
{
	StartClass &c = classes_[k];
	int job = c_.order[pos];
	int option = c_.option[job];
	const SpeedCurve &cv = curve(job);
	double e = cv.epoch_s[option][packed.size()];
	NodeCounts where = packed;
	take(job, where);
	pool_add(job, c.gpus, 1);
	if (record_ && t_ == in_.now_s)
		out_.now.push_back({ Action::Kind::Start, job, c.gpus, where });
	run_segment(job, option, std::move(where), e,
		    in_.jobs[job].remaining_epochs, t_ + in_.jobs[job].start_overhead_s);
	set_resizable_from(job, in_.jobs[job].resizable ? t_ : kInf);
	int i = static_cast<int>(std::lower_bound(c.pos.begin(), c.pos.end(), pos) -
				 c.pos.begin());
	c.skip[i] = i + 1;
	c.waiting--;
	waiting_--;
	waiting_by_gpus_[c.gpus]--;
}

// The fewest nodes that hold `gpus` GPUs given by_free[f] nodes with f free
// GPUs each (pack_gpus's span: fullest nodes first), or 0 if they do not.
int fewest_span(const std::vector<int> &by_free, int gpus)
{
	int need = gpus, nodes = 0;
	for (int f = static_cast<int>(by_free.size()) - 1; f >= 1 && need > 0; f--) {
		int take = std::min(by_free[f], (need + f - 1) / f);
		nodes += take;
		need -= take * f;
	}
	return need > 0 ? 0 : nodes;
}

template <typename Instant, typename Before, typename After>
bool PlanRun::walk_ends(int set, double until, Instant instant, Before before, After after)
{
	const std::vector<Event> &heap = events_.heap();
	auto later = [&](int a, int b) { return heap[a] > heap[b]; };
	release_calls_++;
	walk_.clear();
	if (!heap.empty())
		walk_.push_back(0);
	bool stopped = false, unpriced = false; // ends at `at` not yet asked about
	double at = t_;
	while (!walk_.empty()) {
		std::pop_heap(walk_.begin(), walk_.end(), later);
		const int i = walk_.back();
		walk_.pop_back();
		for (int child : { 2 * i + 1, 2 * i + 2 })
			if (child < static_cast<int>(heap.size())) {
				walk_.push_back(child);
				std::push_heap(walk_.begin(), walk_.end(), later);
			}
		const Event &ev = heap[i];
		const JobState &s = jobs_[ev.job];
		if (s.phase != JobState::Phase::Running || s.version != ev.version ||
		    ev.t != s.end_s || released_mark_[ev.job] == release_calls_)
			continue; // stale, or not its end
		if (ev.t > at && unpriced) {
			unpriced = false;
			if ((stopped = instant(at)))
				break;
		}
		if (until < kInf && !clearly_less(ev.t, until))
			break;
		at = ev.t;
		released_mark_[ev.job] = release_calls_;
		for (size_t w = 0; w < s.where.size(); w++) {
			auto [node, n] = s.where[w];
			if (set >= 0 && !std::binary_search(in_.node_sets[set].begin(),
							    in_.node_sets[set].end(), node))
				continue;
			if (released_[node] == 0)
				touched_.push_back(node);
			before(node);
			released_[node] += n;
			if (w < s.use.size()) {
				rel_cpus_[node] += s.use[w].cpus;
				rel_mem_[node] += s.use[w].mem;
			}
			after(node, n);
		}
		unpriced = true;
	}
	if (unpriced && !stopped)
		stopped = instant(at);
	for (int node : touched_) {
		released_[node] = 0;
		rel_cpus_[node] = rel_mem_[node] = 0;
	}
	touched_.clear();
	return stopped;
}

// IN job: a waiting job of `gpus` GPUs confined to node set `set` whose
// placement now spans `span` nodes, more than its count needs.
// RET whether waiting for a placement on fewer nodes ends it clearly sooner
// than starting now.  The running jobs' predicted ends are played in end
// order, each freeing its GPUs on its nodes (as if nothing else started
// meanwhile); the first end after which pack_gpus would span fewer nodes,
// on a spread with a row, is when it could start there.  O(GPUs per node +
// what the jobs ending before that hold, and a log for the heap), no
// allocation once the buffers have grown.
bool PlanRun::sooner_on_fewer_nodes(int job, int gpus, int set, int span)
{
	const std::vector<double> &e = curve(job).epoch_s[c_.option[job]];
	const double left = in_.jobs[job].remaining_epochs;
	const double now_end = t_ + left * e[span];
	const std::vector<int> &free = free_.free();
	// GPUs the job could take on a node once the ends so far released
	// theirs (and their CPUs and memory).
	auto allowed = [&](int node) {
		return fit(job, node, free[node] + released_[node], rel_cpus_[node],
			   rel_mem_[node]);
	};
	if (!need_id_[job]) {
		free_.nodes_by_free(set, by_free_);
	} else {
		by_free_.assign(static_cast<size_t>(in_.gpus_per_node) + 1, 0);
		if (set < 0)
			for (int node = 0; node < in_.nodes; node++)
				by_free_[allowed(node)]++;
		else
			for (int node : in_.node_sets[set])
				by_free_[allowed(node)]++;
	}
	// -1: no narrower placement yet; else whether it ends sooner.
	auto narrower = [&](double at) {
		int m = fewest_span(by_free_, gpus);
		if (m == 0 || m >= span || std::isnan(e[m]))
			return -1;
		return clearly_less(at + left * e[m], now_end) ? 1 : 0;
	};
	int answer = -1;
	// A start at now_end or later cannot end sooner.
	walk_ends(
		set, now_end, [&](double at) { return (answer = narrower(at)) >= 0; },
		[&](int node) { by_free_[allowed(node)]--; },
		[&](int node, int) { by_free_[allowed(node)]++; });
	return answer == 1;
}

bool PlanRun::earliest_fit(int job, int gpus, int set, double &at, NodeCounts &where,
			   NodeCounts &spare)
{
	const std::vector<double> &e = curve(job).epoch_s[c_.option[job]];
	const std::vector<int> &free = free_.free();
	// Packed on every node once its nodes have the GPUs in all (a
	// pack costs a pass over the nodes; the sum is kept as ends free
	// GPUs).
	long total = 0;
	if (set < 0)
		total = free_.total();
	else
		for (int node : in_.node_sets[set])
			total += free[node];
	std::vector<int> caps(static_cast<size_t>(in_.nodes), 0);
	auto fits = [&](double t) {
		if (total < gpus)
			return false;
		for (int node = 0; node < in_.nodes; node++)
			caps[node] = fit(job, node, free[node] + released_[node], rel_cpus_[node],
					 rel_mem_[node]);
		std::optional<NodeCounts> p = set < 0 ? pack_gpus(caps, gpus)
						      : pack_gpus(caps, gpus, in_.node_sets[set]);
		if (!p || std::isnan(e[p->size()]))
			return false;
		at = t;
		where = std::move(*p);
		spare.clear();
		for (auto [node, n] : where)
			spare.emplace_back(node, std::max(0, caps[node] - n));
		return true;
	};
	return walk_ends(
		set, kInf, fits, [](int) {}, [&](int, int n) { total += n; });
}

double PlanRun::end_if_started(int job, const NodeCounts &packed) const
{
	return t_ + in_.jobs[job].run_s(curve(job).epoch_s[c_.option[job]][packed.size()]);
}

bool PlanRun::held_off(int pos, int job, const NodeCounts &packed) const
{
	const double end = end_if_started(job, packed);
	for (const Hold &h : holds_) {
		if (h.pos >= pos || !clearly_less(h.until, end))
			continue;
		for (auto [node, n] : packed)
			for (auto [held, spare] : h.spare)
				if (node == held && n > spare)
					return true;
	}
	return false;
}

void PlanRun::take_spare(int pos, int job, const NodeCounts &packed)
{
	const double end = end_if_started(job, packed);
	for (Hold &h : holds_) {
		if (h.pos >= pos || !clearly_less(h.until, end))
			continue;
		for (auto [node, n] : packed)
			for (auto &[held, spare] : h.spare)
				if (node == held)
					spare = std::max(0, spare - n);
	}
}

// Holds per start phase at most (Candidate::reserve): the first waiting
// jobs that hold, as backfill reserves for the first it tests; each costs
// a walk of the running jobs' ends.
constexpr size_t kMaxHolds = 8;

// List scheduling: walk the waiting jobs in priority order and start each
// that fits now.  The walk goes class by class rather than job by job: a
// heap holds each class's first waiting member after the walk's position,
// and the smallest is the next job the walk would reach.  A class that
// does not fit is dropped for this phase, as starts only take GPUs: its
// GPU count or node set has too few left for good, unless its placement
// only lacked a row for its spread (may_flip), which another start can
// change; those are asked again after every start.
//
// Spreads cost time, so a job whose placement now spans more nodes than its
// count needs (ceil(gpus / gpus_per_node)) starts now only if that ends it
// no later than waiting would: until the earliest moment the running jobs'
// predicted ends (their GPUs freed on their nodes, in end order) allow a
// placement on fewer nodes whose spread has a row, plus its run there
// (sooner_on_fewer_nodes).  Otherwise it waits, and its class with it for
// this phase: a later member started on the spread would take the GPUs the
// first one waits for.  It is asked again at the next event, ahead of the
// jobs behind it in the order.  If no end frees a narrower placement it
// starts spread now, so a job never waits with nothing running.
void PlanRun::start_phase()
{
	while (min_waiting_gpus_ < static_cast<int>(waiting_by_gpus_.size()) &&
	       waiting_by_gpus_[min_waiting_gpus_] == 0)
		min_waiting_gpus_++;
	if (waiting_ == 0 || free_.total() < min_waiting_gpus_)
		return;
	using Next = std::pair<int, int>; // (position, class)
	std::priority_queue<Next, std::vector<Next>, std::greater<Next>> heap;
	// A job that holds its start is asked even when it cannot fit now:
	// its hold is what the jobs behind it must respect.
	const bool holding = !c_.reserve.empty();
	size_t keep = 0;
	for (int k : active_) {
		if (classes_[k].waiting == 0)
			continue;
		active_[keep++] = k;
		if (classes_[k].gpus <= free_.total() || holding)
			heap.push({ first_waiting_from(k, 0), k });
	}
	active_.resize(keep);
	deferred_.clear();
	holds_.clear();
	while (!heap.empty()) {
		auto [pos, k] = heap.top();
		heap.pop();
		const StartClass &c = classes_[k];
		const int job = c_.order[pos];
		// Its pools (a user's GPU limit, a license) first: a class
		// shares them, and jobs behind it in other pools may start.
		// A job its pools block holds nothing (backfill skips it).
		if (pool_sig_[job] && !pool_room(job, c.gpus))
			continue;
		const bool reserves = holding && c_.reserve[job];
		auto hold = [&] {
			Hold h{ pos, 0, {}, {} };
			if (reserves && holds_.size() < kMaxHolds &&
			    earliest_fit(job, c.gpus, c.set, h.until, h.where, h.spare))
				holds_.push_back(std::move(h));
		};
		if (c.gpus > free_.total()) {
			hold();
			continue;
		}
		const NodeCounts *packed = packed_now(c);
		if (!packed) {
			hold();
			continue;
		}
		if (std::isnan(in_.curves[c.curve].epoch_s[c.option][packed->size()])) {
			if (c.may_flip)
				deferred_.push_back(k);
			hold();
			continue;
		}
		const int span = static_cast<int>(packed->size());
		if (span > (c.gpus + in_.gpus_per_node - 1) / in_.gpus_per_node &&
		    sooner_on_fewer_nodes(job, c.gpus, c.set, span)) {
			hold();
			continue; // waits for fewer nodes
		}
		if (!holds_.empty() && held_off(pos, job, *packed)) {
			// A shorter member of its class may end in time.
			if (int p = first_waiting_from(k, pos + 1); p >= 0)
				heap.push({ p, k });
			continue;
		}
		if (!holds_.empty())
			take_spare(pos, job, *packed);
		start(k, pos, *packed);
		if (int p = first_waiting_from(k, pos + 1); p >= 0)
			heap.push({ p, k });
		for (int d : deferred_)
			if (int p = first_waiting_from(d, pos + 1); p >= 0)
				heap.push({ p, d });
		deferred_.clear();
	}
}

PlanRun::Growth PlanRun::placed_growth(int job, int option)
{
	const JobState &s = jobs_[job];
	const SpeedCurve &cv = curve(job);
	Growth g;
	// Packed as if the job's own GPUs (and CPUs and memory) were free;
	// everything returns to the same state, so cached packings stay
	// valid.
	add_resources(s.where, s.use, 1);
	bool fits = pack_job(job, cv.gpus[option], in_.jobs[job].node_set,
			     growth_where_);
	add_resources(s.where, s.use, -1);
	free_gen_ -= 2;
	if (!fits || (in_.grow_on_one_node && growth_where_.size() > 1) ||
	    !pool_room(job, cv.gpus[option], s.gpus))
		return g;
	double e = cv.epoch_s[option][growth_where_.size()];
	if (std::isnan(e))
		return g;
	g.option = option;
	g.where = growth_where_;
	g.epoch_s = e;
	g.end_s = t_ + restart_s(job) + left_at(job, t_) * e * factor_on(job, g.where);
	return g;
}

void PlanRun::resize(int job, const Growth &g)
{
	JobState &s = jobs_[job];
	double left = left_at(job, t_);
	give_back(job);
	pool_add(job, s.gpus, -1);
	take(job, g.where);
	pool_add(job, curve(job).gpus[g.option], 1);
	if (record_) {
		out_.jobs[job].segments.back().end_s = t_;
		if (t_ == in_.now_s)
			out_.now.push_back({ Action::Kind::Resize, job,
					     curve(job).gpus[g.option], g.where });
	}
	run_segment(job, g.option, g.where, g.epoch_s, left, t_ + restart_s(job));
	set_resizable_from(job, s.progress_start_s);
	if (s.resizable_from_s > t_)
		events_.push({ s.resizable_from_s, job, s.version });
}

// Growing candidates of a job: options above its current one that the idle
// GPUs can pay for, with packed time first as the cheap estimate.
bool PlanRun::grow_latest()
{
	if (by_end_.empty())
		return false;
	int latest = by_end_.rbegin()->second;
	const JobState &s = jobs_[latest];
	if (s.option < 0 || s.resizable_from_s > t_)
		return false;
	// The count that ends it soonest by packed time; placed, it may land
	// on a wider spread: then the next best, once.
	const SpeedCurve &cv = curve(latest);
	int first = -1, second = -1;
	for (size_t i = s.option + 1; i < cv.gpus.size(); i++) {
		if (cv.gpus[i] - s.gpus > free_.total())
			break;
		double e = cv.packed(i, in_.gpus_per_node);
		if (first < 0 || e < cv.packed(first, in_.gpus_per_node)) {
			second = first;
			first = static_cast<int>(i);
		} else if (second < 0 || e < cv.packed(second, in_.gpus_per_node)) {
			second = static_cast<int>(i);
		}
	}
	Growth best;
	for (int i : { first, second }) {
		if (i < 0)
			continue;
		Growth g = placed_growth(latest, i);
		if (g.option >= 0 && clearly_less(g.end_s, best.end_s))
			best = std::move(g);
		if (best.option >= 0)
			break;
	}
	if (best.option < 0 || !clearly_less(best.end_s, s.end_s))
		return false;
	resize(latest, best);
	return true;
}

// Of the job's counts from `from` on that the idle GPUs can pay for, the one
// whose packed time ends it soonest, or if it cannot be placed (no room on
// the spreads its curve has, or on one node) the next soonest that can.
// One job only competes here: its counts are few and placing each is cheap.
PlanRun::Growth PlanRun::soonest_growth(int job, int from)
{
	const JobState &s = jobs_[job];
	const SpeedCurve &cv = curve(job);
	std::vector<int> options;
	for (size_t i = from; i < cv.gpus.size(); i++) {
		if (cv.gpus[i] - s.gpus > free_.total())
			break;
		options.push_back(static_cast<int>(i));
	}
	std::stable_sort(options.begin(), options.end(), [&](int a, int b) {
		return cv.packed(a, in_.gpus_per_node) < cv.packed(b, in_.gpus_per_node);
	});
	for (int i : options) {
		Growth g = placed_growth(job, i);
		if (g.option >= 0 && clearly_less(g.end_s, s.end_s))
			return g;
	}
	return Growth{};
}

// The growths a job could make now, by packed estimate: completion time
// saved per added GPU for each larger count the idle GPUs can pay for.
void PlanRun::weigh(int job, Weighed &w) const
{
	const JobState &s = jobs_[job];
	const SpeedCurve &cv = curve(job);
	const double left = left_at(job, t_);
	w.job = job;
	w.first_option = s.option + 1;
	w.gain.clear();
	w.best = -kInf;
	for (size_t i = s.option + 1; i < cv.gpus.size(); i++) {
		int add = cv.gpus[i] - s.gpus;
		if (add > free_.total())
			break;
		double end = t_ + restart_s(job) + left * cv.packed(i, in_.gpus_per_node);
		w.gain.push_back((s.end_s - end) / add);
		w.best = std::max(w.best, w.gain.back());
	}
}

// The kReuseCandidates growable jobs that end last are weighed; the best
// gain per GPU among them is placed, and if placing fails the job is
// blocked until the next event and the next job in end order takes its
// place.  Nothing else changes while jobs are blocked, so the others'
// weights are kept rather than computed again (a tail of thousands of
// fragmented jobs blocks dozens per event).
bool PlanRun::grow_best_per_gpu()
{
	// window_[0..used) in end order, latest first; blocked entries are
	// marked dead (job -1) and replaced by the next job in end order.
	// growable_ does not change until this returns, so `next` stays valid.
	size_t used = 0, live = 0;
	auto next = growable_.end();
	auto fill = [&] {
		while (live < kReuseCandidates && next != growable_.begin()) {
			--next;
			if (is_blocked_[next->second])
				continue;
			if (used == window_.size())
				window_.emplace_back();
			weigh(next->second, window_[used++]);
			live++;
		}
	};
	fill();
	for (;;) {
		int best = -1, best_option = -1;
		double best_gain = 0;
		for (size_t k = 0; k < used; k++) {
			const Weighed &w = window_[k];
			if (w.job < 0 || !(w.best > best_gain * (1 + 1e-12) + 1e-12))
				continue; // blocked, or none of its gains would be taken
			for (size_t i = 0; i < w.gain.size(); i++)
				if (w.gain[i] > best_gain * (1 + 1e-12) + 1e-12) {
					best_gain = w.gain[i];
					best = static_cast<int>(k);
					best_option = w.first_option + static_cast<int>(i);
				}
		}
		if (best < 0)
			return false;
		int job = window_[best].job;
		// Gain per GPU shares idle GPUs between jobs that compete for
		// them; a job that competes with none grows to the count that
		// ends it soonest (a growth pays a restart: GPUs it leaves now
		// would idle until it is resizable again).
		int competing = 0;
		for (size_t k = 0; k < used; k++)
			competing += window_[k].job >= 0 && window_[k].best > 0;
		Growth g = competing == 1 ? soonest_growth(job, best_option)
					  : placed_growth(job, best_option);
		if (g.option >= 0 && clearly_less(g.end_s, jobs_[job].end_s)) {
			resize(job, g);
			return true;
		}
		// Fragmented, or no row for the spread it would get: this job
		// waits for the next event (trying its every other count here
		// made plans for big clusters cost seconds).
		is_blocked_[job] = 1; // not this pass
		blocked_.push_back(job);
		window_[best].job = -1;
		live--;
		fill();
	}
}

void PlanRun::reuse_phase()
{
	if (!in_.reuse || waiting_ > 0 || free_.total() == 0)
		return;
	if (!tail_)
		enter_tail();
	if (in_.objective == Objective::Makespan)
		while (free_.total() > 0 && grow_latest()) {
		}
	while (free_.total() > 0 && grow_best_per_gpu()) {
	}
	for (int job : blocked_)
		is_blocked_[job] = 0;
	blocked_.clear();
}

void PlanRun::finish(int job)
{
	JobState &s = jobs_[job];
	s.phase = JobState::Phase::Done;
	if (tail_) {
		by_end_.erase({ s.end_s, job });
		growable_.erase({ s.end_s, job });
	}
	give_back(job);
	pool_add(job, s.gpus, -1);
	out_.makespan_s = std::max(out_.makespan_s, s.end_s);
	out_.sum_jct_s += s.end_s - in_.jobs[job].submit_s;
	const double bound_end = std::max(s.firm_end_s, s.solo_end_s);
	if (!in_.deadline_s.empty() && !in_.jobs[job].running &&
	    clearly_less(in_.deadline_s[job], bound_end)) {
		out_.late++;
		out_.late_s += bound_end - in_.deadline_s[job];
		if (record_)
			out_.late_jobs.emplace_back(job, bound_end - in_.deadline_s[job]);
	}
}

Outcome PlanRun::run(double give_up_after)
{
	t_ = in_.now_s;
	out_.makespan_s = in_.now_s;
	int max_gpus = 0;
	for (const SpeedCurve &cv : in_.curves)
		if (!cv.gpus.empty())
			max_gpus = std::max(max_gpus, cv.gpus.back());
	waiting_by_gpus_.assign(static_cast<size_t>(max_gpus) + 1, 0);
	for (int job : c_.order) {
		waiting_by_gpus_[curve(job).gpus[c_.option[job]]]++;
		waiting_++;
	}
	build_classes();
	add_running_inputs();
	for (;;) {
		start_phase();
		reuse_phase();
		// Next event: a completion or the end of a restart overhead.
		bool any = false;
		while (!events_.empty()) {
			const Event &e = events_.top();
			if (jobs_[e.job].phase == JobState::Phase::Running &&
			    jobs_[e.job].version == e.version) {
				any = true;
				break;
			}
			events_.pop();
		}
		if (!any)
			break;
		t_ = events_.top().t;
		if (clearly_less(give_up_after, t_)) {
			out_.gave_up = true;
			return std::move(out_);
		}
		while (!events_.empty() && events_.top().t <= t_) {
			Event e = events_.top();
			events_.pop();
			JobState &s = jobs_[e.job];
			if (s.phase != JobState::Phase::Running || s.version != e.version)
				continue; // stale
			if (s.end_s <= t_)
				finish(e.job);
			else
				refresh_growable(e.job); // its restart overhead ended
		}
	}
	// Pending jobs the candidate left out never fit their node set.
	int pending = 0;
	for (const PlanJob &pj : in_.jobs)
		pending += !pj.running;
	out_.unplaced = waiting_ + pending - static_cast<int>(c_.order.size());
	return std::move(out_);
}

} // namespace

std::vector<int> pool_signatures(const PlanInput &in)
{
	std::vector<int> sig(in.jobs.size(), 0);
	if (in.pool_capacity.empty())
		return sig;
	std::map<std::vector<std::tuple<int, double, double>>, int> ids;
	for (size_t j = 0; j < in.jobs.size(); j++) {
		std::vector<std::tuple<int, double, double>> key;
		for (const PoolUse &u : in.jobs[j].pools)
			key.emplace_back(u.pool, u.per_gpu, u.per_job);
		if (key.empty())
			continue;
		std::sort(key.begin(), key.end());
		sig[j] = ids.emplace(std::move(key), static_cast<int>(ids.size()) + 1).first->second;
	}
	return sig;
}

Outcome simulate_plan(const PlanInput &in, const Candidate &c, bool record,
		      double give_up_after)
{
	return PlanRun(in, c, record).run(give_up_after);
}

bool fits_when_idle(const PlanInput &in, const SpeedCurve &cv, size_t option,
		    int set, const NodeNeed &need)
{
	std::vector<int> all(in.nodes);
	for (int n = 0; n < in.nodes; n++)
		all[n] = in.has_resources() ? in.fit_on(need, n, in.capacity(n),
							in.node_cpus[n], in.node_mem[n])
					    : in.capacity(n);
	auto where = set < 0 ? pack_gpus(all, cv.gpus[option])
			     : pack_gpus(all, cv.gpus[option], in.node_sets[set]);
	return where && !std::isnan(cv.epoch_s[option][where->size()]);
}

} // namespace planner
} // namespace omru
