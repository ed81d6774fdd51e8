// profile_view.cpp - see profile_view.hpp.
#include "profiler/profile_view.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <set>

#include "controller/profile_books.hpp"
#include "model/schedule.hpp" // format_number
#include "profiler/store_users.hpp"
#include "sim/summary.hpp"    // json_string
#include "text_table.hpp"

namespace omru {
namespace profiler {
namespace {

constexpr const char *kFileOwner = "(file)";
constexpr int kDefaultGpusPerNode = 8;

std::string number(double v)
{
	return std::isfinite(v) ? format_number(v) : "null";
}

std::string joined(const std::vector<int> &v)
{
	std::string s;
	for (int x : v)
		s += (s.empty() ? "" : ",") + std::to_string(x);
	return s;
}

std::string joined(const std::vector<std::string> &v)
{
	std::string s;
	for (const std::string &x : v)
		s += (s.empty() ? "" : ",") + x;
	return s;
}

std::string json_ints(const std::vector<int> &v)
{
	return "[" + joined(v) + "]";
}

std::string json_strings(const std::vector<std::string> &v)
{
	std::string s = "[";
	for (size_t i = 0; i < v.size(); i++)
		s += (i ? ", " : "") + json_string(v[i]);
	return s + "]";
}

std::string json_time(int64_t t)
{
	return t > 0 ? json_string(local_time(t)) : "null";
}

// One ModelLine of a store entry.
ModelLine store_line(const ProfileStore &store, uint32_t owner, uint32_t for_uid,
		     const std::string &model)
{
	ModelLine l;
	l.owner = user_label(owner);
	l.uid = owner;
	l.model = model;
	std::set<int> gpus;
	std::set<std::string> sources;
	for (const StoreRow &r : store.rows(owner, model)) {
		l.rows++;
		gpus.insert(r.gpus);
		sources.insert(source_name(r.source));
		l.newest = std::max(l.newest, r.when);
	}
	l.gpus.assign(gpus.begin(), gpus.end());
	l.sources.assign(sources.begin(), sources.end());
	l.correction = for_uid == kSiteUid ? 1 : store.correction(for_uid, model);
	return l;
}

} // namespace

std::string local_time(int64_t unix_s)
{
	std::string t = unix_s > 0 ? local_time_text(static_cast<double>(unix_s)) : "";
	return t.empty() ? "-" : t;
}

std::vector<ModelLine> list_models(const ProfileStore &store,
				   const controller::SiteProfiles &site, Who who)
{
	std::vector<ModelLine> out;
	std::vector<uint32_t> users;
	if (who.kind == Who::Kind::Everyone)
		for (uint32_t u : store.users())
			if (u != kSiteUid)
				users.push_back(u);
	if (who.kind == Who::Kind::User)
		users.push_back(who.uid);
	for (uint32_t u : users)
		for (const std::string &m : store.models(u))
			out.push_back(store_line(store, u, u, m));
	for (const std::string &m : store.models(kSiteUid))
		out.push_back(store_line(store, kSiteUid, kSiteUid, m));
	// The site's files, one line per model, in the files' order.
	std::map<std::string, size_t> file_line;
	for (const controller::SiteRow &r : site.row_list) {
		auto it = file_line.find(r.model);
		if (it == file_line.end()) {
			it = file_line.emplace(r.model, out.size()).first;
			ModelLine l;
			l.owner = kFileOwner;
			l.model = r.model;
			l.sources = { "file" };
			out.push_back(l);
		}
		ModelLine &l = out[it->second];
		l.rows++;
		if (std::find(l.gpus.begin(), l.gpus.end(), r.gpus) == l.gpus.end()) {
			l.gpus.push_back(r.gpus);
			std::sort(l.gpus.begin(), l.gpus.end());
		}
	}
	return out;
}

void write_list(std::ostream &out, const std::vector<ModelLine> &lines, bool json)
{
	if (json) {
		out << "{\"models\": [";
		for (size_t i = 0; i < lines.size(); i++) {
			const ModelLine &l = lines[i];
			out << (i ? ",\n  " : "\n  ") << "{\"owner\": " << json_string(l.owner)
			    << ", \"uid\": "
			    << (l.owner == kFileOwner || l.uid == kSiteUid
					? std::string("null")
					: std::to_string(l.uid))
			    << ", \"model\": " << json_string(l.model) << ", \"rows\": " << l.rows
			    << ", \"gpus\": " << json_ints(l.gpus)
			    << ", \"sources\": " << json_strings(l.sources)
			    << ", \"newest\": " << json_time(l.newest)
			    << ", \"correction\": " << number(l.correction) << "}";
		}
		out << (lines.empty() ? "]}\n" : "\n]}\n");
		return;
	}
	std::vector<std::vector<std::string>> rows = {
		{ "OWNER", "MODEL", "ROWS", "GPUS", "SOURCES", "NEWEST", "CORRECTION" }
	};
	for (const ModelLine &l : lines)
		rows.push_back({ l.owner, l.model, std::to_string(l.rows), joined(l.gpus),
				 joined(l.sources), local_time(l.newest),
				 l.correction == 1 ? "-" : "x" + format_number(l.correction) });
	write_aligned(out, rows);
}

std::optional<ModelView> view_model(const ProfileStore &store,
				    const controller::SiteProfiles &site, uint32_t uid,
				    const std::string &model,
				    const std::optional<Cluster> &cluster)
{
	ModelView v;
	v.model = model;
	v.uid = uid;
	v.correction = uid == kSiteUid ? 1 : store.correction(uid, model);
	v.loader_need = store.loader_need(uid, model);
	v.loader_when = store.loader_need_when(uid, model);
	if (uid != kSiteUid) {
		v.beside = store.beside(uid, model);
		if (const SignalsRow *s = store.signals(uid, model))
			v.signals = *s;
	}
	auto add_store_rows = [&](uint32_t owner) {
		for (const StoreRow &r : store.rows(owner, model))
			v.rows.push_back({ user_label(owner), r.gpus, r.nodes, r.epoch_s,
					   source_name(r.source), r.when, r.job_id });
	};
	if (uid != kSiteUid)
		add_store_rows(uid);
	add_store_rows(kSiteUid);
	for (const controller::SiteRow &r : site.row_list)
		if (r.model == model)
			v.rows.push_back({ kFileOwner, r.gpus, r.nodes, r.epoch_s, "file", 0, 0 });
	if (v.rows.empty())
		return std::nullopt;

	// The curve from the book slurmctld would price this user's jobs with.
	controller::ProfileBooks books(site.table, site.row_list);
	books.set_store(std::make_shared<const ProfileStore>(store));
	controller::SpeedBook &book = books.for_user(uid);
	int id = book.profiles() ? book.profiles()->model_id(model) : -1;
	if (cluster) {
		v.cluster = *cluster;
	} else {
		int need_gpus = 1, need_nodes = 1;
		for (const ShownRow &r : v.rows) {
			need_gpus = std::max(need_gpus, r.gpus);
			need_nodes = std::max(need_nodes, r.nodes);
		}
		int nodes = std::max(need_nodes, (need_gpus + kDefaultGpusPerNode - 1) /
							 kDefaultGpusPerNode);
		v.cluster = Cluster(nodes, kDefaultGpusPerNode);
	}
	const SpeedModel *sm = id >= 0 && v.cluster.uniform()
				       ? book.model_for(v.cluster.nodes, v.cluster.gpus_per_node)
				       : nullptr;
	if (!sm)
		return v;
	double one = sm->packed(id, 1).epoch_s;
	for (int g = 1; g <= v.cluster.total_gpus(); g++) {
		SpeedEstimate e = sm->packed(id, g);
		v.curve.push_back({ g, v.cluster.min_nodes(g), e.epoch_s,
				    e.epoch_s > 0 ? one / e.epoch_s : 0, e.confidence });
	}
	return v;
}

void write_view(std::ostream &out, const ModelView &v, bool json)
{
	const std::string cluster = std::to_string(v.cluster.nodes) + "x" +
				    std::to_string(v.cluster.gpus_per_node);
	if (json) {
		out << "{\"model\": " << json_string(v.model)
		    << ", \"for\": " << json_string(user_label(v.uid)) << ", \"uid\": "
		    << (v.uid == kSiteUid ? std::string("null") : std::to_string(v.uid))
		    << ", \"correction\": " << number(v.correction) << ", \"loader_need\": "
		    << (v.loader_need ? std::to_string(v.loader_need) : std::string("null"))
		    << ", \"loader_learned\": "
		    << (v.loader_need ? json_time(v.loader_when) : std::string("null"))
		    << ",\n \"beside\": [";
		for (size_t i = 0; i < v.beside.size(); i++) {
			const BesideRow &b = v.beside[i];
			out << (i ? ",\n  " : "\n  ") << "{\"neighbour\": " << json_string(b.neighbour)
			    << ", \"slowdown\": " << number(b.slowdown) << ", \"runs\": " << b.runs
			    << ", \"when\": " << json_time(b.when) << ", \"job_id\": "
			    << (b.job_id ? std::to_string(b.job_id) : std::string("null")) << "}";
		}
		out << "],\n \"signals\": ";
		if (v.signals)
			out << "{\"gpu_util\": " << number(v.signals->gpu_pct)
			    << ", \"mem_util\": " << number(v.signals->mem_pct)
			    << ", \"runs\": " << v.signals->runs
			    << ", \"when\": " << json_time(v.signals->when) << ", \"job_id\": "
			    << (v.signals->job_id ? std::to_string(v.signals->job_id)
						  : std::string("null"))
			    << "}";
		else
			out << "null";
		out << ",\n \"rows\": [";
		for (size_t i = 0; i < v.rows.size(); i++) {
			const ShownRow &r = v.rows[i];
			out << (i ? ",\n  " : "\n  ") << "{\"owner\": " << json_string(r.owner)
			    << ", \"gpus\": " << r.gpus << ", \"nodes\": "
			    << (r.nodes ? std::to_string(r.nodes) : std::string("null"))
			    << ", \"epoch_s\": " << number(r.epoch_s)
			    << ", \"source\": " << json_string(r.source)
			    << ", \"when\": " << json_time(r.when) << ", \"job_id\": "
			    << (r.job_id ? std::to_string(r.job_id) : std::string("null")) << "}";
		}
		out << "],\n \"cluster\": " << json_string(cluster) << ",\n \"curve\": [";
		for (size_t i = 0; i < v.curve.size(); i++) {
			const CurvePoint &p = v.curve[i];
			out << (i ? ",\n  " : "\n  ") << "{\"gpus\": " << p.gpus
			    << ", \"nodes\": " << p.nodes << ", \"epoch_s\": " << number(p.epoch_s)
			    << ", \"speedup\": " << number(p.speedup)
			    << ", \"confidence\": " << json_string(confidence_name(p.confidence))
			    << "}";
		}
		out << "]}\n";
		return;
	}
	out << "model " << v.model << ", as it prices the jobs of "
	    << (v.uid == kSiteUid ? "users without rows of their own" : user_label(v.uid))
	    << "\n\nrows (the first of a GPU count and span wins: the user's, the "
	       "site's, the files'):\n";
	std::vector<std::vector<std::string>> rows = {
		{ "  OWNER", "GPUS", "NODES", "EPOCH_S", "SOURCE", "WHEN", "JOB" }
	};
	for (const ShownRow &r : v.rows)
		rows.push_back({ "  " + r.owner, std::to_string(r.gpus),
				 r.nodes ? std::to_string(r.nodes) : "packed",
				 format_number(r.epoch_s), r.source, local_time(r.when),
				 r.job_id ? std::to_string(r.job_id) : "-" });
	write_aligned(out, rows);
	if (v.correction != 1)
		out << "the site's rows are scaled by x" << format_number(v.correction)
		    << " for this user (real runtimes differed)\n";
	if (v.loader_need)
		out << "loader: " << v.loader_need << " worker" << (v.loader_need == 1 ? "" : "s")
		    << " per task (learned " << local_time(v.loader_when) << ")\n";
	if (!v.beside.empty()) {
		out << "\nbeside other models (this user's jobs that shared nodes with one "
		       "all along; mixed into the co-location table's price for its jobs):\n";
		std::vector<std::vector<std::string>> bs = {
			{ "  NEIGHBOUR", "SLOWDOWN", "RUNS", "NEWEST", "JOB" }
		};
		for (const BesideRow &b : v.beside)
			bs.push_back({ "  " + b.neighbour, format_number(b.slowdown),
				       std::to_string(b.runs), local_time(b.when),
				       b.job_id ? std::to_string(b.job_id) : "-" });
		write_aligned(out, bs);
	}
	if (v.signals)
		out << "\nsolo signals (its nodes sampled them in this user's jobs that ran "
		       "alone): GPU " << format_number(v.signals->gpu_pct) << "%, memory "
		    << format_number(v.signals->mem_pct) << "% busy, over " << v.signals->runs
		    << " job(s), newest " << local_time(v.signals->when) << "\n";
	if (v.curve.empty()) {
		out << "\nno curve: " << (v.cluster.uniform() ? "" : "nodes differ; ")
		    << "the rows do not fit a cluster of " << cluster << "\n";
		return;
	}
	out << "\ncurve on " << cluster << " GPUs (packed on the fewest nodes; "
	    << "--cluster NxG for another shape):\n";
	std::vector<std::vector<std::string>> curve = {
		{ "  GPUS", "NODES", "EPOCH_S", "SPEEDUP", "CONFIDENCE" }
	};
	size_t measured = 0;
	char speedup[32], epoch[32];
	for (const CurvePoint &p : v.curve) {
		std::snprintf(speedup, sizeof(speedup), "%.2f", p.speedup);
		std::snprintf(epoch, sizeof(epoch), "%.5g", p.epoch_s);
		curve.push_back({ "  " + std::to_string(p.gpus), std::to_string(p.nodes),
				  epoch, speedup,
				  confidence_name(p.confidence) });
		measured += p.confidence == Confidence::Measured;
	}
	write_aligned(out, curve);
	out << measured << " of " << v.curve.size()
	    << " counts measured; the rest interpolated between measurements or "
	       "extrapolated beyond them\n";
}

} // namespace profiler
} // namespace omru
