// omru_ga.cpp - omru-ga: the baseline planner of the OMRU paper for an
// offline batch of training jobs (every job submitted at 0).  A genetic
// algorithm chooses which jobs run together (a chromosome: one group number
// per job); omru_ga_groups.cpp runs a chromosome (barriers between groups,
// greedy GPU counts, GPU reuse).
//
// The GA: population --population (50), --iterations generations (1000),
// std::mt19937_64 seeded with --seed.  Initial population: every job in one
// group, and random chromosomes of 1..n groups (n jobs).  Each generation
// keeps the best chromosome (elitism) and breeds the rest: tournament
// selection (best of 3), uniform crossover (probability 0.9), mutation (each
// job moves with probability 1/n, to another group or, one time in four, to
// a new group at a random place; one child in five also swaps two jobs'
// groups).  Keeping one elite rather than more and a tournament of 3 gave
// the best makespans over seeds on the shared 32-job batches.
// Chromosomes are normalised: groups renumbered 0.. in their order (empty
// ones vanish), and a group whose jobs' smallest counts exceed the cluster
// pushes the jobs that do not fit (in job order) to the next group.  Fitness
// is the makespan the chromosome really yields: a nested simulation with the
// same executor (Runner) that then runs the best chromosome for real, so the
// schedule produced is the one that was evaluated.  Fitness is cached by
// normalised chromosome.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <unordered_map>

#include "model/schedule.hpp"
#include "policy/omru_ga_groups.hpp"
#include "policy/registry.hpp"
#include "sim/simulator.hpp"

namespace omru {
namespace {

using ga::Batch;
using ga::Chromosome;

constexpr double kInf = std::numeric_limits<double>::infinity();

struct ChromosomeHash {
	size_t operator()(const Chromosome &c) const
	{
		uint64_t h = 1469598103934665603ull; // FNV-1a
		for (int x : c)
			h = (h ^ static_cast<uint64_t>(x)) * 1099511628211ull;
		return static_cast<size_t>(h);
	}
};

class Ga {
    public:
	Ga(const SchedulingContext &ctx, const Batch &b, const PolicyOptions &o)
		: ctx_(ctx), b_(b), opts_(o), rng_(o.seed),
		  n_(ctx.workload().jobs.size())
	{
	}

	// RET the best normalised chromosome found.
	Chromosome run()
	{
		const size_t size = static_cast<size_t>(std::max(1, opts_.ga_population));
		std::vector<Chromosome> pop;
		pop.push_back(Chromosome(n_, 0));
		while (pop.size() < size) {
			uint64_t groups = 1 + below(n_);
			Chromosome c(n_);
			for (int &g : c)
				g = static_cast<int>(below(groups));
			pop.push_back(std::move(c));
		}
		rank(pop);
		for (int gen = 0; gen < opts_.ga_iterations; gen++) {
			std::vector<Chromosome> next{ pop.front() }; // the elite
			while (next.size() < size) {
				Chromosome child = pop[tournament(size)];
				const Chromosome &other = pop[tournament(size)];
				if (unit() < 0.9)
					for (size_t i = 0; i < n_; i++)
						if (below(2))
							child[i] = other[i];
				mutate(child);
				next.push_back(std::move(child));
			}
			pop = std::move(next);
			rank(pop);
		}
		return pop.front();
	}

    private:
	uint64_t below(uint64_t n) { return rng_() % n; }
	double unit() { return static_cast<double>(rng_() >> 11) * 0x1.0p-53; }

	// The population is ranked, so the best of k draws is the smallest.
	size_t tournament(size_t size)
	{
		size_t best = below(size);
		for (int k = 1; k < 3; k++)
			best = std::min<size_t>(best, below(size));
		return best;
	}

	void mutate(Chromosome &c)
	{
		// Odd labels 2g+1 are the groups; even labels 2g are new groups
		// just before group g (2G: after the last).
		const uint64_t groups = 1 + *std::max_element(c.begin(), c.end());
		for (int &g : c)
			g = 2 * g + 1;
		for (int &g : c) {
			if (below(n_) != 0)
				continue;
			if (below(4) == 0)
				g = static_cast<int>(2 * below(groups + 1));
			else
				g = static_cast<int>(2 * below(groups) + 1);
		}
		if (n_ > 1 && below(5) == 0)
			std::swap(c[below(n_)], c[below(n_)]);
	}

	// Groups renumbered 0.. in order; overfull groups repaired.
	void normalise(Chromosome &c) const
	{
		Chromosome labels = c;
		std::sort(labels.begin(), labels.end());
		labels.erase(std::unique(labels.begin(), labels.end()), labels.end());
		for (int &g : c)
			g = static_cast<int>(std::lower_bound(labels.begin(), labels.end(), g) -
					     labels.begin());
		int groups = static_cast<int>(labels.size());
		for (int k = 0; k < groups; k++) {
			int used = 0;
			for (size_t j = 0; j < n_; j++) {
				if (c[j] != k)
					continue;
				int need = b_.smallest(static_cast<int>(j));
				if (used + need <= b_.gpus) {
					used += need;
				} else {
					c[j] = k + 1;
					groups = std::max(groups, k + 2);
				}
			}
		}
	}

	double makespan(const Chromosome &c)
	{
		auto it = cache_.find(c);
		if (it != cache_.end())
			return it->second;
		std::unique_ptr<Policy> runner = ga::make_group_runner(b_, c);
		SimOptions so;
		so.restart_overhead_s = ctx_.restart_overhead_s();
		double end = 0;
		try {
			SimResult r = simulate(ctx_.cluster(), ctx_.profiles(),
					       ctx_.workload(), *runner, so);
			for (const Segment &s : r.schedule)
				end = std::max(end, s.end_s);
		} catch (const SimStuck &) {
			end = kInf;
		}
		cache_.emplace(c, end);
		return end;
	}

	// Normalises, evaluates and sorts the population, best first (ties
	// keep their order).
	void rank(std::vector<Chromosome> &pop)
	{
		std::vector<std::pair<double, size_t>> by;
		for (size_t i = 0; i < pop.size(); i++) {
			normalise(pop[i]);
			by.emplace_back(makespan(pop[i]), i);
		}
		std::sort(by.begin(), by.end());
		std::vector<Chromosome> sorted;
		for (const auto &[fit, i] : by)
			sorted.push_back(std::move(pop[i]));
		pop = std::move(sorted);
	}

	const SchedulingContext &ctx_;
	const Batch &b_;
	const PolicyOptions &opts_;
	std::mt19937_64 rng_;
	const size_t n_;
	std::unordered_map<Chromosome, double, ChromosomeHash> cache_;
};

class OmruGa final : public Policy {
    public:
	explicit OmruGa(const PolicyOptions &o) : opts_(o) {}

	std::string refuse(const Workload &w, const ProfileTable &p,
			   const Cluster &c) const override
	{
		const Job *online = nullptr;
		for (const Job &j : w.jobs)
			if (j.submit_s != 0 && (!online || j.line < online->line))
				online = &j;
		if (online)
			return "plans offline batches only (every job submitted at 0), "
			       "but job " + online->id + " (line " +
			       std::to_string(online->line) + " of " + w.name +
			       ") is submitted at " + format_number(online->submit_s) +
			       " s; use an online policy (e.g. backfill, tiresias, optimus)";
		return refuse_unrunnable_moldable(w, p, c);
	}

	void schedule(SchedulingContext &ctx) override
	{
		if (!batch_) { // the first call, at 0: plan
			batch_ = std::make_unique<Batch>(ctx.cluster(), ctx.profiles(),
							 ctx.workload());
			if (batch_->runnable()) // else refuse() says why
				runner_ = ga::make_group_runner(
					*batch_, Ga(ctx, *batch_, opts_).run());
		}
		if (runner_)
			runner_->schedule(ctx);
	}

    private:
	PolicyOptions opts_;
	std::unique_ptr<Batch> batch_;
	std::unique_ptr<Policy> runner_;
};

} // namespace

std::unique_ptr<Policy> make_omru_ga(const PolicyOptions &o)
{
	return std::make_unique<OmruGa>(o);
}

} // namespace omru
