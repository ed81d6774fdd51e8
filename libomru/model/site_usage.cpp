// site_usage.cpp - see site_usage.hpp.
#include "model/site_usage.hpp"

#include <algorithm>
#include <limits>

namespace omru {

SiteUsage::SiteUsage(const Cluster &c, const Workload &w)
	: cluster_(c), workload_(w), active_(w.has_site_limits()),
	  cpus_(static_cast<size_t>(c.nodes), 0.0), mem_(static_cast<size_t>(c.nodes), 0.0),
	  user_gpus_(w.users.size(), 0), license_used_(w.licenses.size(), 0)
{
}

int SiteUsage::user_room(int job) const
{
	const Job &j = workload_.jobs[job];
	if (j.user < 0 || static_cast<size_t>(j.user) >= workload_.user_gpus_max.size() ||
	    workload_.user_gpus_max[j.user] < 0)
		return std::numeric_limits<int>::max();
	return std::max(0, workload_.user_gpus_max[j.user] - user_gpus_[j.user]);
}

bool SiteUsage::license_free(int job) const
{
	const Job &j = workload_.jobs[job];
	if (j.license < 0)
		return true;
	int total = static_cast<size_t>(j.license) < workload_.license_total.size()
			    ? workload_.license_total[j.license]
			    : 0;
	return license_used_[j.license] + j.license_count <= total;
}

int SiteUsage::fit_on(int job, int node, int free_gpus) const
{
	const Job &j = workload_.jobs[job];
	if (!j.node_list.empty() &&
	    !std::binary_search(j.node_list.begin(), j.node_list.end(), node))
		return 0;
	if (!has_node_resources())
		return std::max(0, free_gpus);
	return j.need.fit(free_gpus, free_cpus(node), free_mem(node), cluster_.gpus_of(node),
			  cluster_.node_cpus, cluster_.node_mem_mb);
}

void SiteUsage::add(int job, const NodeCounts &where, int sign)
{
	const Job &j = workload_.jobs[job];
	int gpus = 0;
	for (auto [node, count] : where) {
		gpus += count;
		if (!has_node_resources() || j.need.none())
			continue;
		auto [cpus, mem] = j.need.use(count, cluster_.node_cpus, cluster_.node_mem_mb);
		cpus_[node] += sign * cpus;
		mem_[node] += sign * mem;
	}
	if (j.user >= 0)
		user_gpus_[j.user] += sign * gpus;
	if (j.license >= 0)
		license_used_[j.license] += sign * j.license_count;
}

void SiteUsage::take(int job, const NodeCounts &where) { add(job, where, +1); }
void SiteUsage::give_back(int job, const NodeCounts &where) { add(job, where, -1); }

} // namespace omru
