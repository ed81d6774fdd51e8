// controller.cpp - see controller.hpp.
#include "controller/controller.hpp"

#include <algorithm>
#include <chrono>

#include "planner/planner.hpp"

namespace omru {
namespace controller {
namespace {
// Never plan fewer pending jobs than this, however slow the plans are.
constexpr size_t kMinPendingCap = 32;
} // namespace

Controller::Controller(std::shared_ptr<const ProfileTable> profiles, PlanSettings s)
	: book_(std::move(profiles)), settings_(s), pending_cap_(s.max_pending)
{
}

void Controller::reconfigure(std::shared_ptr<const ProfileTable> profiles,
			     PlanSettings s)
{
	book_ = SpeedBook(std::move(profiles));
	settings_ = s;
	pending_cap_ = s.max_pending;
}

void Controller::plan(const Snapshot &snap, double time_cap_ms)
{
	auto t0 = std::chrono::steady_clock::now();
	PlanSettings st = settings_;
	st.max_pending = std::min(settings_.max_pending, pending_cap_);
	BuiltInput b = build_plan_input(snap, book_, st);
	std::unordered_map<uint32_t, Decision> out;
	planner::Plan plan;
	if (!b.in.jobs.empty()) {
		plan = planner::make_plan(b.in, keep_);
		keep_ = plan.choice;
	}
	size_t pending = 0;
	for (size_t j = 0; j < b.in.jobs.size(); j++) {
		const planner::PlanJob &pj = b.in.jobs[j];
		Decision d;
		d.moldable = b.in.curves[pj.curve].gpus.size() > 1;
		const planner::PlannedJob &p = plan.jobs[j];
		if (pj.running) {
			d.kind = Decision::Kind::Start; // already
			d.gpus = pj.gpus;
			d.nodes = static_cast<int>(pj.where.size());
			d.where = pj.where;
			d.runtime_s = p.end_s() - snap.now_s;
		} else if (p.segments.empty()) {
			d.kind = Decision::Kind::Hold; // never fits as modelled
		} else {
			pending++;
			const planner::PlannedSegment &s = p.segments.front();
			d.kind = Decision::Kind::Wait;
			d.gpus = s.gpus;
			d.nodes = s.nodes;
			d.start_s = s.start_s;
			d.runtime_s = p.end_s() - s.start_s;
		}
		if (d.gpus > 0)
			d.profile = profile_source(book_, b, j, d.gpus, d.nodes);
		out.emplace(b.job_ids[j], std::move(d));
	}
	for (const planner::Action &a : plan.now) {
		if (a.kind != planner::Action::Kind::Start)
			continue; // resizing is off in Slurm (needs checkpoints)
		Decision &d = out[b.job_ids[a.job]];
		d.kind = Decision::Kind::Start;
		d.where = a.where;
		d.gpus = a.gpus;
		d.nodes = static_cast<int>(a.where.size());
		d.start_s = snap.now_s;
	}
	// Jobs beyond the planned queue wait for their turn; jobs the model
	// cannot express are left to cons_tres.
	for (uint32_t id : b.left_out)
		out[id].kind = Decision::Kind::Hold;
	for (uint32_t id : b.unmodelled)
		out[id].kind = Decision::Kind::Pass;
	decisions_ = std::move(out);

	double ms = std::chrono::duration<double, std::milli>(
			    std::chrono::steady_clock::now() - t0)
			    .count();
	stats_.plans++;
	stats_.last_ms = ms;
	stats_.max_ms = std::max(stats_.max_ms, ms);
	stats_.total_ms += ms;
	stats_.last_jobs = b.in.jobs.size();
	stats_.last_pending = pending;
	stats_.last_starts = plan.now.size();
	stats_.makespan_s = plan.makespan_s;
	stats_.candidates = plan.candidates;
	if (time_cap_ms > 0 && ms > time_cap_ms)
		pending_cap_ = std::max(kMinPendingCap,
					static_cast<size_t>(pending * time_cap_ms / ms));
	else if (time_cap_ms > 0 && ms < time_cap_ms / 2)
		pending_cap_ = std::min(settings_.max_pending,
					std::max(pending_cap_ * 2, kMinPendingCap));
}

const Decision *Controller::lookup(uint32_t job_id) const
{
	auto it = decisions_.find(job_id);
	return it == decisions_.end() ? nullptr : &it->second;
}

} // namespace controller
} // namespace omru
