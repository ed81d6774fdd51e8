// resize_book.cpp - see resize_book.hpp.
#include "controller/resize_book.hpp"

#include <algorithm>
#include <cstdio>

#include "policy/training_phase.hpp"

namespace omru {
namespace controller {

bool ResizeBook::request(Resize r)
{
	if (r.job_id == 0 || refused(r.job_id) || open_.count(r.job_id) ||
	    r.to_gpus < 1 || r.where.empty())
		return false;
	r.stopped_s = 0;
	r.cost_s = 0;
	open_.emplace(r.job_id, std::move(r));
	return true;
}

bool ResizeBook::ended(uint32_t job_id, bool for_resize, double now_s)
{
	auto it = open_.find(job_id);
	if (it == open_.end())
		return false;
	if (!for_resize) {
		open_.erase(it); // finished, failed or cancelled instead
		return false;
	}
	// The same stop reported again (slurmctld restarted while the job was
	// completing, and recovery ends it once more): the first time stands.
	if (!(it->second.stopped_s > 0))
		it->second.stopped_s = now_s;
	return true;
}

std::optional<Resize> ResizeBook::started(uint32_t job_id, double now_s)
{
	auto it = open_.find(job_id);
	if (it == open_.end())
		return std::nullopt;
	Resize r = std::move(it->second);
	open_.erase(it);
	if (!(r.stopped_s > 0))
		return std::nullopt; // not requeued by us: nothing measured
	r.cost_s = std::max(0.0, now_s - r.asked_s);
	rest_until_[job_id] = now_s + 2 * r.cost_s;
	CostMean &m = by_model_[r.model];
	m.n++;
	m.sum += r.cost_s;
	all_.n++;
	all_.sum += r.cost_s;
	restarting_[job_id] = r;
	return r;
}

std::optional<std::string> ResizeBook::note_resumed(uint32_t job_id, double at_s,
						   double now_s)
{
	auto it = restarting_.find(job_id);
	// Before the start: a value an earlier run of the job left.
	if (it == restarting_.end() || !(at_s >= it->second.asked_s + it->second.cost_s))
		return std::nullopt;
	const Resize &r = it->second;
	// The job's word, bounded by slurmctld's clock (header).
	at_s = std::min({ at_s, now_s, r.asked_s + r.cost_s + s_.grace_s });
	double full = at_s - r.asked_s, more = full - r.cost_s;
	by_model_[r.model].sum += more;
	all_.sum += more;
	rest_until_[job_id] = std::max(rest_until_[job_id], at_s + 2 * full);
	char buf[256];
	std::snprintf(buf, sizeof(buf),
		      "job %u trains again after its resize %d -> %d GPUs: restart "
		      "cost %.0f s (%.0f s to its start, %.0f s to resume)",
		      job_id, r.from_gpus, r.to_gpus, full, r.cost_s, more);
	restarting_.erase(it);
	return std::string(buf);
}

void ResizeBook::note_free_to_start(uint32_t job_id, double now_s)
{
	auto it = open_.find(job_id);
	if (it != open_.end() && it->second.stopped_s > 0 && !(it->second.free_s > 0))
		it->second.free_s = now_s;
}

std::vector<std::string> ResizeBook::expire(double now_s)
{
	std::vector<std::string> log;
	char buf[256];
	for (auto it = open_.begin(); it != open_.end();) {
		const Resize &r = it->second;
		bool stopping = !(r.stopped_s > 0);
		// Resuming: Slurm's hold after the requeue may take one grace,
		// then the job has the grace to start.
		double since = stopping ? r.asked_s
			     : r.free_s > 0 ? std::min(r.free_s, r.stopped_s + s_.grace_s)
					    : r.stopped_s + s_.grace_s;
		since = std::max(since, r.watched_s);
		if (now_s - since <= s_.grace_s) {
			++it;
			continue;
		}
		if (stopping) {
			refused_.insert(r.job_id);
			std::snprintf(buf, sizeof(buf),
				      "job %u did not stop within %.0f s of the resize "
				      "request (%d -> %d GPUs): left running, not resized again",
				      r.job_id, s_.grace_s, r.from_gpus, r.to_gpus);
		} else if (r.free_s > 0) {
			std::snprintf(buf, sizeof(buf),
				      "job %u was requeued for %d GPUs but has not started "
				      "there within %.0f s of being free to: planned like "
				      "any pending job",
				      r.job_id, r.to_gpus, s_.grace_s);
		} else {
			std::snprintf(buf, sizeof(buf),
				      "job %u was requeued for %d GPUs but Slurm has held it "
				      "for %.0f s: planned like any pending job",
				      r.job_id, r.to_gpus, now_s - r.stopped_s);
		}
		log.emplace_back(buf);
		it = open_.erase(it);
	}
	return log;
}

const Resize *ResizeBook::under_way(uint32_t job_id) const
{
	auto it = open_.find(job_id);
	return it == open_.end() ? nullptr : &it->second;
}

void ResizeBook::forget(uint32_t job_id)
{
	open_.erase(job_id);
	restarting_.erase(job_id);
	refused_.erase(job_id);
	rest_until_.erase(job_id);
	late_.erase(job_id);
}

void ResizeBook::note_phase(uint32_t job_id, const CommentPhase &p)
{
	if (late_phase(p, s_.phase_threshold))
		late_.insert(job_id);
}

bool ResizeBook::may_shrink(uint32_t job_id) const
{
	return s_.phase_aware && late_.count(job_id) > 0;
}

bool ResizeBook::resting(uint32_t job_id, double now_s) const
{
	if (refused(job_id))
		return true;
	auto it = rest_until_.find(job_id);
	return it != rest_until_.end() && now_s < it->second;
}

std::vector<uint32_t> ResizeBook::jobs() const
{
	std::vector<uint32_t> out;
	out.reserve(open_.size());
	for (const auto &kv : open_)
		out.push_back(kv.first);
	return out;
}

double ResizeBook::priced_cost_s(const std::string &model) const
{
	double cost = s_.default_cost_s;
	if (auto it = by_model_.find(model); it != by_model_.end() && it->second.n > 0)
		cost = it->second.sum / it->second.n;
	else if (all_.n > 0)
		cost = all_.sum / all_.n;
	return cost * (1 + s_.margin);
}

ResizeBookState ResizeBook::state() const
{
	ResizeBookState st;
	for (const auto &kv : open_)
		st.open.push_back(kv.second);
	for (const auto &kv : restarting_)
		st.restarting.push_back(kv.second);
	auto by_id = [](const Resize &a, const Resize &b) { return a.job_id < b.job_id; };
	std::sort(st.open.begin(), st.open.end(), by_id);
	std::sort(st.restarting.begin(), st.restarting.end(), by_id);
	st.refused.assign(refused_.begin(), refused_.end());
	st.late.assign(late_.begin(), late_.end());
	st.rest_until.assign(rest_until_.begin(), rest_until_.end());
	std::sort(st.rest_until.begin(), st.rest_until.end());
	st.by_model = by_model_;
	st.all = all_;
	return st;
}

void ResizeBook::restore(const ResizeBookState &st, double now_s)
{
	open_.clear();
	for (Resize r : st.open) {
		r.watched_s = now_s;
		open_.emplace(r.job_id, std::move(r));
	}
	restarting_.clear();
	for (const Resize &r : st.restarting)
		restarting_.emplace(r.job_id, r);
	refused_ = std::set<uint32_t>(st.refused.begin(), st.refused.end());
	late_ = std::set<uint32_t>(st.late.begin(), st.late.end());
	rest_until_ = std::unordered_map<uint32_t, double>(st.rest_until.begin(),
							    st.rest_until.end());
	by_model_ = st.by_model;
	all_ = st.all;
}

std::pair<long, double> ResizeBook::measured() const
{
	return { all_.n, all_.n ? all_.sum / all_.n : 0.0 };
}

} // namespace controller
} // namespace omru
