// controller.cpp - see controller.hpp.
#include "controller/controller.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "loader/loader_entry.hpp"
#include "model/admin_comment.hpp"
#include "planner/planner.hpp"
#include "profile/loader_model.hpp"

namespace omru {
namespace controller {
namespace {
// Never plan fewer pending jobs than this, however slow the plans are.
constexpr size_t kMinPendingCap = 32;
} // namespace

namespace {
SiteProfiles only_table(std::shared_ptr<const ProfileTable> t)
{
	SiteProfiles s;
	s.table = std::move(t);
	return s;
}
} // namespace

Controller::Controller(const SiteProfiles &site, PlanSettings s)
	: store_(std::make_shared<profiler::ProfileStore>()),
	  books_(site.table, site.row_list, s.spread_cost), settings_(s),
	  pending_cap_(s.max_pending),
	  resizes_(s.resize)
{
	books_.set_store(store_);
}

Controller::Controller(std::shared_ptr<const ProfileTable> profiles, PlanSettings s)
	: Controller(only_table(std::move(profiles)), s)
{
}

void Controller::reconfigure(const SiteProfiles &site, PlanSettings s)
{
	books_ = ProfileBooks(site.table, site.row_list, s.spread_cost);
	books_.set_store(store_);
	settings_ = s;
	pending_cap_ = s.max_pending;
	resizes_.configure(s.resize);
}

bool Controller::pop_stop(StopRequest &out)
{
	if (stops_.empty())
		return false;
	out = stops_.front();
	stops_.erase(stops_.begin());
	return true;
}

bool Controller::pop_note(std::string &out)
{
	if (notes_.empty())
		return false;
	out = std::move(notes_.front());
	notes_.erase(notes_.begin());
	return true;
}

bool Controller::job_stopped(uint32_t job_id, bool for_resize, double now_s)
{
	bool waits = resizes_.ended(job_id, for_resize, now_s);
	if (!waits && !for_resize)
		resizes_.forget(job_id);
	return waits;
}

std::optional<Resize> Controller::job_started(uint32_t job_id, double now_s)
{
	return resizes_.started(job_id, now_s);
}

void Controller::change(profiler::StoreOp op)
{
	store_->apply(op);
	unsaved_.push_back(std::move(op));
	books_.set_store(store_);
}

void Controller::install_store(const profiler::ProfileStore &store)
{
	auto fresh = std::make_shared<profiler::ProfileStore>(store);
	for (const profiler::StoreOp &op : unsaved_)
		fresh->apply(op);
	store_ = std::move(fresh);
	books_.set_store(store_);
}

std::vector<profiler::StoreOp> Controller::take_unsaved()
{
	std::vector<profiler::StoreOp> out;
	out.swap(unsaved_);
	return out;
}

// Rows a job's node sent (spank_omru, AdminComment `rows=`), checked again
// here: the field crossed a process boundary.  Only counts the job held
// can be in it; a bad field is ignored whole.
bool Controller::learn_rows(uint32_t job_id, uint32_t uid, const std::string &model,
			    int max_gpus, int max_nodes, const std::string &rows,
			    double now_s)
{
	if (rows.empty() || model.empty())
		return false;
	auto seen = learned_.find(job_id);
	if (seen != learned_.end() && seen->second == rows)
		return false;
	learned_[job_id] = rows;
	auto parsed = parse_comment_rows(rows);
	if (!parsed.ok())
		return false;
	bool changed = false;
	for (const CommentRow &r : parsed.value()) {
		if (r.gpus > max_gpus || r.nodes > max_nodes)
			continue;
		profiler::StoreRow row;
		row.model = model;
		row.gpus = r.gpus;
		row.nodes = r.nodes;
		row.epoch_s = r.epoch_s;
		row.source = profiler::RowSource::Measured;
		row.when = static_cast<int64_t>(now_s);
		row.job_id = job_id;
		if (profiler::valid_row(row)) {
			change(profiler::StoreOp::add_row(uid, row));
			changed = true;
		}
	}
	return changed;
}

// CPUs per GPU of an OMRU job: CpusPerGpu, raised with LoaderCpus to one
// CPU for the step plus the loader workers its user's jobs of the model
// were measured to need (a job confined to its own CPUs loads with those
// only).  Its own --cpus-per-gpu wins, in the glue.
void Controller::size_cpus(Decision &d, const JobSnap &j) const
{
	if (!j.omru || j.model.empty())
		return;
	d.cpus_per_gpu = settings_.cpus_per_gpu;
	if (!settings_.loader_cpus)
		return;
	d.loader_need = store_->loader_need(j.uid, j.model);
	if (d.loader_need > 0)
		d.cpus_per_gpu = std::max(d.cpus_per_gpu, 1 + d.loader_need);
}

std::vector<int> Controller::profiling_counts(const JobSnap &j, int gpus)
{
	if (!j.omru || j.model.empty() || gpus < 1 ||
	    j.profile_mode == OMRU_PROFILE_OFF ||
	    (j.profile_mode != OMRU_PROFILE_FORCE && books_.knows(j.uid, j.model)))
		return {};
	std::vector<int> counts;
	for (int g = 1; g < gpus && counts.size() < 31; g *= 2)
		counts.push_back(g);
	counts.push_back(gpus);
	return counts;
}

std::string Controller::job_ended(const JobEnd &e, double now_s)
{
	learned_.erase(e.job_id);
	const ColocationBook::Seen seen = colocation_.take(e.job_id, now_s);
	if (e.model.empty() || e.gpus < 1 || e.nodes < 1)
		return "";
	learn_rows(e.job_id, e.uid, e.model, e.gpus, e.nodes, e.rows, now_s);
	learned_.erase(e.job_id);
	std::string said;
	for (std::string line : { learn_loader(e, now_s), learn_signals(e, seen, now_s),
				  learn_runtime(e, seen, now_s) })
		if (!line.empty())
			said += (said.empty() ? "" : "; ") + line;
	return said;
}

// The model's loader demand for the job's user from the trainer's last
// report (spank_omru, AdminComment `loader=W:X:F:R`), checked again here:
// the field crossed a process boundary.  Any job teaches it, completed or
// not: the report measured the loader, not the runtime.  A bad field is
// ignored whole.  RET a line for the log, or "" without a field.
std::string Controller::learn_loader(const JobEnd &e, double now_s)
{
	if (e.loader.empty())
		return "";
	const std::string who = "model " + e.model + " of uid " + std::to_string(e.uid);
	auto sample = parse_loader_field(e.loader);
	auto model = sample.ok() ? LoaderModel::fit(sample.value()) : std::nullopt;
	if (!model)
		return who + ": loader report ignored (" +
		       (sample.ok() ? std::string("no model fits it") : sample.error()) + ")";
	int need = std::clamp(model->saturation_workers(), 1, profiler::kMaxLoaderNeed);
	change(profiler::StoreOp::set_loader_need(e.uid, e.model, need,
						  static_cast<int64_t>(now_s)));
	const LoaderSample &s = sample.value();
	char buf[200];
	std::snprintf(buf, sizeof(buf),
		      ": loader demand %d worker(s) per task (%d worker(s) gave "
		      "%.4g samples/s, waiting for data %.0f%% of the time)",
		      need, s.workers, s.samples_s, 100 * s.wait_fraction);
	return who + buf;
}

// A completed job's real epoch time, learned when it is off the
// prediction by more than the margin.  RET a line for the log, or "".
std::string Controller::learn_runtime(const JobEnd &e, const ColocationBook::Seen &seen,
				      double now_s)
{
	double work_s = e.run_s - e.profile_s;
	// A resized job's last run did part of the epochs: not comparable.
	if (!e.completed || e.resized || !(e.epochs > 0) || !(work_s > 0))
		return "";
	// Its launch as the plan priced it is no part of its epochs
	// (start_overhead.hpp); at most half its work.
	const double launch = start_overhead(settings_.start_overhead_s, &starts_, e.uid);
	double real = std::max(work_s - launch, 0.5 * work_s) / e.epochs;
	SpeedBook &book = books_.for_user(e.uid);
	int gpn = 1, nodes = e.nodes;
	const ProfileTable *t = book.profiles();
	int m = t ? t->model_id(e.model) : -1;
	double predicted = 0;
	if (m >= 0) {
		// Price it on a cluster that holds the job's spread: the model's
		// rows do not depend on the node count (speed_model.hpp).
		gpn = (e.gpus + nodes - 1) / nodes;
		if (const SpeedModel *sm = book.model_for(nodes, gpn))
			predicted = sm->spread(m, e.gpus, nodes).epoch_s;
	}
	// Beside other jobs it was predicted slower by what the plan priced
	// them to cost it: only the rest is the curve's error.
	const bool priced = settings_.interference && !settings_.interference->empty() &&
			    seen.seen_s > 0;
	const double neighbours = priced ? seen.mean_factor : 1; // 1: none priced
	if (priced && predicted > 0 && !seen.only_neighbour.empty())
		if (std::string line = learn_beside(e, seen.only_neighbour, real, predicted, now_s);
		    !line.empty())
			return line;
	predicted *= neighbours;
	// What its epochs at the predicted time leave of its work, within the
	// margin, is its user's launch (start_overhead.hpp).
	if (settings_.start_overhead_s < 0 && predicted > 0)
		starts_.add(e.uid, work_s, e.epochs * predicted, settings_.correction_margin);
	bool off = !(predicted > 0) ||
		   std::abs(real / predicted - 1) > settings_.correction_margin;
	if (!off)
		return "";
	profiler::StoreRow row;
	row.model = e.model;
	row.gpus = e.gpus;
	row.nodes = e.nodes;
	// The row is the model's time alone: without what its neighbours
	// cost it (the co-location table's mean factor over its run).
	row.epoch_s = real / neighbours;
	row.source = profiler::RowSource::Runtime;
	row.when = static_cast<int64_t>(now_s);
	row.job_id = e.job_id;
	if (!profiler::valid_row(row))
		return "";
	change(profiler::StoreOp::add_row(e.uid, row));
	char buf[256];
	if (predicted > 0) {
		double factor = std::clamp(store_->correction(e.uid, e.model) *
						   real / predicted,
					   0.01, 100.0);
		change(profiler::StoreOp::set_correction(e.uid, e.model, factor,
							 row.when));
		std::snprintf(buf, sizeof(buf),
			      "model %s of uid %u: epoch %.3g s at %d GPU(s) over %d "
			      "node(s), predicted %.3g s%s: curve corrected (factor %.3g)",
			      e.model.c_str(), e.uid, real, e.gpus, e.nodes,
			      predicted, neighbours > 1 ? " with its neighbours" : "",
			      factor);
	} else {
		std::snprintf(buf, sizeof(buf),
			      "model %s of uid %u: epoch %.3g s at %d GPU(s) over %d "
			      "node(s) learned from its runtime",
			      e.model.c_str(), e.uid, real, e.gpus, e.nodes);
	}
	return buf;
}

// The solo signals a job's batch node sampled (spank_omru: AdminComment
// `gpu_use=G:M:N`, percent over N samples), learned for its user's model
// when every plan that saw it found no other OMRU job on its nodes.  The
// field crossed a process boundary: a malformed one is ignored whole.
// RET a line for the log, or "".
std::string Controller::learn_signals(const JobEnd &e, const ColocationBook::Seen &seen,
				      double now_s)
{
	constexpr long kMinSamples = 3; // 15 s of a 5 s sampler: less says nothing
	if (e.gpu_use.empty() || !e.completed || !seen.alone || !(seen.seen_s > 0))
		return "";
	double g = -1, m = -1;
	long n = 0;
	char tail = 0;
	if (std::sscanf(e.gpu_use.c_str(), "%lf:%lf:%ld%c", &g, &m, &n, &tail) != 3 ||
	    !(g >= 0 && g <= 100) || !(m >= 0 && m <= 100) || n < kMinSamples)
		return "";
	profiler::SignalsRow s;
	s.gpu_pct = g;
	s.mem_pct = m;
	s.when = static_cast<int64_t>(now_s);
	s.job_id = e.job_id;
	change(profiler::StoreOp::add_signals(e.uid, e.model, s));
	const profiler::SignalsRow *kept = store_->signals(e.uid, e.model);
	char buf[256];
	std::snprintf(buf, sizeof(buf),
		      "model %s of uid %u ran alone: GPU %.1f%%, memory %.1f%% busy over %ld "
		      "samples; its solo signals now %.1f%% and %.1f%% (%d job(s))",
		      e.model.c_str(), e.uid, g, m, n, kept ? kept->gpu_pct : g,
		      kept ? kept->mem_pct : m, kept ? kept->runs : 1);
	return buf;
}

// A job beside one other model all along measured that pair for its user:
// its real epoch over its curve's time alone.  Kept when within what a
// pair can cost (from 1 - the margin, noise about "no slowdown", to
// kMaxSlowdown); further off, the curve is what is wrong and the runtime
// correction learns it instead.  RET a line for the log, or "" (not kept).
std::string Controller::learn_beside(const JobEnd &e, const std::string &neighbour,
				     double real, double solo_s, double now_s)
{
	const double measured = real / solo_s;
	if (!(measured >= 1 - settings_.correction_margin && measured <= kMaxSlowdown))
		return "";
	const PairPrices prices(*settings_.interference, store_.get());
	const double before = prices.slowdown(e.uid, e.model, neighbour);
	profiler::BesideRow b;
	b.neighbour = neighbour;
	b.slowdown = measured;
	b.when = static_cast<int64_t>(now_s);
	b.job_id = e.job_id;
	change(profiler::StoreOp::add_beside(e.uid, e.model, b));
	char buf[400];
	std::snprintf(buf, sizeof(buf),
		      "model %s of uid %u: epoch %.3g s at %d GPU(s), %.3g s alone by its "
		      "curve: beside model %s all along, slowdown %.3g measured, %.3g "
		      "priced, %.3g from now on for this user's jobs "
		      "(co-location table: %.3g)",
		      e.model.c_str(), e.uid, real, e.gpus, solo_s, neighbour.c_str(),
		      measured, before, prices.slowdown(e.uid, e.model, neighbour),
		      settings_.interference->slowdown(e.model, neighbour));
	return buf;
}

void Controller::plan(const Snapshot &snap, double time_cap_ms)
{
	auto t0 = std::chrono::steady_clock::now();
	// Observed with or without a table: a job that ran alone teaches its
	// model's solo signals either way (learn_signals).
	static const InterferenceModel kNoTable;
	const bool table = settings_.interference && !settings_.interference->empty();
	colocation_.observe(snap, PairPrices(table ? *settings_.interference : kNoTable,
					     store_.get()));
	PlanSettings st = settings_;
	st.measured_pairs = store_;
	st.max_pending = std::min(settings_.max_pending, pending_cap_);
	for (const JobSnap &j : snap.jobs)
		if (j.running && j.omru && !j.rows.empty())
			learn_rows(j.job_id, j.uid, j.model, j.gpus,
				   static_cast<int>(j.where.size()), j.rows, snap.now_s);
	BookFor book_for = [this](uint32_t uid) -> SpeedBook & {
		return books_.for_user(uid);
	};
	for (const JobSnap &j : snap.jobs)
		if (!j.running && !j.held)
			resizes_.note_free_to_start(j.job_id, snap.now_s);
	for (std::string &line : resizes_.expire(snap.now_s))
		notes_.push_back(std::move(line));
	for (const JobSnap &j : snap.jobs) {
		if (j.running && j.elastic && j.phase)
			resizes_.note_phase(j.job_id, *j.phase);
		if (j.running && j.resumed_at_s > 0)
			if (auto line = resizes_.note_resumed(j.job_id, j.resumed_at_s, snap.now_s))
				notes_.push_back(std::move(*line));
	}
	BuiltInput b = build_plan_input(snap, book_for, st, &resizes_, &starts_);
	for (const auto &u : b.unpriced)
		if (unpriced_logged_.insert(u).second)
			notes_.push_back("the profile rows of user " + std::to_string(u.first) +
					 " for model " + u.second +
					 " give epoch times the plan cannot price: that user's "
					 "jobs of the model are planned as unprofiled");
	std::set<uint32_t> over;
	for (uint32_t id : b.over_budget) {
		over.insert(id);
		if (!over_budget_logged_.count(id))
			notes_.push_back("job " + std::to_string(id) +
					 ": pricing its GPU range would pass its user's or the "
					 "plan's budget (doc/report-bounds.md): cons_tres "
					 "schedules it alone");
	}
	over_budget_logged_.swap(over);
	std::unordered_map<uint32_t, Decision> out;
	planner::Plan plan;
	if (!b.in.jobs.empty()) {
		plan = replanner_.plan(b.in);
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
		if (!pj.running && j < plan.ref_end_s.size() && std::isfinite(plan.ref_end_s[j]))
			d.ref_end_s = plan.ref_end_s[j];
		out.emplace(b.job_ids[j], std::move(d));
	}
	// Where each prediction comes from, and who should profile.
	std::unordered_map<uint32_t, const JobSnap *> by_id;
	for (const JobSnap &j : snap.jobs)
		by_id.emplace(j.job_id, &j);
	for (const planner::Action &a : plan.now) {
		if (a.kind == planner::Action::Kind::Resize) {
			// The job keeps running until it stops at a step;
			// the next plans hold its new GPUs for it.
			const JobSnap *js = by_id[b.job_ids[a.job]];
			if (!js || !js->running || !js->elastic)
				continue;
			Resize r;
			r.job_id = js->job_id;
			r.model = js->model;
			r.from_gpus = js->gpus;
			r.to_gpus = a.gpus;
			r.where = a.where;
			r.asked_s = snap.now_s;
			if (resizes_.request(r))
				stops_.push_back({ r.job_id, r.from_gpus, r.to_gpus });
			continue;
		}
		Decision &d = out[b.job_ids[a.job]];
		d.kind = Decision::Kind::Start;
		d.where = a.where;
		d.gpus = a.gpus;
		d.nodes = static_cast<int>(a.where.size());
		d.start_s = snap.now_s;
	}
	for (size_t j = 0; j < b.in.jobs.size(); j++) {
		Decision &d = out[b.job_ids[j]];
		if (d.gpus <= 0)
			continue;
		const JobSnap *js = by_id[b.job_ids[j]];
		auto own = [&](int m, int g, int k) {
			return js && books_.own_row(js->uid, b.book[j]->profiles()->model_name(m), g, k);
		};
		d.profile = profile_source(b, j, d.gpus, d.nodes, own);
		if (js && d.kind == Decision::Kind::Start && !js->running &&
		    !resizes_.under_way(js->job_id))
			d.profiling = profiling_counts(*js, d.gpus);
	}
	for (auto it = learned_.begin(); it != learned_.end();)
		it = by_id.count(it->first) ? std::next(it) : learned_.erase(it);
	// Jobs beyond the planned queue wait for their turn; jobs the model
	// cannot express are left to cons_tres.
	for (uint32_t id : b.left_out)
		out[id].kind = Decision::Kind::Hold;
	for (uint32_t id : b.unmodelled)
		out[id].kind = Decision::Kind::Pass;
	for (const JobSnap &j : snap.jobs)
		if (auto it = out.find(j.job_id); it != out.end())
			size_cpus(it->second, j);
	stats_.ref_moved.clear();
	for (const auto &[id, d] : out) {
		auto was = decisions_.find(id);
		if (d.ref_end_s < 0 || was == decisions_.end() || was->second.ref_end_s < 0)
			continue;
		double by = d.ref_end_s - was->second.ref_end_s;
		if (std::fabs(by) > 1)
			stats_.ref_moved.emplace_back(id, by);
	}
	std::sort(stats_.ref_moved.begin(), stats_.ref_moved.end(),
		  [](const auto &a, const auto &b) {
			  return std::fabs(a.second) > std::fabs(b.second) ||
				 (std::fabs(a.second) == std::fabs(b.second) && a.first < b.first);
		  });
	if (stats_.ref_moved.size() > kLateJobsLogged)
		stats_.ref_moved.resize(kLateJobsLogged);
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
	stats_.incremental += plan.incremental;
	stats_.late = plan.late;
	stats_.late_s = plan.late_s;
	stats_.is_reference = plan.is_reference;
	stats_.at_ask = plan.held_to_ask;
	stats_.late_jobs.clear();
	for (auto [j, by] : plan.late_jobs)
		stats_.late_jobs.emplace_back(b.job_ids[j], by);
	std::sort(stats_.late_jobs.begin(), stats_.late_jobs.end(),
		  [](auto &x, auto &y) { return x.second > y.second; });
	if (stats_.late_jobs.size() > kLateJobsLogged)
		stats_.late_jobs.resize(kLateJobsLogged);
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
