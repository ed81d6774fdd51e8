// c_api_elastic.cpp - the C boundary of elastic jobs' resizes
// (omru/omru_ctl.h, controller/resize_book.hpp).  Every entry point
// catches everything: an exception escaping into slurmctld would abort it.
#include <cmath>
#include <cstdio>
#include <string>

#include "c_boundary.hpp"
#include "controller/c_api_handle.hpp"
#include "model/admin_comment.hpp"
#include "omru/omru_ctl.h"

using omru::guarded;
using omru::put;


extern "C" {

int omru_ctl_pop_stop(omru_ctl_t *ctl, uint32_t *job_id, int *from_gpus, int *to_gpus)
{
	int rc = guarded(nullptr, 0, [&] {
		omru::controller::StopRequest s;
		if (!ctl || !ctl->ctl || !ctl->ctl->pop_stop(s))
			return 0;
		*job_id = s.job_id;
		*from_gpus = s.from_gpus;
		*to_gpus = s.to_gpus;
		return 1;
	});
	return rc == 1 ? 1 : 0;
}

void omru_ctl_disable_resizing(omru_ctl_t *ctl)
{
	guarded(nullptr, 0, [&] {
		if (ctl && ctl->ctl)
			ctl->ctl->disable_resizing();
		return OMRU_OK;
	});
}

int omru_ctl_pop_note(omru_ctl_t *ctl, char *buf, size_t len)
{
	int rc = guarded(nullptr, 0, [&] {
		std::string line;
		if (!ctl || !ctl->ctl || !ctl->ctl->pop_note(line))
			return 0;
		put(buf, len, line);
		return 1;
	});
	return rc == 1 ? 1 : 0;
}

int omru_ctl_resuming(const omru_ctl_t *ctl, uint32_t job_id)
{
	int rc = guarded(nullptr, 0, [&] {
		if (!ctl || !ctl->ctl)
			return 0;
		const omru::controller::Resize *r = ctl->ctl->resizes().under_way(job_id);
		return r && r->stopped_s > 0 ? 1 : 0;
	});
	return rc == 1 ? 1 : 0;
}

int omru_ctl_job_stopped(omru_ctl_t *ctl, uint32_t job_id, int exit_status, double now_s)
{
	int rc = guarded(nullptr, 0, [&] {
		if (!ctl || !ctl->ctl || !std::isfinite(now_s))
			return 0;
		return ctl->ctl->job_stopped(job_id, exit_status == OMRU_ELASTIC_EXIT_CODE, now_s)
			       ? 1 : 0;
	});
	return rc == 1 ? 1 : 0;
}

int omru_ctl_job_started(omru_ctl_t *ctl, uint32_t job_id, double now_s,
			 const char *previous, const char *comment, char *out,
			 size_t outlen, char *note, size_t notelen)
{
	put(out, outlen, "");
	put(note, notelen, "");
	int rc = guarded(note, notelen, [&] {
		if (!ctl || !ctl->ctl || !std::isfinite(now_s))
			return 0;
		std::optional<omru::controller::Resize> r = ctl->ctl->job_started(job_id, now_s);
		if (!r)
			return 0;
		// The earlier run's record stays (epochs_done: where it
		// resumes), the new plan's fields win, the resize is added.
		auto old = omru::parse_admin_comment(previous ? previous : "");
		omru::AdminComment rec;
		if (old.ok())
			rec = old.value();
		auto plan = omru::parse_admin_comment(comment ? comment : "");
		if (plan.ok())
			rec.merge(plan.value());
		// An unreadable earlier list is dropped, not kept half.
		std::vector<omru::CommentResize> list;
		if (const std::string *had = rec.get("resizes")) {
			auto parsed = omru::parse_comment_resizes(*had);
			if (parsed.ok())
				list = parsed.value();
		}
		list.push_back({ r->asked_s, r->from_gpus, r->to_gpus, r->cost_s });
		rec.set("resizes", omru::format_comment_resizes(list));
		put(out, outlen, omru::format_admin_comment(rec));
		char buf[256];
		auto [n, mean] = ctl->ctl->resizes().measured();
		std::snprintf(buf, sizeof(buf),
			      "resumed after a resize %d -> %d GPUs: restart cost %.0f s "
			      "(stop request to start; %ld measured, mean %.0f s)",
			      r->from_gpus, r->to_gpus, r->cost_s, n, mean);
		put(note, notelen, buf);
		return 1;
	});
	return rc == 1 ? 1 : 0;
}

} // extern "C"
