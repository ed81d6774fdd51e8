// c_api_loader.cpp - the extern "C" side of the node's loader shares
// (omru/omru_loader.h) for spank_omru.
#include <unistd.h>

#include <string>

#include "c_boundary.hpp"
#include "loader/node_loader_state.hpp"
#include "omru/omru_loader.h"

using omru::guarded;
using omru::put;

namespace {

omru::NodeLoaderConfig config_of(const omru_spank_config_t *cfg)
{
	omru::NodeLoaderConfig c;
	c.mode = cfg->loader_share;
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	c.node_cpus = cfg->loader_cpus > 0 ? static_cast<int>(cfg->loader_cpus)
					   : static_cast<int>(online > 0 ? online : 1);
	c.max_workers = static_cast<int>(cfg->loader_max);
	return c;
}

std::string state_dir(const char *run_dir)
{
	return std::string(run_dir) + "/loader";
}

void tell(omru_loader_out_t *out, const omru::NodeShares &s)
{
	if (!out)
		return;
	put(out->summary, out->summary_len, s.changed ? s.summary() : "");
	std::string p;
	for (const std::string &x : s.problems)
		p += (p.empty() ? "" : "; ") + x;
	put(out->problems, out->problems_len, p);
}

char *problems_of(omru_loader_out_t *out)
{
	return out ? out->problems : nullptr;
}

size_t problems_len(omru_loader_out_t *out)
{
	return out ? out->problems_len : 0;
}

// Runs `body` on the node's state, reporting what it decided.
template <typename F>
int with_state(const char *run_dir, const omru_spank_config_t *cfg,
	       omru_loader_out_t *out, F body)
{
	if (out) {
		put(out->summary, out->summary_len, "");
		put(out->problems, out->problems_len, "");
	}
	return guarded(problems_of(out), problems_len(out), [&] {
		if (!run_dir || !cfg) {
			put(problems_of(out), problems_len(out), "no run_dir or config");
			return OMRU_EINVAL;
		}
		omru::NodeLoaderState state(state_dir(run_dir));
		omru::NodeShares s;
		int rc = body(state, config_of(cfg), s);
		if (rc == OMRU_OK)
			tell(out, s);
		return rc;
	});
}

} // namespace

extern "C" {

int omru_loader_join(const char *run_dir, const omru_spank_config_t *cfg,
		     const omru_loader_step_t *step, omru_loader_out_t *out)
{
	return with_state(run_dir, cfg, out, [&](omru::NodeLoaderState &state,
						 const omru::NodeLoaderConfig &c,
						 omru::NodeShares &s) {
		if (!step || !step->share_file || step->share_file[0] != '/' ||
		    step->tasks < 1 || step->pid < 1) {
			put(problems_of(out), problems_len(out), "invalid step");
			return OMRU_EINVAL;
		}
		omru::LoaderEntry e;
		e.job = step->job;
		e.step = step->step;
		e.pid = step->pid;
		e.pid_start = omru::process_start_ticks(step->pid);
		e.uid = step->uid;
		e.tasks = step->tasks;
		e.job_cpus = step->job_cpus;
		e.share_file = step->share_file;
		s = state.join(e, c);
		return OMRU_OK;
	});
}

int omru_loader_report(const char *run_dir, const omru_spank_config_t *cfg,
		       uint32_t job, uint32_t step, const char *report,
		       size_t len, omru_loader_out_t *out)
{
	return with_state(run_dir, cfg, out, [&](omru::NodeLoaderState &state,
						 const omru::NodeLoaderConfig &c,
						 omru::NodeShares &s) {
		auto r = omru::parse_loader_report(
			report ? std::string_view(report, len) : std::string_view());
		if (!r.ok()) {
			put(problems_of(out), problems_len(out), r.error());
			return OMRU_EINVAL;
		}
		s = state.report(job, step, r.value(), c);
		return OMRU_OK;
	});
}

int omru_loader_leave(const char *run_dir, const omru_spank_config_t *cfg,
		      uint32_t job, uint32_t step, omru_loader_out_t *out)
{
	return with_state(run_dir, cfg, out, [&](omru::NodeLoaderState &state,
						 const omru::NodeLoaderConfig &c,
						 omru::NodeShares &s) {
		s = state.leave(job, step, c);
		return OMRU_OK;
	});
}

int omru_loader_reshare(const char *run_dir, const omru_spank_config_t *cfg,
			omru_loader_out_t *out)
{
	return with_state(run_dir, cfg, out, [&](omru::NodeLoaderState &state,
						 const omru::NodeLoaderConfig &c,
						 omru::NodeShares &s) {
		s = state.reshare(c);
		return OMRU_OK;
	});
}

int omru_loader_report_field(const char *report, size_t len, char *field, size_t cap)
{
	try {
		auto r = omru::parse_loader_report(
			report ? std::string_view(report, len) : std::string_view());
		if (!r.ok()) {
			put(field, cap, r.error());
			return OMRU_EINVAL;
		}
		std::string f = omru::format_loader_field(r.value());
		if (f.size() >= cap) {
			put(field, cap, "no room");
			return OMRU_EINVAL;
		}
		put(field, cap, f);
		return OMRU_OK;
	} catch (...) {
		put(field, cap, "out of memory");
		return OMRU_EINTERNAL;
	}
}

} // extern "C"
