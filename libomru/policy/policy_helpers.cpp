// policy_helpers.cpp - checks and placement shared by every policy.
#include "policy/policy.hpp"
#include "policy/usable_counts.hpp"

namespace omru {

std::string Policy::refuse(const Workload &w, const ProfileTable &p,
			   const Cluster &c) const
{
	return refuse_unrunnable_rigid(w, p, c);
}

std::string why_not_runnable(const Workload &w, const ProfileTable &p,
			     const Cluster &c, int job, int gpus)
{
	const Job &j = w.jobs[job];
	if (gpus > c.total_gpus())
		return "job " + j.id + " needs " + std::to_string(gpus) +
		       " GPUs; the cluster has " + std::to_string(c.total_gpus());
	if (!p.packed_epoch_s(j.model, gpus, c))
		return "job " + j.id + ": the profiles have no row for model " +
		       p.model_name(j.model) + " on " + std::to_string(gpus) +
		       " GPUs over " + std::to_string(c.min_nodes(gpus)) +
		       " node(s)";
	return "";
}

std::string refuse_unrunnable_rigid(const Workload &w, const ProfileTable &p,
				    const Cluster &c)
{
	for (size_t i = 0; i < w.jobs.size(); i++) {
		std::string why = why_not_runnable(w, p, c, static_cast<int>(i),
						   w.jobs[i].gpus);
		if (!why.empty())
			return why + " (line " + std::to_string(w.jobs[i].line) +
			       " of " + w.name + ")";
	}
	return "";
}

std::string refuse_unrunnable_moldable(const Workload &w, const ProfileTable &p,
				       const Cluster &c)
{
	for (const Job &j : w.jobs) {
		if (usable_counts(p, c, j).gpus.empty())
			return "job " + j.id + " (line " + std::to_string(j.line) +
			       " of " + w.name + "): no GPU count in " +
			       std::to_string(j.gpus_min) + ".." +
			       std::to_string(j.gpus_max) +
			       " has a profile row that fits the cluster";
	}
	return "";
}

std::vector<int> usable_free(const SchedulingContext &ctx, int job)
{
	std::vector<int> free = ctx.free_gpus_per_node();
	if (ctx.site().active())
		for (size_t n = 0; n < free.size(); n++)
			free[n] = ctx.site().fit_on(job, static_cast<int>(n), free[n]);
	return free;
}

std::optional<NodeCounts> place_job(const SchedulingContext &ctx, int job,
				    int gpus)
{
	if (ctx.site().active() && !ctx.site().admits(job, gpus))
		return std::nullopt;
	auto where = pack_gpus(usable_free(ctx, job), gpus);
	if (!where)
		return std::nullopt;
	const Job &j = ctx.workload().jobs[job];
	if (!ctx.profiles().epoch_s(j.model, gpus, static_cast<int>(where->size())))
		return std::nullopt;
	return where;
}

bool start_packed(SchedulingContext &ctx, int job, int gpus)
{
	auto where = place_job(ctx, job, gpus);
	return where && ctx.start(job, *where);
}

std::optional<double> remaining_s(const SchedulingContext &ctx, int job, int gpus)
{
	const Job &j = ctx.workload().jobs[job];
	auto e = ctx.profiles().packed_epoch_s(j.model, gpus, ctx.cluster());
	if (!e)
		return std::nullopt;
	return ctx.remaining_epochs(job) * *e;
}

} // namespace omru
