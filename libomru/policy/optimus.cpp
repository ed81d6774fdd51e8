// optimus.cpp - moldable, after Optimus (Peng et al., EuroSys'18): the GPUs
// go, a step at a time, to the job whose completion time they shorten most
// per GPU.  Optimus fits a speed model online; here the profiles' epoch time
// for the packed spread is the speed estimate, and a job only ever runs at a
// GPU count in [gpus_min, gpus_max] that has a profile row (its usable
// counts).
//
// At every event the active jobs, running and waiting, are planned afresh:
// 1. Jobs still paying their restart overhead cannot be stopped; they keep
//    their GPUs, which leave the pool.
// 2. In submission order, each other job gets its smallest usable count
//    while the pool holds it; a job that gets nothing waits.
// 3. Repeatedly, the job with the largest gain per GPU goes from its count g
//    to a larger usable count g': the gain is remaining epochs x
//    (epoch_s(g) - epoch_s(g')) seconds of its completion time, divided by
//    the g' - g GPUs that costs.  Only positive gains that the pool can pay
//    for; ties go to the earlier job and the smaller step.  Every larger
//    count is looked at, not only the next: Optimus adds one task at a time
//    to a speed curve that is smooth, but measured curves are not (on the T4
//    profiles 5 GPUs are slower than 4 for three models, the fifth GPU
//    spanning a second node), and stopping at the first dip would leave
//    these jobs at 4 GPUs however many are idle.
// 4. Growing a running job means stopping it and restarting it bigger, which
//    costs the restart overhead; a job whose growth saves no more than that
//    is held at its current count and steps 2-3 run again with it held, so
//    the GPUs it declined go to others.
// The plan is then applied: running jobs planned smaller (or at nothing) are
// stopped first, since their GPUs are promised to others; running jobs whose
// count does not change keep their GPUs; then, from the largest planned
// count down (equal counts in submission order), waiting jobs start and
// growing jobs restart, packed.  When the free GPUs are too fragmented for
// the planned count (or the spread has no profile row), the next smaller
// usable count is tried, down to the smallest for a waiting job and down to
// one above its current count for a growing job; a job that cannot be placed
// waits for the next event (a growing one keeps running as it is).  While
// jobs wait, the policy also asks to be woken when a restart overhead ends,
// so a plan held back by a job that could not be stopped is redone then.
#include <algorithm>
#include <optional>
#include <utility>

#include "policy/policy.hpp"
#include "policy/registry.hpp"
#include "policy/usable_counts.hpp"

namespace omru {
namespace {

class Optimus final : public Policy {
    public:
	std::string refuse(const Workload &w, const ProfileTable &p,
			   const Cluster &c) const override
	{
		return refuse_unrunnable_moldable(w, p, c);
	}

	void schedule(SchedulingContext &ctx) override
	{
		plan(ctx);
		apply(ctx);
		request_wakeups(ctx);
	}

    private:
	struct Entry {
		int job = -1;
		std::vector<int> counts;     // usable GPU counts, ascending
		std::vector<double> epoch_s; // packed estimate per count
		double remaining_epochs = 0;
		int current = 0;    // GPUs held now (0: waiting)
		bool held = false;  // keeps `current`: in overhead, or declined
		int level = -1;     // planned index into counts; -1: nothing
		int target() const
		{
			return held ? current : level < 0 ? 0 : counts[level];
		}
	};

	// Every active job, in submission order, with its usable counts.
	void collect(const SchedulingContext &ctx)
	{
		const Workload &w = ctx.workload();
		const ProfileTable &p = ctx.profiles();
		const Cluster &c = ctx.cluster();
		std::vector<int> active = ctx.running();
		active.insert(active.end(), ctx.pending().begin(), ctx.pending().end());
		std::sort(active.begin(), active.end());
		jobs_.clear();
		for (int job : active) {
			Entry e;
			e.job = job;
			UsableCounts u = usable_counts(p, c, w.jobs[job]);
			e.counts = std::move(u.gpus);
			e.epoch_s = std::move(u.epoch_s);
			e.remaining_epochs = ctx.remaining_epochs(job);
			const JobProgress &pr = ctx.progress(job);
			if (pr.state == JobProgress::State::Running) {
				e.current = pr.gpus;
				e.held = ctx.in_restart_overhead(job);
			}
			jobs_.push_back(std::move(e));
		}
	}

	// Steps 2 and 3 for the jobs not held.
	void allocate(int total_gpus)
	{
		int pool = total_gpus;
		for (const Entry &e : jobs_)
			if (e.held)
				pool -= e.current;
		for (Entry &e : jobs_) {
			e.level = -1;
			if (!e.held && !e.counts.empty() && e.counts[0] <= pool) {
				e.level = 0;
				pool -= e.counts[0];
			}
		}
		for (;;) {
			Entry *best = nullptr;
			int best_level = -1;
			double best_gain = 0;
			for (Entry &e : jobs_) {
				if (e.held || e.level < 0)
					continue;
				for (int k = e.level + 1;
				     k < static_cast<int>(e.counts.size()); k++) {
					int cost = e.counts[k] - e.counts[e.level];
					if (cost > pool)
						break; // counts ascend: so do costs
					double gain = e.remaining_epochs *
						      (e.epoch_s[e.level] - e.epoch_s[k]) /
						      cost;
					if (gain > best_gain) { // ties: earlier job, smaller step
						best = &e;
						best_level = k;
						best_gain = gain;
					}
				}
			}
			if (!best)
				return;
			pool -= best->counts[best_level] - best->counts[best->level];
			best->level = best_level;
		}
	}

	// Seconds saved by running the rest of `e` on `gpus` instead of its
	// current count.
	static double saving_s(const SchedulingContext &ctx, const Entry &e, int gpus)
	{
		const Job &j = ctx.workload().jobs[e.job];
		const ProfileTable &p = ctx.profiles();
		auto now = p.packed_epoch_s(j.model, e.current, ctx.cluster());
		auto then = p.packed_epoch_s(j.model, gpus, ctx.cluster());
		if (!then)
			return 0;
		double before = now ? *now : ctx.progress(e.job).epoch_s;
		return e.remaining_epochs * (before - *then);
	}

	static bool worth_growing(const SchedulingContext &ctx, const Entry &e,
				  int gpus)
	{
		return saving_s(ctx, e, gpus) > ctx.restart_overhead_s();
	}

	void plan(const SchedulingContext &ctx)
	{
		collect(ctx);
		for (;;) {
			allocate(ctx.cluster().total_gpus());
			bool declined = false;
			for (Entry &e : jobs_)
				if (!e.held && e.current > 0 && e.target() > e.current &&
				    !worth_growing(ctx, e, e.target())) {
					e.held = true;
					declined = true;
				}
			if (!declined)
				return;
		}
	}

	void apply(SchedulingContext &ctx)
	{
		// Shrink (or preempt) first: their GPUs are promised.
		for (const Entry &e : jobs_)
			if (e.current > 0 && e.target() < e.current)
				ctx.stop(e.job);

		std::vector<const Entry *> starts;
		for (const Entry &e : jobs_)
			if (e.target() > 0 && e.target() != e.current)
				starts.push_back(&e);
		std::stable_sort(starts.begin(), starts.end(),
				 [](const Entry *a, const Entry *b) {
					 return a->target() > b->target();
				 });
		for (const Entry *e : starts) {
			if (ctx.progress(e->job).state == JobProgress::State::Running)
				grow(ctx, *e);
			else
				start(ctx, *e);
		}
	}

	// A waiting (or just shrunk) job: its planned count, else the next
	// smaller usable one.
	static void start(SchedulingContext &ctx, const Entry &e)
	{
		for (int i = e.level; i >= 0; i--)
			if (start_packed(ctx, e.job, e.counts[i]))
				return;
	}

	// A running job planned bigger: restart it on a count above its
	// current one that can be placed (its own GPUs count as free) and
	// still saves more than the restart overhead; else leave it running.
	static void grow(SchedulingContext &ctx, const Entry &e)
	{
		const JobProgress &p = ctx.progress(e.job);
		const Job &j = ctx.workload().jobs[e.job];
		std::vector<int> free = ctx.free_gpus_per_node();
		for (int g : p.gpu_ids)
			free[ctx.cluster().node_of(g)]++;
		for (int i = e.level; i >= 0 && e.counts[i] > e.current; i--) {
			int gpus = e.counts[i];
			auto where = pack_gpus(free, gpus);
			if (!where ||
			    !ctx.profiles().epoch_s(j.model, gpus,
						    static_cast<int>(where->size())) ||
			    !worth_growing(ctx, e, gpus))
				continue;
			if (ctx.stop(e.job))
				ctx.start(e.job, *where);
			return;
		}
	}

	void request_wakeups(SchedulingContext &ctx) const
	{
		if (ctx.pending().empty())
			return;
		for (int job : ctx.running())
			if (ctx.in_restart_overhead(job))
				ctx.wake_at(ctx.progress(job).progress_start_s);
	}

	std::vector<Entry> jobs_; // this call's plan, in submission order
};

} // namespace

std::unique_ptr<Policy> make_optimus(const PolicyOptions &)
{
	return std::make_unique<Optimus>();
}

} // namespace omru
