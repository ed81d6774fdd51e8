// simulator.cpp - see simulator.hpp.
#include "sim/simulator.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <queue>

namespace omru {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

class Simulation final : public SchedulingContext {
    public:
	Simulation(const Cluster &c, const ProfileTable &p, const Workload &w,
		   const SimOptions &o)
		: cluster_(c), profiles_(p), workload_(w), opts_(o),
		  progress_(w.jobs.size()), free_(c.nodes, c.gpus_per_node),
		  slot_busy_(static_cast<size_t>(c.total_gpus()), false),
		  node_free_(static_cast<size_t>(c.gpus_per_node), false),
		  starts_(w.jobs.size(), 0), site_(c, w)
	{
		for (int n = 0; n < c.nodes; n++)
			free_[n] = c.gpus_of(n);
		if (o.interference && !o.interference->empty())
			intern_kinds();
	}

	SimResult run(Policy &policy);

	double now_s() const override { return now_; }
	const Cluster &cluster() const override { return cluster_; }
	const ProfileTable &profiles() const override { return profiles_; }
	const Workload &workload() const override { return workload_; }
	double restart_overhead_s() const override
	{
		return opts_.restart_overhead_s;
	}
	const std::vector<int> &pending() const override { return pending_; }
	const std::vector<int> &running() const override { return running_; }
	const JobProgress &progress(int job) const override
	{
		return progress_[job];
	}
	const std::vector<int> &free_gpus_per_node() const override
	{
		return free_;
	}
	const SiteUsage &site() const override { return site_; }
	bool start(int job, const NodeCounts &where) override;
	bool stop(int job) override;
	void wake_at(double t) override
	{
		if (t > now_ && std::isfinite(t))
			wakes_.push(t);
	}

    private:
	struct Completion {
		double t;
		int job;
		unsigned start; // starts_[job] when scheduled
		bool operator>(const Completion &o) const
		{
			return t > o.t || (t == o.t && job > o.job);
		}
	};

	void close_segment(int job, double epochs);
	// Interference (SimOptions::interference): each job's model as an
	// index into slow_, the jobs on each node, the factor on a job's time
	// alone from the others on its nodes now, and pricing the jobs beside
	// `job` again from now.
	void intern_kinds();
	double factor(int job);
	void reprice_neighbours(int job);
	// f(r) for each distinct other job r on job's nodes now.
	template <typename F> void each_neighbour(int job, F f)
	{
		const unsigned long call = ++marks_;
		for (int g : progress_[job].gpu_ids)
			for (int r : on_node_[cluster_.node_of(g)])
				if (r != job && mark_[r] != call) {
					mark_[r] = call;
					f(r);
				}
	}
	NodeCounts where_of(const JobProgress &p) const;
	double next_event() ;
	static void insert_sorted(std::vector<int> &v, int x)
	{
		v.insert(std::lower_bound(v.begin(), v.end(), x), x);
	}
	static void erase_sorted(std::vector<int> &v, int x)
	{
		v.erase(std::lower_bound(v.begin(), v.end(), x));
	}

	const Cluster &cluster_;
	const ProfileTable &profiles_;
	const Workload &workload_;
	const SimOptions &opts_;
	double now_ = 0;
	std::vector<JobProgress> progress_;
	std::vector<int> pending_, running_, free_;
	std::vector<bool> slot_busy_;
	std::vector<bool> node_free_; // start()'s scratch: one node's free slots
	std::vector<unsigned> starts_; // per job, tells stale completions apart
	size_t next_arrival_ = 0, done_ = 0;
	std::priority_queue<Completion, std::vector<Completion>,
			    std::greater<Completion>> completions_;
	std::priority_queue<double, std::vector<double>, std::greater<double>> wakes_;
	Schedule schedule_;
	SiteUsage site_;
	std::vector<int> kind_;
	std::vector<std::vector<double>> slow_;
	std::vector<std::vector<int>> on_node_;
	std::vector<unsigned long> mark_;
	unsigned long marks_ = 0;
};

void Simulation::intern_kinds()
{
	std::vector<std::string> models;
	std::map<int, int> ids; // profiles' model id -> kind
	kind_.resize(workload_.jobs.size());
	for (size_t j = 0; j < workload_.jobs.size(); j++) {
		auto [it, added] = ids.emplace(workload_.jobs[j].model,
					       static_cast<int>(models.size()));
		if (added)
			models.push_back(profiles_.model_name(workload_.jobs[j].model));
		kind_[j] = it->second;
	}
	slow_ = opts_.interference->matrix(models);
	on_node_.assign(cluster_.nodes, {});
	mark_.assign(workload_.jobs.size(), 0);
}

double Simulation::factor(int job)
{
	if (kind_.empty())
		return 1;
	double excess = 0;
	each_neighbour(job, [&](int r) { excess += slow_[kind_[job]][kind_[r]] - 1; });
	return combined_slowdown(excess);
}

void Simulation::reprice_neighbours(int job)
{
	if (kind_.empty())
		return;
	// Collected first: factor() reuses the marks.
	std::vector<int> others;
	each_neighbour(job, [&](int r) { others.push_back(r); });
	for (int r : others) {
		JobProgress &p = progress_[r];
		double e = p.solo_epoch_s * factor(r);
		if (e == p.epoch_s)
			continue;
		// The epochs done so far stay done: the progress start moves
		// so that (now - progress_start) / epoch_s still counts them.
		if (now_ > p.progress_start_s)
			p.progress_start_s = now_ - (now_ - p.progress_start_s) / p.epoch_s * e;
		p.epoch_s = e;
		p.end_s = p.progress_start_s + (workload_.jobs[r].epochs - p.epochs_done) * e;
		completions_.push({ p.end_s, r, ++starts_[r] });
	}
}

NodeCounts Simulation::where_of(const JobProgress &p) const
{
	NodeCounts where;
	for (int g : p.gpu_ids) { // node by node, ascending
		int node = cluster_.node_of(g);
		if (where.empty() || where.back().first != node)
			where.emplace_back(node, 0);
		where.back().second++;
	}
	return where;
}

bool Simulation::start(int job, const NodeCounts &where)
{
	if (job < 0 || static_cast<size_t>(job) >= progress_.size() ||
	    progress_[job].state != JobProgress::State::Pending)
		return false;
	const Job &j = workload_.jobs[job];
	int gpus = 0;
	for (size_t i = 0; i < where.size(); i++) {
		auto [node, count] = where[i];
		if (node < 0 || node >= cluster_.nodes || count < 1 ||
		    count > free_[node] || (i && node <= where[i - 1].first))
			return false;
		gpus += count;
	}
	if (gpus < j.gpus_min || gpus > j.gpus_max)
		return false;
	// What slurmctld and cons_tres would refuse: the user's GPU limit, a
	// license in use, a node off the job's list or without its CPUs and
	// memory free.
	if (site_.active()) {
		if (!site_.admits(job, gpus))
			return false;
		for (auto [node, count] : where)
			if (count > site_.fit_on(job, node, free_[node]))
				return false;
	}
	auto epoch_s = profiles_.epoch_s(j.model, gpus, static_cast<int>(where.size()));
	if (!epoch_s)
		return false;

	JobProgress &p = progress_[job];
	p.gpu_ids.clear();
	for (auto [node, count] : where) {
		free_[node] -= count;
		int base = cluster_.first_gpu(node);
		node_free_.resize(cluster_.gpus_of(node));
		for (int s = 0; s < cluster_.gpus_of(node); s++)
			node_free_[s] = !slot_busy_[base + s];
		const GpuLinks *links = opts_.node_links.empty()
						? opts_.gpu_links
						: opts_.node_links[node].get();
		// count <= free_[node], so select_gpus always finds the slots.
		for (int s : select_gpus(links, node_free_, count)) {
			slot_busy_[base + s] = true;
			p.gpu_ids.push_back(base + s);
		}
	}
	site_.take(job, where);
	p.state = JobProgress::State::Running;
	p.gpus = gpus;
	p.nodes = static_cast<int>(where.size());
	p.segment_start_s = now_;
	p.progress_start_s = now_ + (p.segments > 0 ? opts_.restart_overhead_s : 0);
	p.solo_epoch_s = *epoch_s;
	if (!kind_.empty())
		for (auto [node, count] : where)
			on_node_[node].push_back(job);
	p.epoch_s = *epoch_s * factor(job);
	p.end_s = p.progress_start_s + (j.epochs - p.epochs_done) * p.epoch_s;
	p.segments++;
	erase_sorted(pending_, job);
	insert_sorted(running_, job);
	completions_.push({ p.end_s, job, ++starts_[job] });
	reprice_neighbours(job);
	return true;
}

void Simulation::close_segment(int job, double epochs)
{
	JobProgress &p = progress_[job];
	if (now_ > p.segment_start_s) {
		Segment s;
		s.job = job;
		s.start_s = p.segment_start_s;
		s.end_s = now_;
		s.epochs = epochs;
		s.gpu_ids = p.gpu_ids;
		for (int g : p.gpu_ids)
			s.nodes.push_back(cluster_.node_of(g));
		std::sort(s.nodes.begin(), s.nodes.end());
		schedule_.push_back(std::move(s));
	} else {
		p.segments--; // nothing ran: forget the segment
	}
	p.epochs_done += epochs;
	p.gpu_seconds += p.gpus * (now_ - p.segment_start_s);
	site_.give_back(job, where_of(p));
	if (!kind_.empty()) {
		for (auto [node, count] : where_of(p)) {
			std::vector<int> &on = on_node_[node];
			if (auto it = std::find(on.begin(), on.end(), job); it != on.end())
				on.erase(it);
		}
		reprice_neighbours(job);
	}
	for (int g : p.gpu_ids) {
		slot_busy_[g] = false;
		free_[cluster_.node_of(g)]++;
	}
	p.gpu_ids.clear();
	p.gpus = p.nodes = 0;
	erase_sorted(running_, job);
}

bool Simulation::stop(int job)
{
	if (job < 0 || static_cast<size_t>(job) >= progress_.size() ||
	    progress_[job].state != JobProgress::State::Running ||
	    in_restart_overhead(job))
		return false;
	JobProgress &p = progress_[job];
	double left = workload_.jobs[job].epochs - p.epochs_done;
	double epochs = std::min(left, (now_ - p.progress_start_s) / p.epoch_s);
	close_segment(job, std::max(0.0, epochs));
	p.state = JobProgress::State::Pending;
	insert_sorted(pending_, job);
	return true; // the queued completion is now stale (starts_)
}

double Simulation::next_event()
{
	double t = kInf;
	if (next_arrival_ < workload_.jobs.size())
		t = workload_.jobs[next_arrival_].submit_s;
	while (!completions_.empty()) {
		const Completion &c = completions_.top();
		const JobProgress &p = progress_[c.job];
		if (p.state == JobProgress::State::Running &&
		    starts_[c.job] == c.start)
			break;
		completions_.pop(); // stale: the job was stopped since
	}
	if (!completions_.empty())
		t = std::min(t, completions_.top().t);
	if (!wakes_.empty())
		t = std::min(t, wakes_.top());
	return t;
}

SimResult Simulation::run(Policy &policy)
{
	using clock = std::chrono::steady_clock;
	clock::duration in_policy{};
	const size_t n = workload_.jobs.size();
	while (done_ < n) {
		double t = next_event();
		if (!std::isfinite(t)) {
			std::string stuck;
			for (size_t i = 0; i < pending_.size() && i < 5; i++)
				stuck += (i ? ", " : "") + workload_.jobs[pending_[i]].id;
			throw SimStuck(std::to_string(pending_.size()) +
				       " job(s) never started (" + stuck +
				       (pending_.size() > 5 ? ", ..." : "") +
				       "): nothing is running and the policy started nothing");
		}
		now_ = t;
		bool completed = false;
		while (!completions_.empty() && completions_.top().t <= now_) {
			Completion c = completions_.top();
			completions_.pop();
			JobProgress &p = progress_[c.job];
			if (p.state != JobProgress::State::Running ||
			    starts_[c.job] != c.start)
				continue;
			close_segment(c.job, workload_.jobs[c.job].epochs - p.epochs_done);
			p.state = JobProgress::State::Done;
			done_++;
			completed = true;
		}
		while (next_arrival_ < n &&
		       workload_.jobs[next_arrival_].submit_s <= now_) {
			progress_[next_arrival_].state = JobProgress::State::Pending;
			pending_.push_back(static_cast<int>(next_arrival_++));
		}
		while (!wakes_.empty() && wakes_.top() <= now_)
			wakes_.pop();
		if (completed && opts_.on_progress)
			opts_.on_progress(done_, n);
		if (done_ == n)
			break;
		auto t0 = clock::now();
		policy.schedule(*this);
		in_policy += clock::now() - t0;
	}
	SimResult r;
	r.schedule = std::move(schedule_);
	r.plan_ms = std::chrono::duration<double, std::milli>(in_policy).count();
	return r;
}

} // namespace

SimResult simulate(const Cluster &c, const ProfileTable &p, const Workload &w,
		   Policy &policy, const SimOptions &opts)
{
	if (opts.gpu_links && !opts.node_links.empty())
		throw std::invalid_argument(
			"GPU links given twice: one matrix for every node "
			"(gpu_links) and one per node (node_links); give one");
	if (opts.gpu_links && !c.uniform())
		throw std::invalid_argument(
			"a GPU link matrix is for identical nodes; the cluster " +
			format_cluster(c) + " has nodes of different sizes");
	if (opts.gpu_links && opts.gpu_links->size() != c.gpus_per_node)
		throw std::invalid_argument(
			"GPU link matrix is for " + std::to_string(opts.gpu_links->size()) +
			" GPUs per node, the cluster has " +
			std::to_string(c.gpus_per_node));
	if (!opts.node_links.empty() &&
	    opts.node_links.size() != static_cast<size_t>(c.nodes))
		throw std::invalid_argument(
			"GPU link matrices for " + std::to_string(opts.node_links.size()) +
			" nodes, the cluster has " + std::to_string(c.nodes));
	for (size_t n = 0; n < opts.node_links.size(); n++) {
		const GpuLinks *g = opts.node_links[n].get();
		if (g && g->size() != c.gpus_of(static_cast<int>(n)))
			throw std::invalid_argument(
				"GPU link matrix of node " + std::to_string(n) +
				" is for " + std::to_string(g->size()) +
				" GPUs, the node has " +
				std::to_string(c.gpus_of(static_cast<int>(n))));
	}
	Simulation sim(c, p, w, opts);
	return sim.run(policy);
}

} // namespace omru
