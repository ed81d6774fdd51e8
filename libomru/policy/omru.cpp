// omru.cpp - the slurm-omru planner (planner/planner.hpp) as a policy: at
// every event the running and pending jobs are re-planned, and what the plan
// does now (start jobs, grow running ones) is done.  In simulation a job may
// only run at a count and spread the profiles measured, so the speed curves
// are the profiles' truth: the plan then predicts the run exactly, and
// keeping the previous plan's choice unless a better one appears makes the
// executed schedule at least as good as the first plan.
//
// Site limits (SiteUsage) are given to the plan as select/omru gives
// slurmctld's: each node's CPUs and memory and each job's need of them, a
// job's node_list as its node set, and each user's GPU limit and each
// license as a pool (PlanInput::pool_capacity) its jobs count against, so
// the plan orders a limited user's jobs and a license's around each other
// (select_plugin/plan_pools.c).
#include <algorithm>
#include <map>
#include <tuple>

#include "planner/planner.hpp"
#include "planner/replanner.hpp"
#include "planner/profile_curve.hpp"
#include "policy/policy.hpp"
#include "policy/registry.hpp"

namespace omru {
namespace {

class Omru final : public Policy {
    public:
	explicit Omru(const PolicyOptions &o) : opts_(o) {}

	std::string refuse(const Workload &w, const ProfileTable &p,
			   const Cluster &c) const override
	{
		return refuse_unrunnable_moldable(w, p, c);
	}

	bool models_site_limits() const override { return true; }

	void schedule(SchedulingContext &ctx) override
	{
		planner::PlanInput in = input(ctx);
		planner::Plan plan = replanner_.plan(in);
		curves_ = std::move(in.curves); // with any new ones, for next time
		for (const planner::Action &a : plan.now) {
			int job = job_of_[a.job];
			if (a.kind == planner::Action::Kind::Resize && !ctx.stop(job))
				continue;
			ctx.start(job, a.where);
		}
		// The plan grows jobs when their restart overhead ends: be there.
		if (ctx.free_gpus() > 0)
			for (int job : ctx.running())
				if (ctx.in_restart_overhead(job))
					ctx.wake_at(ctx.progress(job).progress_start_s);
	}

    private:
	// The speed curve of a job's model and moldable range: the usable
	// counts, with the profiles' time for every spread that has a row.
	int curve_of(const SchedulingContext &ctx, const Job &j, int gpus_max,
		     std::vector<planner::SpeedCurve> &curves)
	{
		auto key = std::make_tuple(j.model, j.gpus_min, gpus_max);
		auto it = curve_index_.find(key);
		if (it != curve_index_.end())
			return it->second;
		planner::SpeedCurve cv = planner::profile_curve(
			ctx.profiles(), ctx.cluster(), j.model, j.gpus_min, gpus_max);
		curves.push_back(std::move(cv));
		int index = static_cast<int>(curves.size()) - 1;
		curve_index_.emplace(key, index);
		return index;
	}

	planner::PlanInput input(const SchedulingContext &ctx)
	{
		const Cluster &c = ctx.cluster();
		planner::PlanInput in;
		in.now_s = ctx.now_s();
		in.nodes = c.nodes;
		in.gpus_per_node = c.gpus_per_node; // the largest node's
		in.node_gpus = c.node_gpus;         // empty when the nodes are alike
		in.free_per_node = ctx.free_gpus_per_node();
		in.curves = std::move(curves_);
		in.restart_overhead_s = ctx.restart_overhead_s();
		in.objective = opts_.omru_objective;
		in.fairness_factor = opts_.omru_fairness;
		in.reuse = opts_.omru_resize;
		in.grow_on_one_node = opts_.omru_grow_on_one_node;
		in.shrink_to_admit = opts_.omru_phase_aware && opts_.omru_resize;
		// Interference priced: each job's model id -> its kind.
		const bool priced = opts_.omru_interference && !opts_.omru_interference->empty();
		std::map<int, int> kinds;
		const SiteUsage &site = ctx.site();
		if (site.has_node_resources())
			for (int n = 0; n < c.nodes; n++) {
				in.node_cpus.push_back(c.node_cpus);
				in.node_mem.push_back(c.node_mem_mb);
				in.free_cpus.push_back(site.free_cpus(n));
				in.free_mem.push_back(site.free_mem(n));
			}
		job_of_.clear();
		user_pool_.assign(ctx.workload().users.size(), -1);
		license_pool_.assign(ctx.workload().licenses.size(), -1);
		for (const std::vector<int> *list : { &ctx.running(), &ctx.pending() })
			for (int job : *list) {
				const Job &j = ctx.workload().jobs[job];
				const JobProgress &pr = ctx.progress(job);
				planner::PlanJob pj;
				pj.id = job;
				pj.curve = curve_of(ctx, j, j.gpus_max, in.curves);
				add_pools(ctx.workload(), j, in, pj);
				pj.need = j.need;
				if (!j.node_list.empty())
					pj.node_set = node_set_of(j.node_list, in.node_sets);
				pj.submit_s = j.submit_s;
				pj.remaining_epochs = ctx.remaining_epochs(job);
				pj.resizable = j.elastic;
				if (priced)
					pj.kind = kinds.emplace(j.model, static_cast<int>(kinds.size()))
							  .first->second;
				if (pr.state == JobProgress::State::Running) {
					pj.running = true;
					pj.gpus = pr.gpus;
					for (int g : pr.gpu_ids) {
						int node = c.node_of(g);
						if (pj.where.empty() || pj.where.back().first != node)
							pj.where.emplace_back(node, 0);
						pj.where.back().second++;
					}
					pj.progress_start_s = pr.progress_start_s;
					pj.epochs_at_progress_start = j.epochs - pr.epochs_done;
					pj.epoch_s = pr.solo_epoch_s; // the plan adds neighbours
					// Late in its training (the phase signal):
					// it may give GPUs to a waiting job.
					pj.may_shrink = j.elastic && j.late_after_epochs >= 0 &&
							j.epochs - pj.remaining_epochs >=
								j.late_after_epochs;
				}
				in.jobs.push_back(std::move(pj));
				job_of_.push_back(job);
			}
		if (!kinds.empty()) {
			std::vector<std::string> models(kinds.size());
			for (const auto &[model, kind] : kinds)
				models[kind] = ctx.profiles().model_name(model);
			in.slowdown = opts_.omru_interference->matrix(models);
		}
		return in;
	}

	// The job's user's GPU limit and its license as pools: one per
	// limited user and per license, capacity the limit (every running
	// job is in the plan).
	void add_pools(const Workload &w, const Job &j, planner::PlanInput &in,
		       planner::PlanJob &pj)
	{
		auto pool = [&](int &slot, int capacity) {
			if (slot < 0) {
				slot = static_cast<int>(in.pool_capacity.size());
				in.pool_capacity.push_back(capacity);
			}
			return slot;
		};
		if (j.user >= 0 && static_cast<size_t>(j.user) < w.user_gpus_max.size() &&
		    w.user_gpus_max[j.user] >= 0)
			pj.pools.push_back({ pool(user_pool_[j.user], w.user_gpus_max[j.user]),
					     1, 0 });
		if (j.license >= 0 && static_cast<size_t>(j.license) < w.license_total.size())
			pj.pools.push_back({ pool(license_pool_[j.license],
						  w.license_total[j.license]),
					     0, static_cast<double>(j.license_count) });
	}

	static int node_set_of(const std::vector<int> &nodes,
			       std::vector<std::vector<int>> &sets)
	{
		for (size_t i = 0; i < sets.size(); i++)
			if (sets[i] == nodes)
				return static_cast<int>(i);
		sets.push_back(nodes);
		return static_cast<int>(sets.size()) - 1;
	}

	PolicyOptions opts_;
	std::map<std::tuple<int, int, int>, int> curve_index_;
	std::vector<planner::SpeedCurve> curves_;
	std::vector<int> job_of_; // plan job index -> workload job
	// This input's pool of each user and license, -1 for none yet.
	std::vector<int> user_pool_, license_pool_;
	planner::Replanner replanner_; // the previous plan's choice, as slurmctld keeps it
};

} // namespace

std::unique_ptr<Policy> make_omru(const PolicyOptions &o)
{
	return std::make_unique<Omru>(o);
}

std::unique_ptr<Policy> make_omru_oblivious(const PolicyOptions &o)
{
	PolicyOptions blind = o;
	blind.omru_interference = nullptr;
	return std::make_unique<Omru>(blind);
}

} // namespace omru
