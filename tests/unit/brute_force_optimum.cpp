// brute_force_optimum.cpp - see brute_force_optimum.hpp.
//
// Why serial SGS over all orders is exact: take an optimal schedule and
// shift jobs left (jumping over others if need be) until none can start
// earlier; the makespan does not grow.  Take the jobs in order of their start
// times there, and the SGS rebuilds that very schedule: if it could put a
// job j at t < S_j given only the jobs starting no later than j, then j
// could move to t in the whole schedule too - the jobs placed after it are
// not running in [t, S_j), and from S_j on j occupies no more than before -
// which the left shifts ruled out.  With every allotment tried as well, the
// minimum over all (allotment, order) pairs is the optimum.
//
// The search is a depth-first walk over order prefixes, choosing the next
// job and its option together; a prefix's placements never move when more
// jobs are added (the SGS only fills free space), so a prefix whose bound
// already reaches the best schedule found cannot lead anywhere better.
#include "brute_force_optimum.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

namespace omru::test {

namespace {

constexpr int max_jobs = 8;
constexpr int max_gpus = 16;

struct Option {
	int gpus;
	double runtime_s;
};

struct Interval {
	double start_s;
	double end_s;
	int gpus;
};

void check_node(int gpus_total)
{
	if (gpus_total < 1 || gpus_total > max_gpus)
		throw std::invalid_argument("gpus_total " + std::to_string(gpus_total) +
					    " is outside 1.." + std::to_string(max_gpus));
}

void check_option(int gpus_total, int gpus, double runtime_s, const std::string &what)
{
	if (gpus < 1 || gpus > gpus_total)
		throw std::invalid_argument(what + " asks for " + std::to_string(gpus) +
					    " GPUs, the node has " +
					    std::to_string(gpus_total));
	// !(x > 0) also catches NaN.
	if (!(runtime_s > 0) || !std::isfinite(runtime_s))
		throw std::invalid_argument(what + " has runtime " + std::to_string(runtime_s) +
					    ", not a positive finite number");
}

// GPUs in use at time x.  Intervals are half-open, so a job ending at x has
// already freed its GPUs for one starting at x.
int used_at(const std::vector<Interval> &placed, double x)
{
	int used = 0;
	for (const Interval &p : placed)
		if (p.start_s <= x && x < p.end_s)
			used += p.gpus;
	return used;
}

// Whether `gpus` GPUs are free throughout [t, t + runtime_s).  Use only rises
// where a job starts, so t itself and every start inside the interval are the
// only instants to look at.
bool fits(int gpus_total, const std::vector<Interval> &placed, int gpus, double t,
	  double runtime_s)
{
	const double end = t + runtime_s;
	if (used_at(placed, t) + gpus > gpus_total)
		return false;
	for (const Interval &p : placed)
		if (p.start_s > t && p.start_s < end &&
		    used_at(placed, p.start_s) + gpus > gpus_total)
			return false;
	return true;
}

// The earliest feasible start.  Any feasible start can slide left until it
// reaches 0 or the end of a placed job, so only those are candidates; the
// latest end always fits (everything has finished by then).
double earliest_start(int gpus_total, const std::vector<Interval> &placed, int gpus,
		      double runtime_s)
{
	if (fits(gpus_total, placed, gpus, 0, runtime_s))
		return 0;
	double best = std::numeric_limits<double>::infinity();
	for (const Interval &p : placed)
		if (p.end_s < best && fits(gpus_total, placed, gpus, p.end_s, runtime_s))
			best = p.end_s;
	return best;
}

// The options worth trying, ascending by GPUs (so descending by runtime).
// An option is dropped when one with no more GPUs is at least as fast:
// swapping it in keeps any schedule feasible (same start, shorter or equal
// interval, fewer or equal GPUs) without delaying anything, so the optimum
// survives.
std::vector<Option> useful_options(const BfJob &job)
{
	std::vector<Option> all;
	for (size_t k = 0; k < job.gpus.size(); k++)
		all.push_back({ job.gpus[k], job.runtime_s[k] });
	std::sort(all.begin(), all.end(), [](const Option &a, const Option &b) {
		return a.gpus != b.gpus ? a.gpus < b.gpus : a.runtime_s < b.runtime_s;
	});
	std::vector<Option> kept;
	for (const Option &o : all)
		if (kept.empty() || o.runtime_s < kept.back().runtime_s)
			kept.push_back(o);
	return kept;
}

class Search {
public:
	Search(int gpus_total, std::vector<std::vector<Option>> options)
		: gpus_total_(gpus_total), options_(std::move(options)),
		  chosen_(options_.size(), -1), start_(options_.size(), 0)
	{
		for (const std::vector<Option> &opts : options_) {
			double area = std::numeric_limits<double>::infinity();
			for (const Option &o : opts)
				area = std::min(area, o.gpus * o.runtime_s);
			min_area_.push_back(area);
			// Ascending GPUs means the last option is the fastest.
			min_runtime_.push_back(opts.back().runtime_s);
		}
	}

	BfSchedule run()
	{
		// Start from a real schedule (fastest options, given order) so
		// the bound prunes from the first leaf on and best_ is never
		// empty.
		const size_t n = options_.size();
		std::vector<int> gpus, order;
		std::vector<double> runtime;
		for (size_t j = 0; j < n; j++) {
			gpus.push_back(options_[j].back().gpus);
			runtime.push_back(options_[j].back().runtime_s);
			order.push_back(static_cast<int>(j));
		}
		best_ = serial_sgs(gpus_total_, gpus, runtime, order);
		extend(0, 0);
		return best_;
	}

private:
	// Strictly better than the best so far, with a relative slack so that
	// start times summed in another order (same schedule, different
	// rounding) do not count as improvements or dodge the bound.
	bool improves(double makespan_s) const
	{
		return makespan_s < best_.makespan_s * (1 - 1e-9);
	}

	// IN makespan_s, area: of the jobs placed so far.
	void extend(double makespan_s, double area)
	{
		const size_t n = options_.size();
		if (placed_.size() == n) {
			if (improves(makespan_s))
				record(makespan_s);
			return;
		}
		// Lower bound on any completion: the GPU-seconds still owed
		// must fit on the node, and each job left needs at least its
		// fastest runtime from time 0.
		double owed = area, longest = 0;
		for (size_t j = 0; j < n; j++)
			if (chosen_[j] < 0) {
				owed += min_area_[j];
				longest = std::max(longest, min_runtime_[j]);
			}
		if (!improves(std::max({ makespan_s, owed / gpus_total_, longest })))
			return;
		for (size_t j = 0; j < n; j++) {
			if (chosen_[j] >= 0)
				continue;
			for (size_t k = 0; k < options_[j].size(); k++) {
				const Option &o = options_[j][k];
				double s = earliest_start(gpus_total_, placed_, o.gpus, o.runtime_s);
				double end = std::max(makespan_s, s + o.runtime_s);
				if (!improves(end))
					continue;
				chosen_[j] = static_cast<int>(k);
				start_[j] = s;
				placed_.push_back({ s, s + o.runtime_s, o.gpus });
				extend(end, area + o.gpus * o.runtime_s);
				placed_.pop_back();
				chosen_[j] = -1;
			}
		}
	}

	void record(double makespan_s)
	{
		best_.makespan_s = makespan_s;
		for (size_t j = 0; j < options_.size(); j++) {
			best_.gpus[j] = options_[j][chosen_[j]].gpus;
			best_.start_s[j] = start_[j];
		}
	}

	const int gpus_total_;
	const std::vector<std::vector<Option>> options_;
	std::vector<double> min_area_;
	std::vector<double> min_runtime_;
	std::vector<int> chosen_;	// option index per job, -1 = not placed
	std::vector<double> start_;	// per job, valid while chosen_ >= 0
	std::vector<Interval> placed_;	// in placement order
	BfSchedule best_;
};

} // namespace

BfSchedule serial_sgs(int gpus_total, const std::vector<int> &gpus,
		      const std::vector<double> &runtime_s, const std::vector<int> &order)
{
	check_node(gpus_total);
	const size_t n = gpus.size();
	if (runtime_s.size() != n || order.size() != n)
		throw std::invalid_argument("gpus, runtime_s and order differ in length");
	for (size_t j = 0; j < n; j++)
		check_option(gpus_total, gpus[j], runtime_s[j], "job " + std::to_string(j));
	std::vector<bool> seen(n, false);
	for (int j : order) {
		if (j < 0 || static_cast<size_t>(j) >= n || seen[j])
			throw std::invalid_argument("order is not a permutation of the jobs");
		seen[j] = true;
	}

	BfSchedule out;
	out.gpus = gpus;
	out.start_s.assign(n, 0);
	std::vector<Interval> placed;
	for (int j : order) {
		double s = earliest_start(gpus_total, placed, gpus[j], runtime_s[j]);
		out.start_s[j] = s;
		placed.push_back({ s, s + runtime_s[j], gpus[j] });
		out.makespan_s = std::max(out.makespan_s, s + runtime_s[j]);
	}
	return out;
}

BfSchedule brute_force_optimum(int gpus_total, const std::vector<BfJob> &jobs)
{
	check_node(gpus_total);
	if (jobs.size() > static_cast<size_t>(max_jobs))
		throw std::invalid_argument(std::to_string(jobs.size()) + " jobs, at most " +
					    std::to_string(max_jobs) + " are searched");
	std::vector<std::vector<Option>> options;
	for (size_t j = 0; j < jobs.size(); j++) {
		const BfJob &job = jobs[j];
		const std::string name = "job " + std::to_string(j);
		if (job.gpus.empty())
			throw std::invalid_argument(name + " has no options");
		if (job.gpus.size() != job.runtime_s.size())
			throw std::invalid_argument(name + ": gpus and runtime_s differ in length");
		for (size_t k = 0; k < job.gpus.size(); k++)
			check_option(gpus_total, job.gpus[k], job.runtime_s[k],
				     name + " option " + std::to_string(k));
		options.push_back(useful_options(job));
	}
	return Search(gpus_total, std::move(options)).run();
}

} // namespace omru::test
