// plan_bench.cpp - what one re-plan of the OMRU planner costs on a big
// cluster: the targets are 1,000 pending jobs on 256 nodes x 8 GPUs
// in <= 20 ms and 10,000 in <= 500 ms.  The queue is synthetic but built
// from the measured T4 profiles (every model, counts 1..16 with their
// spreads); half of the cluster is busy with running jobs, as in a loaded
// slurmctld pass.  Prints one row per size: the median and worst of several
// re-plans of the same state, and the plans simulated.
//
// usage: plan-bench PROFILES.csv [NODESxGPUS] [objective: makespan|jct]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "model/cluster.hpp"
#include "model/csv_table.hpp"
#include "profiler/profile_table.hpp"
#include "planner/planner.hpp"
#include "planner/profile_curve.hpp"
#include "policy/placement.hpp"

using namespace omru;

namespace {

std::vector<planner::SpeedCurve> curves_for(const ProfileTable &p, const Cluster &c)
{
	std::vector<planner::SpeedCurve> out;
	for (int m = 0; m < p.model_count(); m++)
		out.push_back(planner::profile_curve(p, c, m, 1, c.total_gpus()));
	return out;
}

planner::PlanInput queue(const ProfileTable &p, const Cluster &c, int pending,
			 planner::Objective obj, uint64_t seed)
{
	std::mt19937_64 rng(seed); // output fixed by the C++ standard
	planner::PlanInput in;
	in.now_s = 1000;
	in.nodes = c.nodes;
	in.gpus_per_node = c.gpus_per_node;
	in.free_per_node.assign(c.nodes, c.gpus_per_node);
	in.curves = curves_for(p, c);
	in.restart_overhead_s = 30;
	in.objective = obj;
	auto epochs = [&] { return 1 + static_cast<double>(rng() % 50); };
	// Half the GPUs run 1-8 GPU jobs.
	int busy = 0;
	long id = 0;
	while (busy < c.total_gpus() / 2) {
		int model = static_cast<int>(rng() % p.model_count());
		const planner::SpeedCurve &cv = in.curves[model];
		int option = static_cast<int>(rng() % std::min<size_t>(cv.gpus.size(), 8));
		auto where = pack_gpus(in.free_per_node, cv.gpus[option]);
		if (!where || std::isnan(cv.epoch_s[option][where->size()]))
			continue;
		planner::PlanJob j;
		j.id = id++;
		j.curve = model;
		j.running = true;
		j.gpus = cv.gpus[option];
		j.where = *where;
		j.epoch_s = cv.epoch_s[option][where->size()];
		j.progress_start_s = 0;
		j.epochs_at_progress_start = epochs();
		j.remaining_epochs = j.epochs_at_progress_start - 1000 / j.epoch_s;
		if (j.remaining_epochs <= 0)
			continue;
		for (auto [node, n] : *where)
			in.free_per_node[node] -= n;
		busy += j.gpus;
		in.jobs.push_back(std::move(j));
	}
	for (int i = 0; i < pending; i++) {
		planner::PlanJob j;
		j.id = id++;
		j.curve = static_cast<int>(rng() % p.model_count());
		j.submit_s = static_cast<double>(rng() % 1000);
		j.remaining_epochs = epochs();
		in.jobs.push_back(std::move(j));
	}
	return in;
}

} // namespace

int main(int argc, char **argv)
{
	if (argc < 2) {
		std::fprintf(stderr, "usage: plan-bench PROFILES.csv [NxG] [makespan|jct]\n");
		return 2;
	}
	try {
		ProfileTable p = ProfileTable::from_csv(CsvTable::read_file(argv[1]));
		Cluster c = argc > 2 ? parse_cluster(argv[2]).value() : Cluster{ 256, 8 };
		auto obj = argc > 3 && std::string(argv[3]) == "jct"
				   ? planner::Objective::MeanJct
				   : planner::Objective::Makespan;
		std::printf("%-8s %-10s %10s %10s %8s\n", "pending", "cluster",
			    "median_ms", "worst_ms", "plans");
		for (int n : { 100, 300, 1000, 3000, 10000 }) {
			planner::PlanInput in = queue(p, c, n, obj, 42 + n);
			std::vector<double> ms;
			int plans = 0;
			planner::PlanChoice keep;
			for (int rep = 0; rep < (n >= 10000 ? 3 : 7); rep++) {
				auto t0 = std::chrono::steady_clock::now();
				planner::Plan plan = planner::make_plan(in, keep);
				ms.push_back(std::chrono::duration<double, std::milli>(
						     std::chrono::steady_clock::now() - t0)
						     .count());
				keep = plan.choice;
				plans = plan.candidates;
			}
			std::sort(ms.begin(), ms.end());
			std::printf("%-8d %-10s %10.2f %10.2f %8d\n", n,
				    format_cluster(c).c_str(), ms[ms.size() / 2],
				    ms.back(), plans);
			std::fflush(stdout);
		}
	} catch (const std::exception &e) {
		std::fprintf(stderr, "plan-bench: %s\n", e.what());
		return 1;
	}
	return 0;
}
