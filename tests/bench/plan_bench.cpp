// plan_bench.cpp - what a re-plan of the OMRU planner costs at cluster
// scale, against the targets of its issue (medians on this machine):
//   1,000 pending on 256 x 8 GPUs <= 20 ms; 10,000 <= 200 ms; 50,000 on
//   4,096 x 8 <= 2 s; an incremental re-plan (one arrival or one
//   completion on a plan that exists) at 10,000 <= 20 ms;
// and how the time grows with jobs and with nodes.  The queue is
// synthetic but built from the measured T4 profiles (every model, counts
// 1..16 with their spreads); half of the cluster is busy with running
// jobs, as in a loaded slurmctld pass.  "mixed" clusters have nodes of 8
// and 4 GPUs, three overlapping partitions and jobs confined to them or to
// small node lists, as select/omru plans them.
//
// Quality: long queues (planner.hpp kLongQueue) are searched coarse to
// fine; each target row also gives the makespan and mean JCT of that plan
// over the exhaustive search's (the whole grid, PlanSearch::exhaustive),
// both from this run.
//
// --bound: every plan under the reference bound (ReferenceBound=yes, the
// controller's default), each pending job asking its curve's smallest
// count: what the reference (planner/reference.hpp) adds to a plan; the
// controller's shadow (reference_shadow.hpp) costs one more reference.
//
// usage: plan-bench PROFILES.csv [--quick] [--bound]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "model/cluster.hpp"
#include "model/csv_table.hpp"
#include "planner/planner.hpp"
#include "planner/profile_curve.hpp"
#include "policy/placement.hpp"
#include "profile/profile_table.hpp"

using namespace omru;

namespace {

struct Shape {
	int nodes = 256;
	bool mixed = false; // uneven nodes and partitions
};

struct Queue {
	planner::PlanInput in;
	long next_id = 0;
};

planner::PlanJob pending_job(std::mt19937_64 &rng, const Queue &q, int models)
{
	planner::PlanJob j;
	j.curve = static_cast<int>(rng() % models);
	j.submit_s = static_cast<double>(rng() % 1000);
	j.remaining_epochs = 1 + static_cast<double>(rng() % 50);
	if (!q.in.node_sets.empty())
		j.node_set = static_cast<int>(rng() % (q.in.node_sets.size() + 1)) - 1;
	return j;
}

bool g_bound = false; // --bound

Queue make_queue(const ProfileTable &p, Shape shape, int pending, uint64_t seed)
{
	std::mt19937_64 rng(seed); // output fixed by the C++ standard
	Cluster c{ shape.nodes, 8 };
	Queue q;
	planner::PlanInput &in = q.in;
	in.now_s = 1000;
	in.nodes = c.nodes;
	in.gpus_per_node = c.gpus_per_node;
	in.restart_overhead_s = 30;
	for (int m = 0; m < p.model_count(); m++)
		in.curves.push_back(planner::profile_curve(p, c, m, 1, c.total_gpus()));
	in.free_per_node.assign(c.nodes, c.gpus_per_node);
	if (shape.mixed) {
		// A third of the nodes have 4 GPUs; partitions: the first two
		// thirds, the last two thirds, every 7th node; and 16 node
		// lists of 4 nodes each (--nodelist).
		in.node_gpus.resize(c.nodes);
		for (int n = 0; n < c.nodes; n++)
			in.node_gpus[n] = n % 3 == 2 ? 4 : 8;
		in.free_per_node = in.node_gpus;
		std::vector<int> a, b, d;
		for (int n = 0; n < c.nodes; n++) {
			if (n < c.nodes * 2 / 3)
				a.push_back(n);
			if (n >= c.nodes / 3)
				b.push_back(n);
			if (n % 7 == 0)
				d.push_back(n);
		}
		in.node_sets = { a, b, d };
		for (int l = 0; l < 16; l++) {
			std::vector<int> list;
			for (int k = 0; k < 4; k++)
				list.push_back((l * 4 + k) * c.nodes / 64);
			in.node_sets.push_back(list);
		}
	}
	int total = 0;
	for (int f : in.free_per_node)
		total += f;
	// Half the GPUs run 1-8 GPU jobs.
	for (int busy = 0, tries = 0; busy < total / 2 && tries < 1000000; tries++) {
		int model = static_cast<int>(rng() % p.model_count());
		const planner::SpeedCurve &cv = in.curves[model];
		int option = static_cast<int>(rng() % std::min<size_t>(cv.gpus.size(), 8));
		auto where = pack_gpus(in.free_per_node, cv.gpus[option]);
		if (!where || std::isnan(cv.epoch_s[option][where->size()]))
			continue;
		planner::PlanJob j;
		j.id = q.next_id++;
		j.curve = model;
		j.running = true;
		j.gpus = cv.gpus[option];
		j.where = *where;
		j.epoch_s = cv.epoch_s[option][where->size()];
		j.epochs_at_progress_start = 1 + static_cast<double>(rng() % 50);
		j.remaining_epochs = j.epochs_at_progress_start - 1000 / j.epoch_s;
		if (j.remaining_epochs <= 0)
			continue;
		for (auto [node, n] : *where)
			in.free_per_node[node] -= n;
		busy += j.gpus;
		in.jobs.push_back(std::move(j));
	}
	for (int i = 0; i < pending; i++) {
		planner::PlanJob j = pending_job(rng, q, p.model_count());
		j.id = q.next_id++;
		if (g_bound)
			j.asked_gpus = in.curves[j.curve].gpus.front();
		in.jobs.push_back(std::move(j));
	}
	in.bound.on = g_bound;
	return q;
}

double ms_since(std::chrono::steady_clock::time_point t0)
{
	return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
		.count();
}

struct Timing {
	double median_ms = 0, worst_ms = 0;
	planner::Plan plan;
};

// Re-plans of the same state, each keeping the previous choice, as
// slurmctld's passes do.
Timing time_plans(const planner::PlanInput &in, int reps, planner::PlanSearch search = {})
{
	std::vector<double> ms;
	Timing t;
	planner::PlanChoice keep;
	for (int rep = 0; rep < reps; rep++) {
		auto t0 = std::chrono::steady_clock::now();
		t.plan = planner::make_plan(in, keep, search);
		ms.push_back(ms_since(t0));
		keep = t.plan.choice;
	}
	std::sort(ms.begin(), ms.end());
	t.median_ms = ms[ms.size() / 2];
	t.worst_ms = ms.back();
	return t;
}

void target_row(const ProfileTable &p, const char *goal, Shape shape, int pending,
		int reps, bool compare)
{
	Queue q = make_queue(p, shape, pending, 42 + pending + shape.nodes);
	Timing t = time_plans(q.in, reps);
	std::printf("%-8d %5dx8 %-7s %9.2f %9.2f %6d %8s", pending, shape.nodes,
		    shape.mixed ? "mixed" : "uniform", t.median_ms, t.worst_ms,
		    t.plan.candidates, goal);
	if (compare && pending > static_cast<int>(planner::kLongQueue)) {
		planner::PlanSearch all;
		all.exhaustive = true;
		Timing e = time_plans(q.in, 1, all);
		std::printf(" %9.2f %8.4f %8.4f", e.median_ms,
			    (t.plan.makespan_s - q.in.now_s) / (e.plan.makespan_s - q.in.now_s),
			    t.plan.mean_jct_s / e.plan.mean_jct_s);
	}
	std::printf("\n");
	std::fflush(stdout);
}

// One arrival and one completion on a plan that exists: the incremental
// re-plan (the kept choice and its neighbours, as Replanner does it) next
// to a full one of the same state.
void incremental_rows(const ProfileTable &p, Shape shape, int pending)
{
	Queue q = make_queue(p, shape, pending, 7 + pending);
	planner::Plan base = planner::make_plan(q.in);
	planner::PlanSearch inc;
	inc.max_simulations = 2;
	std::mt19937_64 rng(99);

	Queue arrival = q;
	planner::PlanJob j = pending_job(rng, arrival, p.model_count());
	j.id = arrival.next_id++;
	arrival.in.jobs.push_back(j);

	Queue completion = q;
	auto running = std::find_if(completion.in.jobs.begin(), completion.in.jobs.end(),
				    [](const planner::PlanJob &x) { return x.running; });
	for (auto [node, n] : running->where)
		completion.in.free_per_node[node] += n;
	completion.in.jobs.erase(running);

	for (auto [name, in] : { std::make_pair("arrival", &arrival.in),
				 std::make_pair("completion", &completion.in) }) {
		std::vector<double> inc_ms, full_ms;
		planner::Plan pi, pf;
		for (int rep = 0; rep < 5; rep++) {
			auto t0 = std::chrono::steady_clock::now();
			pi = planner::make_plan(*in, base.choice, inc);
			inc_ms.push_back(ms_since(t0));
			t0 = std::chrono::steady_clock::now();
			pf = planner::make_plan(*in, base.choice);
			full_ms.push_back(ms_since(t0));
		}
		std::sort(inc_ms.begin(), inc_ms.end());
		std::sort(full_ms.begin(), full_ms.end());
		std::printf("%-11s %-8d %5dx8 %10.2f %6d %10.2f %6d %8.4f %8.4f\n", name,
			    pending, shape.nodes, inc_ms[2], pi.candidates, full_ms[2],
			    pf.candidates,
			    (pi.makespan_s - in->now_s) / (pf.makespan_s - in->now_s),
			    pi.mean_jct_s / pf.mean_jct_s);
		std::fflush(stdout);
	}
}

} // namespace

int main(int argc, char **argv)
{
	if (argc < 2) {
		std::fprintf(stderr, "usage: plan-bench PROFILES.csv [--quick] [--bound]\n");
		return 2;
	}
	bool quick = false;
	for (int a = 2; a < argc; a++) {
		quick |= std::strcmp(argv[a], "--quick") == 0;
		g_bound |= std::strcmp(argv[a], "--bound") == 0;
	}
	try {
		ProfileTable p = ProfileTable::from_csv(CsvTable::read_file(argv[1]));
		std::printf("# targets (median of re-plans keeping the previous choice; "
			    "vs_full: this plan's makespan and mean JCT over the exhaustive "
			    "search's)\n");
		std::printf("%-8s %7s %-7s %9s %9s %6s %8s %9s %8s %8s\n", "pending",
			    "cluster", "nodes", "median_ms", "worst_ms", "plans", "goal_ms",
			    "full_ms", "mk_vs_full", "jct_vs_full");
		target_row(p, "20", { 256, false }, 1000, 7, true);
		target_row(p, "200", { 256, false }, 10000, 5, true);
		target_row(p, "2000", { 4096, false }, 50000, 3, !quick);
		target_row(p, "-", { 256, true }, 1000, 7, true);
		target_row(p, "-", { 256, true }, 10000, 5, true);

		std::printf("\n# incremental re-plan on a plan that exists (goal <= 20 ms "
			    "at 10,000); vs_full: over a full re-plan of the same state\n");
		std::printf("%-11s %-8s %7s %10s %6s %10s %6s %8s %8s\n", "change",
			    "pending", "cluster", "inc_ms", "plans", "full_ms", "plans",
			    "mk_ratio", "jct_ratio");
		incremental_rows(p, { 256, false }, 10000);
		incremental_rows(p, { 256, true }, 10000);

		std::printf("\n# growth with pending jobs (256x8 uniform) and with nodes "
			    "(10,000 pending, uniform)\n");
		std::printf("%-8s %7s %9s %6s %12s\n", "pending", "cluster", "median_ms",
			    "plans", "us_per_job");
		std::vector<std::pair<int, int>> sizes = { { 300, 256 },  { 1000, 256 },
							   { 3000, 256 }, { 10000, 256 },
							   { 30000, 256 } };
		for (int nodes : { 64, 1024, 4096 })
			sizes.emplace_back(10000, nodes);
		for (auto [n, nodes] : sizes) {
			if (quick && (n > 10000 || nodes > 1024))
				continue;
			Queue q = make_queue(p, { nodes, false }, n, 42 + n + nodes);
			Timing t = time_plans(q.in, n >= 10000 ? 3 : 5);
			std::printf("%-8d %5dx8 %9.2f %6d %12.3f\n", n, nodes, t.median_ms,
				    t.plan.candidates,
				    1000 * t.median_ms / t.plan.candidates / q.in.jobs.size());
			std::fflush(stdout);
		}
	} catch (const std::exception &e) {
		std::fprintf(stderr, "plan-bench: %s\n", e.what());
		return 1;
	}
	return 0;
}
