// validator.cpp - see validator.hpp.
#include "sim/validator.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "model/site_usage.hpp"

namespace omru {

double time_tolerance_s(double v)
{
	return 1e-6 + 1e-9 * std::fabs(v);
}

namespace {

std::string seconds(double v)
{
	return format_number(v) + " s";
}

class Checker {
    public:
	Checker(const Cluster &c, const ProfileTable &p, const Workload &w,
		const Schedule &s, double overhead)
		: c_(c), p_(p), w_(w), s_(s), overhead_(overhead)
	{
	}

	std::vector<Violation> run()
	{
		for (const Segment &g : s_)
			check_segment_shape(g);
		check_jobs();
		check_capacity();
		if (w_.has_site_limits())
			check_site_limits();
		std::stable_sort(out_.begin(), out_.end(),
				 [](const Violation &a, const Violation &b) {
					 return a.line < b.line;
				 });
		return std::move(out_);
	}

    private:
	void add(const Segment *g, const std::string &msg)
	{
		std::string who = g ? "job " + w_.jobs[g->job].id + ": " : "";
		out_.push_back({ g ? g->line : 0, who + msg });
	}

	void check_segment_shape(const Segment &g)
	{
		const Job &j = w_.jobs[g.job];
		for (int n : g.nodes)
			if (n < 0 || n >= c_.nodes) {
				add(&g, "node " + std::to_string(n) +
						" does not exist (cluster " +
						format_cluster(c_) + ")");
				return;
			}
		if (g.gpus() < j.gpus_min || g.gpus() > j.gpus_max)
			add(&g, std::to_string(g.gpus()) +
					" GPUs is outside the job's range " +
					std::to_string(j.gpus_min) + ".." +
					std::to_string(j.gpus_max));
		if (g.start_s + time_tolerance_s(j.submit_s) < j.submit_s)
			add(&g, "starts at " + seconds(g.start_s) +
					", before the job's submit_s " +
					seconds(j.submit_s));
		if (!p_.epoch_s(j.model, g.gpus(), g.distinct_nodes()))
			add(&g, "the profiles have no row for model " +
					p_.model_name(j.model) + " on " +
					std::to_string(g.gpus()) + " GPUs over " +
					std::to_string(g.distinct_nodes()) +
					" node(s): it cannot run there");
	}

	void check_jobs()
	{
		std::vector<std::vector<const Segment *>> by_job(w_.jobs.size());
		for (const Segment &g : s_)
			by_job[g.job].push_back(&g);
		for (size_t i = 0; i < w_.jobs.size(); i++) {
			const Job &j = w_.jobs[i];
			auto &segs = by_job[i];
			if (segs.empty()) {
				out_.push_back({ 0, "job " + j.id + " (workload line " +
							    std::to_string(j.line) +
							    ") has no segment: its " +
							    format_number(j.epochs) +
							    " epochs never ran" });
				continue;
			}
			std::stable_sort(segs.begin(), segs.end(),
					 [](const Segment *a, const Segment *b) {
						 return a->start_s < b->start_s;
					 });
			double epochs = 0;
			for (size_t k = 0; k < segs.size(); k++) {
				const Segment &g = *segs[k];
				epochs += g.epochs;
				if (k && g.start_s + time_tolerance_s(g.start_s) <
						 segs[k - 1]->end_s)
					add(&g, "segment " + seconds(g.start_s) +
							".." + seconds(g.end_s) +
							" overlaps the job's segment " +
							seconds(segs[k - 1]->start_s) + ".." +
							seconds(segs[k - 1]->end_s) +
							" (line " +
							std::to_string(segs[k - 1]->line) + ")");
				check_duration(g, k > 0);
			}
			if (std::fabs(epochs - j.epochs) > 1e-6 * j.epochs)
				add(segs.front(), "segments add up to " +
							  format_number(epochs) +
							  " epochs; the job has " +
							  format_number(j.epochs));
		}
	}

	void check_duration(const Segment &g, bool resumed)
	{
		const Job &j = w_.jobs[g.job];
		auto e = p_.epoch_s(j.model, g.gpus(), g.distinct_nodes());
		if (!e)
			return; // reported by check_segment_shape
		double need = g.epochs * *e + (resumed ? overhead_ : 0);
		if (g.duration_s() + time_tolerance_s(need) < need)
			add(&g, "lasts " + seconds(g.duration_s()) + " but " +
					format_number(g.epochs) + " epochs x " +
					seconds(*e) +
					(resumed ? " + restart overhead " + seconds(overhead_)
						 : std::string()) +
					" need " + seconds(need));
	}

	// Sweep over segment starts and ends per node; an end at the same
	// instant as a start (within tolerance) frees its GPUs first.
	void check_capacity()
	{
		struct Edge {
			double t;
			int delta;
			const Segment *g;
		};
		std::vector<std::vector<Edge>> edges(c_.nodes);
		for (const Segment &g : s_) {
			if (g.end_s <= g.start_s)
				continue;
			for (size_t k = 0; k < g.nodes.size();) {
				int n = g.nodes[k], count = 0;
				for (; k < g.nodes.size() && g.nodes[k] == n; k++)
					count++;
				if (n < 0 || n >= c_.nodes)
					continue;
				edges[n].push_back({ g.start_s, count, &g });
				edges[n].push_back({ g.end_s - time_tolerance_s(g.end_s), -count, &g });
			}
		}
		for (int n = 0; n < c_.nodes; n++) {
			auto &e = edges[n];
			std::sort(e.begin(), e.end(), [](const Edge &a, const Edge &b) {
				return a.t < b.t || (a.t == b.t && a.delta < b.delta);
			});
			int used = 0;
			for (const Edge &x : e) {
				used += x.delta;
				if (x.delta > 0 && used > c_.gpus_of(n))
					add(x.g, "node " + std::to_string(n) + " runs " +
							 std::to_string(used) + " GPUs at " +
							 seconds(x.t) + "; it has " +
							 std::to_string(c_.gpus_of(n)));
			}
		}
	}

	// The same sweep over every segment for the site's limits: at each
	// start, the segment's user and license must admit it and each node
	// must hold its CPUs and memory beside the segments running there.
	void check_site_limits()
	{
		struct Edge {
			double t;
			bool start;
			const Segment *g;
		};
		std::vector<Edge> edges;
		for (const Segment &g : s_)
			if (g.end_s > g.start_s) {
				edges.push_back({ g.start_s, true, &g });
				edges.push_back({ g.end_s - time_tolerance_s(g.end_s), false, &g });
			}
		std::sort(edges.begin(), edges.end(), [](const Edge &a, const Edge &b) {
			return a.t < b.t || (a.t == b.t && !a.start && b.start);
		});
		SiteUsage site(c_, w_);
		std::vector<int> used(static_cast<size_t>(c_.nodes), 0); // GPUs
		for (const Edge &x : edges) {
			NodeCounts where;
			for (int n : x.g->nodes)
				if (n >= 0 && n < c_.nodes) {
					auto it = std::find_if(where.begin(), where.end(),
							       [n](const auto &e) { return e.first == n; });
					if (it == where.end())
						where.emplace_back(n, 1);
					else
						it->second++;
				}
			if (!x.start) {
				site.give_back(x.g->job, where);
				for (auto [n, count] : where)
					used[n] -= count;
				continue;
			}
			const Job &j = w_.jobs[x.g->job];
			if (site.user_room(x.g->job) < x.g->gpus())
				add(x.g, "its user " + w_.users[j.user] + " holds more than " +
						 std::to_string(w_.user_gpus_max[j.user]) +
						 " GPUs at " + seconds(x.t));
			if (!site.license_free(x.g->job))
				add(x.g, "license " + w_.licenses[j.license] +
						 " is all in use at " + seconds(x.t));
			// (GPUs beyond the node's are check_capacity's to report.)
			for (auto [n, count] : where)
				if (site.fit_on(x.g->job, n, std::max(count, c_.gpus_of(n) - used[n])) <
				    count)
					add(x.g, "node " + std::to_string(n) +
							 (j.node_list.empty() ||
									  std::binary_search(j.node_list.begin(),
											     j.node_list.end(), n)
								  ? " lacks the CPUs or memory it takes at "
								  : " is not on its node_list at ") +
							 seconds(x.t));
			site.take(x.g->job, where);
			for (auto [n, count] : where)
				used[n] += count;
		}
	}

	const Cluster &c_;
	const ProfileTable &p_;
	const Workload &w_;
	const Schedule &s_;
	double overhead_;
	std::vector<Violation> out_;
};

} // namespace

std::vector<Violation> validate_schedule(const Cluster &c, const ProfileTable &p,
					 const Workload &w, const Schedule &s,
					 double restart_overhead_s)
{
	return Checker(c, p, w, s, restart_overhead_s).run();
}

} // namespace omru
