// c_api_controller.cpp - the extern "C" boundary of the controller
// (omru/omru_ctl.h).  Every entry point catches everything: an exception
// escaping into slurmctld would abort it.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <exception>
#include <memory>
#include <string>

#include "c_boundary.hpp"
#include "controller/c_api_handle.hpp"
#include "controller/controller.hpp"
#include "controller/omru_conf.hpp"
#include "controller/plan_state.hpp"
#include "controller/resize_state.hpp"
#include "controller/site_profiles.hpp"
#include "model/admin_comment.hpp"
#include "model/csv_table.hpp" // InputError
#include "profile/store_file.hpp"
#include "omru/omru_ctl.h"
#include "policy/gpu_links.hpp"

using omru::controller::Controller;
using omru::controller::Decision;
using omru::guarded;
using omru::put;


namespace {

omru::controller::PlanSettings settings_of(const omru::controller::OmruConf &c)
{
	omru::controller::PlanSettings s;
	s.objective = c.objective;
	s.fairness_factor = c.fairness_factor;
	s.bound.on = c.reference_bound;
	s.bound.slack = c.reference_slack;
	s.bound.slack_s = c.reference_slack_s;
	s.arrival_guard = c.arrival_guard;
	s.max_pending = static_cast<size_t>(c.max_pending_planned);
	s.correction_margin = c.correction_margin;
	s.start_overhead_s = c.start_overhead_s;
	s.spread_cost = c.spread_cost;
	s.cpus_per_gpu = c.cpus_per_gpu;
	s.loader_cpus = c.loader_cpus;
	s.elastic = c.elastic;
	s.resize.grace_s = c.elastic_grace_s;
	s.resize.default_cost_s = c.restart_overhead_s;
	s.resize.margin = c.resize_margin;
	s.resize.phase_aware = c.phase_aware;
	s.resize.phase_threshold = c.phase_threshold;
	return s;
}

// slurmctld's links_cnt rows as a link matrix (negative counts: none);
// null when absent or not symmetric.
std::shared_ptr<const omru::GpuLinks> links_of_matrix(const int *links, int n)
{
	if (!links)
		return nullptr;
	std::vector<std::string> lines;
	for (int a = 0; a < n; a++) {
		std::string l;
		for (int b = 0; b < n; b++)
			l += (b ? "," : "") + std::to_string(a == b ? -1 : std::max(0, links[a * n + b]));
		lines.push_back(l);
	}
	auto p = omru::GpuLinks::parse_gres_links(lines);
	return p.ok() ? std::make_shared<const omru::GpuLinks>(p.value()) : nullptr;
}

std::string iso_time(time_t t)
{
	struct tm tm;
	char buf[32];
	if (!localtime_r(&t, &tm) || !std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm))
		return "unknown";
	return buf;
}

// Bounds on shared limits (omru_ctl_snapshot_pool): a pool is GPUs or
// licenses, a job counts against a handful (its QOS's and partition QOS's
// per-user and group limits, its associations', its licenses).
constexpr double kMaxPoolRoom = 1e9;
constexpr int kMaxJobPools = 32;

} // namespace

extern "C" {

omru_ctl_t *omru_ctl_create(void)
{
	try {
		auto *c = new omru_ctl;
		c->ctl = std::make_unique<Controller>(
			std::make_shared<omru::ProfileTable>(), settings_of(c->conf));
		return c;
	} catch (...) {
		return nullptr;
	}
}

void omru_ctl_destroy(omru_ctl_t *ctl)
{
	delete ctl;
}

int omru_ctl_configure(omru_ctl_t *ctl, const char *conf_path,
		       const char *state_save_location, char *err, size_t errlen)
{
	return guarded(err, errlen, [&] {
		auto conf = omru::controller::load_omru_conf(conf_path ? conf_path : "", true);
		if (!conf.ok()) {
			put(err, errlen, conf.error());
			return OMRU_EINVAL;
		}
		auto prof = omru::controller::load_site_profiles(conf.value().profile_files);
		if (!prof.ok()) {
			put(err, errlen, prof.error());
			return OMRU_EINVAL;
		}
		omru::controller::PlanSettings settings = settings_of(conf.value());
		std::string models;
		if (!conf.value().layer_profile_dir.empty()) {
			auto layers = omru::controller::load_layer_profiles(
				conf.value().layer_profile_dir);
			if (!layers.ok()) {
				put(err, errlen, layers.error());
				return OMRU_EINVAL;
			}
			omru::pipeline::PipelineGainSettings gs;
			gs.batch_per_gpu = conf.value().pipeline_batch;
			gs.mem_limit_bytes = conf.value().pipeline_gpu_mem_gib * 1073741824.0;
			settings.pipeline = std::make_shared<omru::controller::PipelineGains>(
				layers.value(), gs);
			for (const auto &kv : layers.value())
				models += (models.empty() ? "" : ", ") + kv.first;
		}
		if (!conf.value().colocation_file.empty() ||
		    !conf.value().colocation_signals.empty()) {
			// Read here, at (re)configure, never while planning.
			try {
				settings.interference = std::make_shared<const omru::InterferenceModel>(
					omru::read_colocation(conf.value().colocation_file,
							      conf.value().colocation_signals));
			} catch (const omru::InputError &e) {
				put(err, errlen, e.what());
				return OMRU_EINVAL;
			}
		}
		ctl->conf = conf.value();
		ctl->layer_models = models;
		ctl->interference = settings.interference;
		ctl->state_dir = ctl->conf.state_dir.empty()
					 ? std::string(state_save_location ? state_save_location : ".") + "/omru"
					 : ctl->conf.state_dir;
		ctl->warnings.clear();
		for (const std::string &w : prof.value().warnings)
			ctl->warnings += (ctl->warnings.empty() ? "" : "; ") + w;
		ctl->ctl->reconfigure(prof.value(), settings);
		return OMRU_OK;
	});
}

void omru_ctl_settings(const omru_ctl_t *ctl, omru_ctl_settings_t *out)
{
	out->plan_interval_min_s = ctl->conf.plan_interval_min_s;
	out->plan_interval_max_s = ctl->conf.plan_interval_max_s;
	out->plan_time_max_ms = ctl->conf.plan_time_max_ms;
	out->cpus_per_gpu = ctl->conf.cpus_per_gpu;
	out->plan_rigid_jobs = ctl->conf.plan_rigid_jobs;
	out->log_plans = ctl->conf.log_plans;
	out->elastic = ctl->conf.elastic;
	out->max_job_gpus = ctl->conf.max_job_gpus;
}

void omru_ctl_describe(const omru_ctl_t *ctl, char *buf, size_t len)
{
	guarded(buf, len, [&] {
		std::string s = omru::controller::format_omru_conf(ctl->conf) +
				" (state in " + ctl->state_dir +
				(ctl->conf.layer_profile_dir.empty()
					 ? std::string()
					 : "; pipeline splits for " +
						   (ctl->layer_models.empty() ? std::string("no model")
									      : ctl->layer_models)) +
				")";
		if (const omru::InterferenceModel *m = ctl->interference.get()) {
			const omru::InterferenceFit &f = m->fit();
			char fit[160] = "no fit (fewer than 10 measured directions with signals)";
			if (f.fitted)
				std::snprintf(fit, sizeof(fit),
					      "fit on %d directions, rmse %.3f", f.observations, f.rmse);
			s += " ; co-location: " + std::to_string(m->measured_directions().size()) +
			     " measured directions, " + fit;
		}
		if (!ctl->warnings.empty())
			s += " ; " + ctl->warnings;
		put(buf, len, s);
		return OMRU_OK;
	});
}

int omru_ctl_snapshot_begin(omru_ctl_t *ctl, double now_s, int node_count)
{
	return guarded(nullptr, 0, [&] {
		ctl->snap = {};
		ctl->offering.clear();
		ctl->snap.now_s = now_s;
		ctl->snap_ok = node_count >= 0 && std::isfinite(now_s);
		ctl->snap.nodes.resize(node_count > 0 ? node_count : 0);
		return ctl->snap_ok ? OMRU_OK : OMRU_EINVAL;
	});
}

int omru_ctl_snapshot_pool(omru_ctl_t *ctl, const char *key, double room)
{
	return guarded(nullptr, 0, [&] {
		if (!key || !*key || strnlen(key, OMRU_POOL_KEY_MAX) >= OMRU_POOL_KEY_MAX ||
		    !std::isfinite(room))
			return OMRU_EINVAL;
		// A limit is GPUs or licenses: bounded like a node's GPUs x
		// nodes; below zero (usage over a lowered limit) leaves none.
		ctl->snap.pool_room[key] = std::clamp(room, 0.0, kMaxPoolRoom);
		return OMRU_OK;
	});
}

int omru_ctl_snapshot_links(omru_ctl_t *ctl, const int *links, int n)
{
	return guarded(nullptr, 0, [&] {
		if (!links || n < 1 || n > omru::kMaxGpusPerNode)
			return OMRU_EINVAL;
		ctl->snap.gpu_links = links_of_matrix(links, n);
		return ctl->snap.gpu_links ? OMRU_OK : OMRU_EINVAL;
	});
}

int omru_ctl_snapshot_node(omru_ctl_t *ctl, int index, const char *name,
			   int gpus, int gpus_alloc, int usable)
{
	return guarded(nullptr, 0, [&] {
		if (index < 0 || static_cast<size_t>(index) >= ctl->snap.nodes.size() ||
		    gpus < 0 || gpus > omru::kMaxGpusPerNode || gpus_alloc < 0)
			return OMRU_EINVAL;
		omru::controller::NodeSnap &n = ctl->snap.nodes[index];
		n.name = name ? name : "";
		n.gpus = gpus;
		n.gpus_alloc = gpus_alloc;
		n.usable = usable != 0;
		return OMRU_OK;
	});
}

// Bounds on what a node reports: more than any machine has is a bad value.
constexpr double kMaxNodeCpus = 1 << 20;
constexpr double kMaxNodeMemMb = 1e12;

int omru_ctl_snapshot_node_resources(omru_ctl_t *ctl, int index, double cpus,
				     double cpus_alloc, double mem_mb,
				     double mem_alloc_mb)
{
	return guarded(nullptr, 0, [&] {
		auto in = [](double v, double hi) { return v >= 0 && v <= hi; };
		if (index < 0 || static_cast<size_t>(index) >= ctl->snap.nodes.size() ||
		    !in(cpus, kMaxNodeCpus) || !in(cpus_alloc, kMaxNodeCpus) ||
		    !in(mem_mb, kMaxNodeMemMb) || !in(mem_alloc_mb, kMaxNodeMemMb))
			return OMRU_EINVAL;
		omru::controller::NodeSnap &n = ctl->snap.nodes[index];
		n.cpus = cpus;
		n.cpus_alloc = cpus_alloc;
		n.mem_mb = mem_mb;
		n.mem_alloc_mb = mem_alloc_mb;
		return OMRU_OK;
	});
}

int omru_ctl_snapshot_job(omru_ctl_t *ctl, const omru_ctl_job_t *job, char *err,
			  size_t errlen)
{
	return guarded(err, errlen, [&] {
		auto bad = [&](const std::string &why) {
			put(err, errlen, why);
			return OMRU_EINVAL;
		};
		const int nodes = static_cast<int>(ctl->snap.nodes.size());
		ctl->offering.push_back(job->job_id);
		omru::controller::JobSnap j;
		j.job_id = job->job_id;
		j.running = job->running != 0;
		j.held = !j.running && job->held != 0;
		j.submit_s = job->submit_s;
		j.start_s = job->start_s;
		j.time_limit_s = job->time_limit_s;
		j.priority = job->priority;
		j.tier = job->tier;
		j.uid = job->uid;
		j.gpus = job->gpus;
		if (job->running && job->asked_gpus > 0 && job->asked_gpus <= OMRU_GPUS_LIMIT)
			j.asked_gpus = job->asked_gpus;
		j.max_nodes = job->max_nodes;
		if (!std::isfinite(j.submit_s) || !std::isfinite(j.start_s) ||
		    !(j.time_limit_s >= 0) || !std::isfinite(j.time_limit_s) ||
		    j.max_nodes < 0)
			return bad("times and node limits must be finite and >= 0");
		auto cpus_ok = [](double v) { return v >= 0 && v <= kMaxNodeCpus; };
		auto mem_ok = [](double v) { return v >= 0 && v <= kMaxNodeMemMb; };
		j.need.cpus_min = job->need_cpus_min;
		j.need.cpus_per_gpu = job->need_cpus_per_gpu;
		j.need.mem_min = job->need_mem_min_mb;
		j.need.mem_per_gpu = job->need_mem_per_gpu_mb;
		j.need.mem_per_cpu = job->need_mem_per_cpu_mb;
		j.need.all_mem = job->need_all_mem != 0;
		j.need.whole_node = job->need_whole_node != 0;
		if (!cpus_ok(j.need.cpus_min) || !cpus_ok(j.need.cpus_per_gpu) ||
		    !mem_ok(j.need.mem_min) || !mem_ok(j.need.mem_per_gpu) ||
		    !mem_ok(j.need.mem_per_cpu))
			return bad("the CPUs and memory it needs are out of range");
		if (job->opts && job->opts->set) {
			const omru_job_options_t &o = *job->opts;
			if (!(o.set & OMRU_OPT_MODEL))
				return bad("OMRU options without a model");
			j.omru = true;
			j.model = o.model;
			j.epochs = (o.set & OMRU_OPT_EPOCHS) ? o.epochs : 0;
			j.gpus_min = (o.set & OMRU_OPT_GPUS) ? int(o.gpus_min) : job->gpus;
			j.gpus_max = (o.set & OMRU_OPT_GPUS) ? int(o.gpus_max) : job->gpus;
			j.profile_mode = o.profile;
			j.elastic = (o.set & OMRU_OPT_ELASTIC) != 0;
			if (job->admin_comment) {
				auto rec = omru::parse_admin_comment(job->admin_comment);
				if (job->running && rec.ok() && rec.value().get("rows"))
					j.rows = *rec.value().get("rows");
				// A value that does not parse is no signal.
				if (const std::string *ph = rec.ok() && job->running
								    ? rec.value().get("phase")
								    : nullptr) {
					auto p = omru::parse_comment_phase(*ph);
					if (p.ok())
						j.phase = p.value();
				}
				// A number field, read whole; false when absent or not one.
				auto number = [&](const char *key, double &v) {
					const std::string *s = rec.ok() ? rec.value().get(key)
									: nullptr;
					char *end = nullptr;
					v = s ? std::strtod(s->c_str(), &end) : 0;
					return s && end && !*end && std::isfinite(v);
				};
				double at = 0;
				if (job->running && number("resumed_at", at) && at > 0)
					j.resumed_at_s = at;
				// What an earlier run finished (a resized job).
				double d = 0;
				if (number("epochs_done", d) && d >= 0 && d <= j.epochs)
					j.epochs_done = d;
			}
			if (j.gpus_min < 1 || j.gpus_min > j.gpus_max)
				return bad("GPU range " + std::to_string(j.gpus_min) + "-" +
					   std::to_string(j.gpus_max) + " is empty");
		} else if (j.gpus < 1) {
			return bad("a GPU job needs at least one GPU");
		}
		if (j.running) {
			if (job->where_count < 1 || !job->where_node || !job->where_gpus)
				return bad("a running job needs the GPUs it holds");
			int sum = 0;
			for (int i = 0; i < job->where_count; i++) {
				int n = job->where_node[i], g = job->where_gpus[i];
				if (n < 0 || n >= nodes || g < 1 ||
				    (i && n <= job->where_node[i - 1]))
					return bad("node " + std::to_string(n) + " with " +
						   std::to_string(g) + " GPUs is not a valid holding");
				j.where.emplace_back(n, g);
				sum += g;
			}
			if (job->where_cpus && job->where_mem_mb)
				for (int i = 0; i < job->where_count; i++) {
					double c = job->where_cpus[i], m = job->where_mem_mb[i];
					if (!cpus_ok(c) || !mem_ok(m)) {
						j.holding.clear();
						break;
					}
					j.holding.push_back({ c, m });
				}
			j.gpus = sum;
		} else {
			for (int i = 0; i < job->eligible_count; i++) {
				int n = job->eligible[i];
				if (n < 0 || n >= nodes || (i && n <= job->eligible[i - 1]))
					return bad("eligible node indices must ascend within the cluster");
				j.eligible.push_back(n);
			}
		}
		if (job->pool_count < 0 || job->pool_count > kMaxJobPools ||
		    (job->pool_count > 0 && !job->pools))
			return bad("a job counts against 0.." + std::to_string(kMaxJobPools) +
				   " pools");
		for (int i = 0; i < job->pool_count; i++) {
			const omru_ctl_pool_use_t &u = job->pools[i];
			size_t len = strnlen(u.key, OMRU_POOL_KEY_MAX);
			if (len == 0 || len >= OMRU_POOL_KEY_MAX || !(u.per_gpu >= 0) ||
			    !(u.per_job >= 0) || u.per_gpu > kMaxPoolRoom ||
			    u.per_job > kMaxPoolRoom)
				return bad("a pool needs a key and amounts in 0.." +
					   std::to_string(kMaxPoolRoom));
			std::string key(u.key, len);
			bool dup = false;
			for (const auto &p : j.pools)
				dup = dup || p.key == key;
			if (!dup) // a QOS that is the job's and its partition's
				j.pools.push_back({ std::move(key), u.per_gpu, u.per_job });
		}
		ctl->snap.jobs.push_back(std::move(j));
		return OMRU_OK;
	});
}

int omru_ctl_plan(omru_ctl_t *ctl, char *err, size_t errlen)
{
	guarded(nullptr, 0, [&] {
		// Offered even if the plan fails: cons_tres decides for them
		// until the next one, as for every job then.
		std::sort(ctl->offering.begin(), ctl->offering.end());
		ctl->offered.swap(ctl->offering);
		ctl->offering.clear();
		return OMRU_OK;
	});
	int rc = guarded(err, errlen, [&] {
		if (!ctl->snap_ok) {
			put(err, errlen, "no snapshot to plan");
			return OMRU_EINVAL;
		}
		ctl->ctl->plan(ctl->snap, ctl->conf.plan_time_max_ms);
		return OMRU_OK;
	});
	if (rc != OMRU_OK) {
		// Drop the old answers: they describe a cluster that has moved on.
		guarded(nullptr, 0, [&] {
			ctl->ctl->plan(omru::controller::Snapshot{}, 0);
			return OMRU_OK;
		});
	}
	return rc;
}

int omru_ctl_offered(const omru_ctl_t *ctl, uint32_t job_id)
{
	return std::binary_search(ctl->offered.begin(), ctl->offered.end(), job_id);
}

int omru_ctl_lookup(const omru_ctl_t *ctl, uint32_t job_id, omru_ctl_decision_t *out)
{
	std::memset(out, 0, sizeof(*out));
	out->kind = OMRU_DECIDE_PASS;
	out->profile = "default";
	const Decision *d = ctl->ctl->lookup(job_id);
	if (!d)
		return 0;
	switch (d->kind) {
	case Decision::Kind::Start: out->kind = OMRU_DECIDE_START; break;
	case Decision::Kind::Wait: out->kind = OMRU_DECIDE_WAIT; break;
	case Decision::Kind::Hold: out->kind = OMRU_DECIDE_HOLD; break;
	case Decision::Kind::Pass: out->kind = OMRU_DECIDE_PASS; break;
	}
	out->gpus = d->gpus;
	out->nodes = d->nodes;
	out->start_s = d->start_s;
	out->runtime_s = d->runtime_s;
	out->moldable = d->moldable;
	out->profile = omru::controller::profile_source_name(d->profile);
	out->cpus_per_gpu = d->cpus_per_gpu;
	out->loader_need = d->loader_need;
	out->where_count = static_cast<int>(d->where.size());
	out->impl = d;
	return 1;
}

int omru_ctl_decision_where(const omru_ctl_decision_t *d, int i, int *node, int *gpus)
{
	const auto *dec = static_cast<const Decision *>(d->impl);
	if (!dec || i < 0 || static_cast<size_t>(i) >= dec->where.size())
		return OMRU_EINVAL;
	*node = dec->where[i].first;
	*gpus = dec->where[i].second;
	return OMRU_OK;
}

long omru_ctl_plan_count(const omru_ctl_t *ctl)
{
	return ctl->ctl->stats().plans;
}

void omru_ctl_stats(const omru_ctl_t *ctl, char *buf, size_t len)
{
	const omru::controller::PlanStats &s = ctl->ctl->stats();
	std::snprintf(buf, len,
		      "plans=%ld last_ms=%.2f max_ms=%.2f mean_ms=%.2f jobs=%zu "
		      "pending=%zu starts=%zu candidates=%d incremental=%ld ends_at=%.0f "
		      "late=%d late_s=%.1f reference=%s at_ask=%d",
		      s.plans, s.last_ms, s.max_ms, s.plans ? s.total_ms / s.plans : 0.0,
		      s.last_jobs, s.last_pending, s.last_starts, s.candidates,
		      s.incremental, s.makespan_s, s.late, s.late_s,
		      s.is_reference ? "yes" : "no", s.at_ask);
	// " KEY=ID:S,ID:S" for a list of (job id, seconds), while buf has room.
	auto append = [&](const char *key, const char *item,
			  const std::vector<std::pair<uint32_t, double>> &list) {
		for (size_t i = 0; i < list.size(); i++) {
			size_t used = std::strlen(buf);
			if (used + 1 >= len)
				break;
			if (i == 0)
				std::snprintf(buf + used, len - used, " %s=", key);
			else
				std::snprintf(buf + used, len - used, ",");
			used = std::strlen(buf);
			std::snprintf(buf + used, len - used, item, list[i].first, list[i].second);
		}
	};
	append("late_jobs", "%u:+%.1f", s.late_jobs);
	append("ref_moved", "%u:%+.1f", s.ref_moved);
}

int omru_ctl_admin_comment(const omru_ctl_t *ctl, uint32_t job_id,
			   const omru_job_options_t *opts, const char *nodes,
			   time_t start, int cpus_per_gpu, char *buf, size_t len)
{
	return guarded(buf, len, [&] {
		const Decision *d = ctl->ctl->lookup(job_id);
		if (!d)
			return OMRU_EINVAL;
		char num[64];
		std::string s = "omru: gpus=" + std::to_string(d->gpus);
		s += " nodes=" + std::string(nodes && *nodes ? nodes : "?");
		s += " planned_start=" + iso_time(start);
		std::snprintf(num, sizeof(num), "%.0f", std::max(0.0, d->runtime_s));
		s += " predicted_s=" + std::string(num);
		s += " profile=" + std::string(omru::controller::profile_source_name(d->profile));
		if (opts && (opts->set & OMRU_OPT_MODEL))
			s += " model=" + std::string(opts->model);
		if (opts && (opts->set & OMRU_OPT_EPOCHS)) {
			std::snprintf(num, sizeof(num), "%g", opts->epochs);
			s += " epochs=" + std::string(num);
		}
		if (opts && (opts->set & OMRU_OPT_GPUS))
			s += " range=" + std::to_string(opts->gpus_min) + "-" +
			     std::to_string(opts->gpus_max);
		if (cpus_per_gpu > 0)
			s += " cpus_per_gpu=" + std::to_string(cpus_per_gpu);
		if (!d->profiling.empty())
			s += " profiling=" + omru::format_count_list(d->profiling);
		// What Slurm's own policy would have given it (its end from
		// the state it was started in): the plan's promise, checkable.
		if (d->ref_end_s >= 0)
			s += " ref_end=" + iso_time(static_cast<time_t>(std::llround(d->ref_end_s)));
		put(buf, len, s);
		return s.size() < len ? OMRU_OK : OMRU_EINVAL;
	});
}

int omru_ctl_job_end(omru_ctl_t *ctl, uint32_t job_id, uint32_t uid,
		     int completed, const omru_job_options_t *opts, int gpus,
		     int nodes, double run_s, const char *comment, char *log,
		     size_t loglen)
{
	put(log, loglen, "");
	return guarded(log, loglen, [&] {
		if (!opts || !(opts->set & OMRU_OPT_MODEL) || !std::isfinite(run_s))
			return OMRU_OK;
		omru::controller::JobEnd e;
		e.job_id = job_id;
		e.uid = uid;
		e.completed = completed != 0;
		e.model = opts->model;
		e.epochs = (opts->set & OMRU_OPT_EPOCHS) ? opts->epochs : 0;
		e.gpus = gpus;
		e.nodes = nodes;
		e.run_s = run_s;
		auto rec = omru::parse_admin_comment(comment ? comment : "");
		if (rec.ok()) {
			if (const std::string *r = rec.value().get("rows"))
				e.rows = *r;
			if (const std::string *l = rec.value().get("loader"))
				e.loader = *l;
			if (const std::string *g = rec.value().get("gpu_use"))
				e.gpu_use = *g;
			e.resized = rec.value().get("resizes") != nullptr;
			if (const std::string *p = rec.value().get("profile_s")) {
				char *end = nullptr;
				double v = std::strtod(p->c_str(), &end);
				if (end && !*end && std::isfinite(v) && v >= 0 && v < run_s)
					e.profile_s = v;
			}
		}
		put(log, loglen, ctl->ctl->job_ended(e, static_cast<double>(time(nullptr))));
		return OMRU_OK;
	});
}

int omru_ctl_job_rows(omru_ctl_t *ctl, uint32_t job_id, uint32_t uid,
		      const omru_job_options_t *opts, int gpus, int nodes,
		      const char *comment)
{
	int rc = guarded(nullptr, 0, [&] {
		if (!opts || !(opts->set & OMRU_OPT_MODEL) || !comment)
			return 0;
		auto rec = omru::parse_admin_comment(comment);
		if (!rec.ok() || !rec.value().get("rows"))
			return 0;
		return ctl->ctl->learn_rows(job_id, uid, opts->model, gpus, nodes,
					    *rec.value().get("rows"),
					    static_cast<double>(time(nullptr)))
			       ? 1 : 0;
	});
	return rc == 1 ? 1 : 0;
}

struct omru_store_batch {
	std::string path;
	std::vector<omru::profiler::StoreOp> ops;
	omru::profiler::StoreStamp stamp; // in: as last known; out: as now
	omru::profiler::ProfileStore result;
	bool saved = false; // result is what the file holds now
	bool from_disk = false; // another writer (omru-profile) changed the file
};

extern "C++" { // inside the C API's extern "C": a C++ helper
namespace {
std::string store_path(const omru_ctl_t *ctl)
{
	return ctl->state_dir + "/profile_store";
}
} // namespace
}

omru_store_batch_t *omru_ctl_store_take(omru_ctl_t *ctl)
{
	try {
		// A batch even without changes: saving it looks whether the
		// file changed under us (one stat).
		auto *b = new omru_store_batch;
		b->path = store_path(ctl);
		b->stamp = ctl->store_stamp;
		if (ctl->ctl->has_unsaved())
			b->ops = ctl->ctl->take_unsaved();
		return b;
	} catch (...) {
		return nullptr;
	}
}

int omru_store_batch_save(omru_store_batch_t *b, char *err, size_t errlen)
{
	return guarded(err, errlen, [&] {
		if (b->ops.empty()) {
			// Nothing of ours to write: read the file only when
			// someone else (omru-profile) replaced it.
			omru::profiler::StoreStamp now = omru::profiler::stamp_of(b->path);
			if (now == b->stamp)
				return OMRU_OK;
			b->stamp = now; // a corrupt file is reported once
			auto st = omru::profiler::load_store(b->path, {});
			if (!st.ok()) {
				put(err, errlen, st.error() + "; keeping the store in memory");
				return OMRU_EINVAL;
			}
			b->result = st.value();
			b->saved = b->from_disk = true;
			return OMRU_OK;
		}
		bool other_writer = omru::profiler::stamp_of(b->path) != b->stamp;
		std::vector<std::string> warnings;
		std::string e = omru::profiler::merge_save(b->path, b->ops, {}, &b->result,
							   &warnings, &b->stamp);
		// Saved: install the result (it has what omru-profile changed);
		// not saved: the changes stay in memory, planning goes on.
		b->saved = e.empty();
		b->from_disk = b->saved && other_writer;
		for (const std::string &w : warnings)
			e += (e.empty() ? "" : "; ") + w;
		put(err, errlen, e);
		return e.empty() ? OMRU_OK : OMRU_EINVAL;
	});
}

int omru_store_batch_from_disk(const omru_store_batch_t *b)
{
	return b && b->from_disk ? 1 : 0;
}

int omru_ctl_store_install(omru_ctl_t *ctl, omru_store_batch_t *b)
{
	bool changed = false;
	guarded(nullptr, 0, [&] {
		if (ctl && b)
			ctl->store_stamp = b->stamp;
		if (ctl && b && b->saved) {
			ctl->ctl->install_store(b->result);
			changed = true;
		}
		return OMRU_OK;
	});
	delete b;
	return changed ? 1 : 0;
}

struct omru_gain_batch {
	std::shared_ptr<omru::controller::PipelineGains> gains; // asked of
	std::vector<omru::controller::GainWork> work;
};

// Factors per batch: one batch's compute stays within a few seconds.
constexpr size_t kGainsPerBatch = 8;

omru_gain_batch_t *omru_ctl_gains_take(omru_ctl_t *ctl)
{
	try {
		const auto &g = ctl->ctl->pipeline_gains();
		if (!g || !g->has_wanted())
			return nullptr;
		auto *b = new omru_gain_batch;
		b->gains = g;
		b->work = g->take_wanted(kGainsPerBatch);
		return b;
	} catch (...) {
		return nullptr;
	}
}

void omru_gain_batch_compute(omru_gain_batch_t *b)
{
	guarded(nullptr, 0, [&] {
		if (b)
			omru::controller::compute(b->work);
		return OMRU_OK;
	});
}

int omru_ctl_gains_install(omru_ctl_t *ctl, omru_gain_batch_t *b)
{
	size_t n = 0;
	guarded(nullptr, 0, [&] {
		// Reconfigured meanwhile: these answer another configuration.
		if (ctl && b && b->gains == ctl->ctl->pipeline_gains())
			n = b->gains->install(b->work);
		return OMRU_OK;
	});
	delete b;
	return static_cast<int>(n);
}

int omru_ctl_store_load(omru_ctl_t *ctl, char *err, size_t errlen)
{
	return guarded(err, errlen, [&] {
		ctl->store_stamp = omru::profiler::stamp_of(store_path(ctl));
		auto st = omru::profiler::load_store(store_path(ctl), {});
		if (!st.ok()) {
			put(err, errlen, st.error());
			return OMRU_EINVAL;
		}
		ctl->ctl->install_store(st.value());
		return OMRU_OK;
	});
}

int omru_ctl_save_state(omru_ctl_t *ctl, char *err, size_t errlen)
{
	using namespace omru::controller;
	return guarded(err, errlen, [&] {
		std::string e;
		if (ctl->ctl->choice().valid)
			e = save_plan_state(ctl->state_dir, ctl->ctl->choice());
		std::string r = save_state_file(ctl->state_dir, kResizeStateFile,
						format_resize_state(ctl->ctl->resizes().state()));
		if (e.empty())
			e = r;
		if (e.empty())
			return OMRU_OK;
		put(err, errlen, e);
		return OMRU_EINVAL;
	});
}

int omru_ctl_load_state(omru_ctl_t *ctl, double now_s, char *err, size_t errlen)
{
	return guarded(err, errlen, [&] {
		using namespace omru::controller;
		std::string e;
		auto c = load_plan_state(ctl->state_dir);
		if (!c.ok())
			e = c.error();
		else if (c.value().valid)
			ctl->ctl->set_choice(c.value());
		// The resize book, independently: one bad file spoils only itself.
		auto text = load_state_file(ctl->state_dir, kResizeStateFile);
		if (!text.ok()) {
			e += (e.empty() ? "" : "; ") + text.error();
		} else if (!text.value().empty()) {
			auto st = parse_resize_state(text.value(),
						     ctl->state_dir + "/" + kResizeStateFile);
			if (st.ok())
				ctl->ctl->restore_resizes(st.value(),
							  std::isfinite(now_s) ? now_s : 0);
			else
				e += (e.empty() ? "" : "; ") + st.error();
		}
		if (e.empty())
			return OMRU_OK;
		put(err, errlen, e);
		return OMRU_EINVAL;
	});
}

int omru_select_gpus(const int *links, int n, const unsigned char *free, int count,
		     int *slots)
{
	return guarded(nullptr, 0, [&] {
		if (n < 1 || n > omru::kMaxGpusPerNode || !free || !slots)
			return OMRU_EINVAL;
		std::vector<bool> f(n);
		for (int i = 0; i < n; i++)
			f[i] = free[i] != 0;
		std::shared_ptr<const omru::GpuLinks> gl = links_of_matrix(links, n);
		std::vector<int> got = omru::select_gpus(gl.get(), f, count);
		if (static_cast<int>(got.size()) != count)
			return OMRU_EINVAL;
		for (int i = 0; i < count; i++)
			slots[i] = got[i];
		return OMRU_OK;
	});
}

} // extern "C"
