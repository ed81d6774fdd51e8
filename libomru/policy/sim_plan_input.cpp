// sim_plan_input.cpp - see sim_plan_input.hpp.
#include "policy/sim_plan_input.hpp"

#include <cmath>

#include "planner/profile_curve.hpp"
#include "planner/reference.hpp" // asked_option

namespace omru {
namespace {

int node_set_of(const std::vector<int> &nodes, std::vector<std::vector<int>> &sets)
{
	for (size_t i = 0; i < sets.size(); i++)
		if (sets[i] == nodes)
			return static_cast<int>(i);
	sets.push_back(nodes);
	return static_cast<int>(sets.size()) - 1;
}

} // namespace

// The speed curve of a job's model and moldable range: the usable counts,
// with the profiles' time for every spread that has a row.
int SimPlanInput::curve_of(const SchedulingContext &ctx, const Job &j,
			   std::vector<planner::SpeedCurve> &curves)
{
	auto key = std::make_tuple(j.model, j.gpus_min, j.gpus_max);
	auto it = curve_index_.find(key);
	if (it != curve_index_.end())
		return it->second;
	planner::SpeedCurve cv = planner::profile_curve(ctx.profiles(), ctx.cluster(),
							j.model, j.gpus_min, j.gpus_max);
	if (time_factor_ != 1)
		for (std::vector<double> &row : cv.epoch_s)
			for (double &e : row)
				e *= time_factor_; // NaN stays NaN
	curves.push_back(std::move(cv));
	int index = static_cast<int>(curves.size()) - 1;
	curve_index_.emplace(key, index);
	return index;
}

planner::PlanInput SimPlanInput::build(const SchedulingContext &ctx,
				       const PolicyOptions &opts,
				       const InterferenceModel *interference)
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
	in.objective = opts.omru_objective;
	in.fairness_factor = opts.omru_fairness;
	in.reuse = opts.omru_resize;
	in.grow_on_one_node = opts.omru_grow_on_one_node;
	in.shrink_to_admit = opts.omru_phase_aware && opts.omru_resize;
	in.bound = opts.omru_bound;
	in.arrival_guard = opts.omru_arrival_guard;
	// Interference priced: each job's model id -> its kind.
	const bool priced = interference && !interference->empty();
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
			pj.curve = curve_of(ctx, j, in.curves);
			add_pools(ctx.workload(), j, in, pj);
			pj.need = j.need;
			if (!j.node_list.empty())
				pj.node_set = node_set_of(j.node_list, in.node_sets);
			pj.submit_s = j.submit_s;
			pj.remaining_epochs = ctx.remaining_epochs(job);
			pj.resizable = j.elastic;
			pj.asked_gpus = j.gpus;
			pj.priority = j.priority;
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
				// The plan adds neighbours.
				pj.epoch_s = pr.solo_epoch_s * time_factor_;
				// Late in its training (the phase signal): it
				// may give GPUs to a waiting job.
				pj.may_shrink = j.elastic && j.late_after_epochs >= 0 &&
						j.epochs - pj.remaining_epochs >=
							j.late_after_epochs;
			}
			in.jobs.push_back(std::move(pj));
			job_of_.push_back(job);
		}
	if (time_factor_ == 1 && opts.walltime_factor > 1)
		add_limits(in, opts.walltime_factor);
	if (!kinds.empty()) {
		std::vector<std::string> models(kinds.size());
		for (const auto &[model, kind] : kinds)
			models[kind] = ctx.profiles().model_name(model);
		in.slowdown = interference->matrix(models);
	}
	return in;
}

// Backfill's walltime estimates as the jobs' limits (F x the truth, as the
// `backfill` policy's input scales every time), so the plan's reference
// decides what starts now as that baseline does: a pending job's at the
// count it asked, a running job's from its progress start.
void SimPlanInput::add_limits(planner::PlanInput &in, double factor) const
{
	for (size_t j = 0; j < in.jobs.size(); j++) {
		planner::PlanJob &pj = in.jobs[j];
		if (pj.running) {
			pj.limit_end_s = pj.progress_start_s +
					 factor * pj.epochs_at_progress_start * pj.epoch_s;
			continue;
		}
		const int o = planner::asked_option(in, static_cast<int>(j));
		if (o < 0)
			continue;
		const planner::SpeedCurve &cv = in.curves[pj.curve];
		const double run = pj.run_s(cv.packed(o, in.gpus_per_node));
		if (std::isfinite(run))
			pj.limit_s = factor * run;
	}
}

// The job's user's GPU limit and its license as pools: one per limited user
// and per license, capacity the limit (every running job is in the plan).
void SimPlanInput::add_pools(const Workload &w, const Job &j, planner::PlanInput &in,
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
		pj.pools.push_back({ pool(user_pool_[j.user], w.user_gpus_max[j.user]), 1, 0 });
	if (j.license >= 0 && static_cast<size_t>(j.license) < w.license_total.size())
		pj.pools.push_back({ pool(license_pool_[j.license], w.license_total[j.license]),
				     0, static_cast<double>(j.license_count) });
}

} // namespace omru
