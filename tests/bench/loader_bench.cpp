// loader_bench.cpp - what the node's loader shares buy over an even split
// of the same CPUs (A-Dloader's comparison), on job models measured by
// real omru-train runs (tests/bench/loader-bench.sh measures them).
//
// A node of C CPUs hosts one-task training jobs; each is a LoaderModel
// (samples/s = min(1/c, w r)) and an amount of work (samples).  Between two
// events (an arrival, a completion) the set of jobs is fixed and so are
// their shares: the allocator's, or the pool split evenly; each job runs at
// its model's rate.  Two scenarios, both from the same job kinds:
//   pair      one of each kind starts at 0: the node's normalised
//             throughput (sum of samples/s over each job's peak) while all
//             run, and the makespan;
//   sequence  2 x kinds jobs arrive every `gap` seconds, alternating kinds,
//             each with the same work in full-speed seconds: makespan and
//             the time-averaged normalised throughput while >= 2 jobs run.
// Prints both per policy, the same ratios for other node sizes (how much
// the shares buy depends on how contended the node's CPUs are: a node with
// CPUs to spare for every job's saturation gains nothing), and ends with
// the line for the CPUS given:
//   loader shares vs even split: throughput x R, makespan x M
// (R from the pair, M from the sequence).
//
// usage: loader-bench CPUS KIND:C:R [KIND:C:R ...]
//        (C seconds per sample of compute, R samples/s per worker)
//        CPUS "contended": one CPU fewer than the kinds need together at
//        full speed (each its saturation workers plus its step's CPU), the
//        setting A-Dloader studies: co-located loaders compete for CPUs.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "policy/loader_allocator.hpp"

using namespace omru;

namespace {

struct Kind {
	std::string name;
	LoaderModel model{ 1, 1 };
};

struct SimJob {
	const Kind *kind;
	double arrive;
	double work; // samples
	double done = 0;
	double end = -1;
};

struct Outcome {
	double makespan = 0;
	double shared_throughput = 0; // time-averaged, while >= 2 jobs run
	double shared_s = 0;
};

Outcome simulate(std::vector<SimJob> jobs, int cpus, bool allocator)
{
	Outcome out;
	double t = 0;
	double area = 0;
	for (;;) {
		std::vector<SimJob *> run;
		double next_arrival = std::numeric_limits<double>::infinity();
		for (SimJob &j : jobs) {
			if (j.end >= 0)
				continue;
			if (j.arrive <= t + 1e-12)
				run.push_back(&j);
			else
				next_arrival = std::min(next_arrival, j.arrive);
		}
		if (run.empty() && next_arrival == std::numeric_limits<double>::infinity())
			break;
		if (run.empty()) {
			t = next_arrival;
			continue;
		}
		std::vector<LoaderJob> lj;
		for (SimJob *j : run) {
			LoaderJob x;
			x.model = j->kind->model;
			x.max_workers = 256;
			lj.push_back(x);
		}
		int pool = std::max(0, cpus - static_cast<int>(run.size()));
		LoaderShares s = allocator ? allocate_loader_workers(lj, pool)
					   : even_loader_workers(lj, pool);
		double step = next_arrival - t, norm = 0;
		std::vector<double> rate(run.size());
		for (size_t i = 0; i < run.size(); i++) {
			rate[i] = lj[i].model.samples_s(s.workers[i]);
			norm += lj[i].model.normalised(s.workers[i]);
			step = std::min(step, (run[i]->work - run[i]->done) / rate[i]);
		}
		for (size_t i = 0; i < run.size(); i++) {
			run[i]->done += rate[i] * step;
			if (run[i]->done >= run[i]->work * (1 - 1e-12))
				run[i]->end = t + step;
		}
		if (run.size() >= 2) {
			area += norm * step;
			out.shared_s += step;
		}
		t += step;
	}
	out.makespan = t;
	out.shared_throughput = out.shared_s > 0 ? area / out.shared_s : 0;
	return out;
}

void print(const char *scenario, const char *policy, const Outcome &o)
{
	std::printf("%-9s %-10s makespan %9.1f s   normalised throughput %.3f "
		    "(sum over jobs of samples/s over peak, while >= 2 run)\n",
		    scenario, policy, o.makespan, o.shared_throughput);
}

} // namespace

int main(int argc, char **argv)
{
	if (argc < 3) {
		std::fprintf(stderr, "usage: loader-bench CPUS KIND:C:R [KIND:C:R ...]\n");
		return 2;
	}
	const bool contended = std::string(argv[1]) == "contended";
	int cpus = contended ? 2 : std::atoi(argv[1]);
	std::vector<Kind> kinds;
	for (int i = 2; i < argc; i++) {
		std::string a = argv[i];
		size_t p1 = a.find(':'), p2 = a.find(':', p1 + 1);
		double c = 0, r = 0;
		if (p1 != std::string::npos && p2 != std::string::npos) {
			c = std::atof(a.substr(p1 + 1, p2 - p1 - 1).c_str());
			r = std::atof(a.substr(p2 + 1).c_str());
		}
		if (cpus < 2 || !(c > 0) || !(r > 0)) {
			std::fprintf(stderr, "loader-bench: bad argument '%s'\n", argv[i]);
			return 2;
		}
		kinds.push_back({ a.substr(0, p1), LoaderModel(c, r) });
	}
	if (contended) {
		int need = 0;
		for (const Kind &k : kinds)
			need += k.model.saturation_workers() + 1;
		cpus = std::max(static_cast<int>(2 * kinds.size()), need - 1);
	}
	for (const Kind &k : kinds)
		std::printf("kind %-12s peak %8.1f samples/s, %7.1f per worker, "
			    "saturates at %d workers\n",
			    k.name.c_str(), k.model.peak_samples_s(), k.model.worker_rate(),
			    k.model.saturation_workers());
	// Every job: 600 s of work at its full speed.
	const double full_s = 600;
	std::vector<SimJob> pair, seq;
	for (const Kind &k : kinds)
		pair.push_back({ &k, 0, full_s * k.model.peak_samples_s() });
	for (size_t i = 0; i < 2 * kinds.size(); i++) {
		const Kind &k = kinds[i % kinds.size()];
		seq.push_back({ &k, 150.0 * i, full_s * k.model.peak_samples_s() });
	}
	Outcome pa = simulate(pair, cpus, true), pe = simulate(pair, cpus, false);
	Outcome sa = simulate(seq, cpus, true), se = simulate(seq, cpus, false);
	std::printf("node: %d CPUs%s, one task per job\n", cpus,
		    contended ? " (contended: one fewer than the kinds need at full speed)" : "");
	print("pair", "allocator", pa);
	print("pair", "even", pe);
	print("sequence", "allocator", sa);
	print("sequence", "even", se);
	std::printf("%6s %18s %16s\n", "CPUs", "throughput ratio", "makespan ratio");
	for (int n : { 4, 6, 8, 12, 16, 24, 32, 64 }) {
		Outcome a = simulate(pair, n, true), e = simulate(pair, n, false);
		Outcome sa2 = simulate(seq, n, true), se2 = simulate(seq, n, false);
		std::printf("%6d %18.3f %16.3f\n", n, a.shared_throughput / e.shared_throughput,
			    sa2.makespan / se2.makespan);
	}
	std::printf("loader shares vs even split: throughput x %.2f, makespan x %.2f\n",
		    pa.shared_throughput / pe.shared_throughput, sa.makespan / se.makespan);
	return 0;
}
