// replanner.cpp - see replanner.hpp.
#include "planner/replanner.hpp"

#include <algorithm>
#include <iterator>

namespace omru {
namespace planner {
namespace {

std::vector<long> sorted_ids(const PlanInput &in)
{
	std::vector<long> ids;
	ids.reserve(in.jobs.size());
	for (const PlanJob &j : in.jobs)
		ids.push_back(j.id);
	std::sort(ids.begin(), ids.end());
	return ids;
}

} // namespace

Plan Replanner::plan(const PlanInput &in)
{
	size_t pending = 0;
	for (const PlanJob &j : in.jobs)
		pending += !j.running;
	std::vector<long> ids = sorted_ids(in);
	PlanSearch search;
	if (keep_.valid && pending > kLongQueue && !ids_at_full_.empty() &&
	    incremental_since_full_ < kMaxIncremental) {
		std::vector<long> changed;
		std::set_symmetric_difference(ids.begin(), ids.end(),
					      ids_at_full_.begin(), ids_at_full_.end(),
					      std::back_inserter(changed));
		if (changed.size() <= std::max<size_t>(1, ids.size() / 100))
			search.max_simulations = kNeighbours;
	}
	std::vector<double> ref_end;
	if (in.bound.on)
		ref_end = shadow_.ends(in);
	const std::vector<ArrivalGuard::Held> held = arrivals_.guarded(in);
	Plan p;
	if (held.empty()) {
		p = make_plan(in, keep_, search, in.bound.on ? &ref_end : nullptr);
	} else {
		PlanInput at_ask = in;
		ArrivalGuard::hold_to_ask(at_ask, held);
		p = make_plan(at_ask, keep_, search, in.bound.on ? &ref_end : nullptr);
	}
	p.held_to_ask = static_cast<int>(held.size());
	keep_ = p.choice;
	if (p.incremental) {
		incremental_since_full_++;
	} else {
		ids_at_full_ = std::move(ids);
		incremental_since_full_ = 0;
	}
	return p;
}

} // namespace planner
} // namespace omru
