// omru_ga_groups.cpp - omru-ga (the baseline planner of the OMRU paper) for an
// offline batch of training jobs (every job submitted at 0).  A genetic
// algorithm chooses which jobs run together; GPU counts follow from a greedy
// rule; GPUs that would idle until the next group are reused.
//
// A chromosome gives each job a group number.  Groups run one after another:
// group k starts when every job of group k-1 is done (a barrier).  When a
// group starts, its jobs get GPU counts greedily, from their remaining epochs:
// each starts at its smallest usable count (a profiled count in [gpus_min,
// gpus_max] with a packed row), then spare GPUs go one step at a time (to the
// next usable count) to the job that currently runs longest; a job whose next
// count is not faster (the T4 profiles are non-monotone), or does not fit in
// the spare GPUs, is saturated and the next longest gets them, until no job
// can take more.  Jobs are placed largest count first (placement.hpp); one
// that does not fit at its count takes the largest smaller count that does.
//
// GPU reuse: while group k runs with all its jobs started, idle GPUs run
// epochs of group k+1's jobs, longest remaining time first, each at the
// fastest count that can be placed on them, as long as group k still has
// more than the restart overhead to run.  At the barrier such a job keeps
// running if group k+1's allotment gives it the count it has; otherwise it is
// stopped and restarted at its allotment, paying the restart overhead.
//
#include "policy/omru_ga_groups.hpp"

#include <algorithm>
#include <limits>
#include <tuple>

#include "policy/usable_counts.hpp"

namespace omru {
namespace ga {

using State = JobProgress::State;

constexpr double kInf = std::numeric_limits<double>::infinity();

Batch::Batch(const Cluster &c, const ProfileTable &p, const Workload &w)
	: gpus(c.total_gpus()), counts(w.jobs.size()), epoch_s(w.jobs.size())
{
	for (size_t i = 0; i < w.jobs.size(); i++) {
		UsableCounts u = usable_counts(p, c, w.jobs[i]);
		counts[i] = std::move(u.gpus);
		epoch_s[i] = std::move(u.epoch_s);
	}
}

bool Batch::runnable() const
{
	return std::none_of(counts.begin(), counts.end(),
			    [](const auto &c) { return c.empty(); });
}

std::vector<int> allot(const Batch &b, const std::vector<int> &jobs,
		       const std::vector<double> &left_epochs)
{
	const size_t n = jobs.size();
	std::vector<size_t> at(n, 0); // index into the job's usable counts
	std::vector<bool> saturated(n, false);
	int spare = b.gpus;
	for (int j : jobs)
		spare -= b.smallest(j);
	for (;;) {
		size_t longest = n;
		double longest_s = -1;
		for (size_t i = 0; i < n; i++) {
			double t = left_epochs[i] * b.epoch_s[jobs[i]][at[i]];
			if (!saturated[i] && t > longest_s) {
				longest = i;
				longest_s = t;
			}
		}
		if (longest == n)
			break;
		const std::vector<int> &cs = b.counts[jobs[longest]];
		const std::vector<double> &es = b.epoch_s[jobs[longest]];
		size_t k = at[longest];
		if (k + 1 < cs.size() && cs[k + 1] - cs[k] <= spare &&
		    es[k + 1] < es[k]) {
			spare -= cs[k + 1] - cs[k];
			at[longest]++;
		} else {
			saturated[longest] = true;
		}
	}
	std::vector<int> g(n);
	for (size_t i = 0; i < n; i++)
		g[i] = b.counts[jobs[i]][at[i]];
	return g;
}

namespace {

// Executes one normalised chromosome: barriers, greedy counts, reuse.
class Runner final : public Policy {
    public:
	Runner(const Batch &b, const Chromosome &group)
		: b_(b), count_(group.size(), 0)
	{
		for (size_t j = 0; j < group.size(); j++) {
			if (group[j] >= static_cast<int>(members_.size()))
				members_.resize(group[j] + 1);
			members_[group[j]].push_back(static_cast<int>(j));
		}
	}

	void schedule(SchedulingContext &ctx) override
	{
		const int groups = static_cast<int>(members_.size());
		while (cur_ < groups && (cur_ < 0 || done(ctx, cur_)))
			if (++cur_ < groups)
				begin_group(ctx);
		if (cur_ >= groups)
			return;
		for (size_t i = 0; i < stopping_.size();) {
			int j = stopping_[i];
			if (ctx.progress(j).state == State::Running &&
			    ctx.in_restart_overhead(j)) {
				i++;
				continue;
			}
			ctx.stop(j);
			stopping_.erase(stopping_.begin() + i);
		}
		start_group(ctx);
		reuse(ctx);
	}

    private:
	bool done(const SchedulingContext &ctx, int group) const
	{
		for (int j : members_[group])
			if (ctx.progress(j).state != State::Done)
				return false;
		return true;
	}

	// The barrier: counts for the group's jobs from their remaining
	// epochs; reuse segments at another count are stopped.
	void begin_group(SchedulingContext &ctx)
	{
		std::vector<int> jobs;
		std::vector<double> left;
		for (int j : members_[cur_])
			if (ctx.progress(j).state != State::Done) {
				jobs.push_back(j);
				left.push_back(ctx.remaining_epochs(j));
			}
		std::vector<int> g = allot(b_, jobs, left);
		std::vector<std::tuple<int, double, int>> order;
		for (size_t i = 0; i < jobs.size(); i++) {
			int j = jobs[i];
			count_[j] = g[i];
			const JobProgress &p = ctx.progress(j);
			if (p.state == State::Running) {
				if (p.gpus == g[i])
					continue; // keeps running, no restart
				if (ctx.in_restart_overhead(j)) {
					// stop() refuses until the overhead ends
					stopping_.push_back(j);
					ctx.wake_at(p.progress_start_s);
				} else {
					ctx.stop(j);
				}
			}
			size_t k = std::find(b_.counts[j].begin(), b_.counts[j].end(),
					     g[i]) - b_.counts[j].begin();
			order.emplace_back(-g[i], -left[i] * b_.epoch_s[j][k], j);
		}
		std::sort(order.begin(), order.end());
		order_.clear();
		for (const auto &o : order)
			order_.push_back(std::get<2>(o));
	}

	// Starts the current group's pending jobs, largest count first.
	void start_group(SchedulingContext &ctx)
	{
		for (int j : order_) {
			if (ctx.progress(j).state != State::Pending ||
			    start_packed(ctx, j, count_[j]))
				continue;
			if (!stopping_.empty())
				return; // wait for the GPUs of the jobs being stopped
			const std::vector<int> &cs = b_.counts[j];
			for (auto g = cs.rbegin(); g != cs.rend(); ++g)
				if (*g < count_[j] && start_packed(ctx, j, *g))
					break;
		}
	}

	// Idle GPUs run the next group's longest jobs until the barrier.
	void reuse(SchedulingContext &ctx)
	{
		if (cur_ + 1 >= static_cast<int>(members_.size()) ||
		    !stopping_.empty() || ctx.free_gpus() == 0)
			return;
		double left_s = 0;
		for (int j : members_[cur_]) {
			const JobProgress &p = ctx.progress(j);
			if (p.state == State::Pending)
				return; // the group's own jobs come first
			if (p.state == State::Running)
				left_s = std::max(left_s, p.end_s - ctx.now_s());
		}
		if (left_s <= ctx.restart_overhead_s())
			return;
		std::vector<std::pair<double, int>> next;
		for (int j : members_[cur_ + 1])
			if (ctx.progress(j).state == State::Pending)
				next.emplace_back(-ctx.remaining_epochs(j) * b_.epoch_s[j][0], j);
		std::sort(next.begin(), next.end());
		const Workload &w = ctx.workload();
		for (const auto &[key, j] : next) {
			int free = ctx.free_gpus();
			if (free == 0)
				return;
			// The fastest count placeable on the idle GPUs (fewer
			// GPUs on a tie).
			std::optional<NodeCounts> best;
			double best_s = kInf;
			for (int g : b_.counts[j]) {
				if (g > free)
					break;
				auto where = place_job(ctx, j, g);
				if (!where)
					continue;
				double e = *ctx.profiles().epoch_s(
					w.jobs[j].model, g, static_cast<int>(where->size()));
				if (e < best_s) {
					best = std::move(where);
					best_s = e;
				}
			}
			if (best)
				ctx.start(j, *best);
		}
	}

	const Batch &b_;
	std::vector<std::vector<int>> members_; // per group, ascending job
	std::vector<int> count_;    // per job: allotment, once its group began
	std::vector<int> order_;    // the current group's jobs in start order
	std::vector<int> stopping_; // reuse jobs to stop after their overhead
	int cur_ = -1;              // the running group
};

} // namespace

std::unique_ptr<Policy> make_group_runner(const Batch &b, const Chromosome &groups)
{
	return std::make_unique<Runner>(b, groups);
}

} // namespace ga
} // namespace omru
