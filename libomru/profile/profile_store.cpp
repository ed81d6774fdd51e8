// profile_store.cpp - see profile_store.hpp.
#include "profile/profile_store.hpp"

#include "model/report_bounds.hpp"
#include "profile/colocation_table.hpp" // kMaxSlowdown

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>

namespace omru {
namespace profiler {
namespace {

// v2 added loader_need lines, v3 beside lines; older files still read.
constexpr std::string_view kHeader = "# omru profile store v3";
constexpr std::string_view kHeaderV2 = "# omru profile store v2";
constexpr std::string_view kHeaderV1 = "# omru profile store v1";
constexpr std::string_view kColumns = "kind,uid,model,gpus,nodes,epoch_s,source,when,job_id";

bool valid_model(const std::string &m)
{
	if (m.empty() || m.size() > 64)
		return false;
	for (char c : m)
		if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' ||
		      c == '_' || c == '+' || c == '-'))
			return false;
	return true;
}

// Shortest text that reads back as v; to_chars, not printf, so no locale
// can write "20,5" into a comma-separated file.
std::string exact(double v)
{
	char buf[64];
	auto r = std::to_chars(buf, buf + sizeof(buf), v);
	return std::string(buf, r.ptr);
}

bool to_i64(const std::string &s, int64_t lo, int64_t hi, int64_t &out)
{
	if (s.empty() || s.size() > 20)
		return false;
	char *end = nullptr;
	long long v = std::strtoll(s.c_str(), &end, 10);
	if (*end || v < lo || v > hi)
		return false;
	out = v;
	return true;
}

bool to_double(const std::string &s, double &out)
{
	if (s.empty() || s.size() > 40)
		return false;
	auto r = std::from_chars(s.data(), s.data() + s.size(), out);
	return r.ec == std::errc() && r.ptr == s.data() + s.size() && std::isfinite(out);
}

// A running mean over the last kMaxBesideRuns jobs, `runs` new ones at x:
// the kept mean weighs at most kMaxBesideRuns - 1 against them, so it
// follows a change within a few jobs.
double fold(double kept, int kept_runs, double x, int runs)
{
	double w = std::min(kept_runs, kMaxBesideRuns - 1);
	return (kept * w + x * runs) / (w + runs);
}

} // namespace

const char *source_name(RowSource s)
{
	switch (s) {
	case RowSource::Measured:
		return "measured";
	case RowSource::Runtime:
		return "runtime";
	case RowSource::Site:
		return "site";
	}
	return "?";
}

std::string row_error(const StoreRow &r)
{
	if (!valid_model(r.model))
		return "model '" + r.model + "': expected [A-Za-z0-9._+-], 1 to 64 characters";
	if (r.gpus < 1 || r.gpus > 65536)
		return "gpus " + std::to_string(r.gpus) + ": expected 1..65536";
	if (r.nodes < 0 || r.nodes > r.gpus)
		return "nodes " + std::to_string(r.nodes) + ": expected 0..gpus";
	if (!bounds::epoch_s_ok(r.epoch_s))
		return "epoch_s: expected a number in [1e-4, 1e7]";
	if (r.when < 0)
		return "when: expected unix seconds >= 0";
	return "";
}

StoreOp StoreOp::add_row(uint32_t uid, StoreRow r)
{
	StoreOp o;
	o.kind = Kind::AddRow;
	o.uid = uid;
	o.row = std::move(r);
	return o;
}

StoreOp StoreOp::set_correction(uint32_t uid, std::string model, double f, int64_t when)
{
	StoreOp o;
	o.kind = Kind::SetCorrection;
	o.uid = uid;
	o.model = std::move(model);
	o.factor = f;
	o.when = when;
	return o;
}

StoreOp StoreOp::set_loader_need(uint32_t uid, std::string model, int need,
				 int64_t when)
{
	StoreOp o;
	o.kind = Kind::SetLoaderNeed;
	o.uid = uid;
	o.model = std::move(model);
	o.need = need;
	o.when = when;
	return o;
}

StoreOp StoreOp::add_beside(uint32_t uid, std::string model, BesideRow b)
{
	StoreOp o;
	o.kind = Kind::AddBeside;
	o.uid = uid;
	o.model = std::move(model);
	o.when = b.when;
	o.beside = std::move(b);
	return o;
}

StoreOp StoreOp::add_signals(uint32_t uid, std::string model, SignalsRow s)
{
	StoreOp o;
	o.kind = Kind::AddSignals;
	o.uid = uid;
	o.model = std::move(model);
	o.when = s.when;
	o.signals = s;
	return o;
}

StoreOp StoreOp::forget(uint32_t uid, std::string model)
{
	StoreOp o;
	o.kind = Kind::Forget;
	o.uid = uid;
	o.model = std::move(model);
	return o;
}

StoreOp StoreOp::forget_user(uint32_t uid)
{
	StoreOp o;
	o.kind = Kind::ForgetUser;
	o.uid = uid;
	return o;
}

StoreOp StoreOp::forget_model(std::string model)
{
	StoreOp o;
	o.kind = Kind::ForgetModel;
	o.model = std::move(model);
	return o;
}

int64_t ProfileStore::Entry::newest() const
{
	int64_t t = std::max(factor_when, loader_when);
	for (const auto &[k, r] : rows)
		t = std::max(t, r.when);
	for (const auto &[k, b] : beside)
		t = std::max(t, b.when);
	if (signals)
		t = std::max(t, signals->when);
	return t;
}

// The bounds, after a change to (uid, model): oldest rows, then the user's
// stalest model, then the stalest user (never the site's rows).
void ProfileStore::enforce(uint32_t uid, const std::string &model)
{
	auto it = entries_.find({ uid, model });
	if (it != entries_.end())
		while (it->second.rows.size() > limits_.rows_per_model) {
			auto old = std::min_element(
				it->second.rows.begin(), it->second.rows.end(),
				[](const auto &a, const auto &b) {
					return std::make_pair(a.second.when, a.second.job_id) <
					       std::make_pair(b.second.when, b.second.job_id);
				});
			it->second.rows.erase(old);
		}
	if (it != entries_.end())
		while (it->second.beside.size() > limits_.beside_per_model)
			it->second.beside.erase(oldest_beside(it->second));
	auto user_models = [&](uint32_t u) {
		std::vector<std::map<Key, Entry>::iterator> out;
		for (auto e = entries_.lower_bound({ u, "" });
		     e != entries_.end() && e->first.first == u; ++e)
			out.push_back(e);
		return out;
	};
	auto ms = user_models(uid);
	while (uid != kSiteUid && ms.size() > limits_.models_per_user) {
		auto old = std::min_element(ms.begin(), ms.end(), [](auto a, auto b) {
			return a->second.newest() < b->second.newest();
		});
		entries_.erase(*old);
		ms.erase(old);
	}
	// The user's lines: the oldest row or beside measurement of any of
	// its models goes first, then (only corrections, loader demands and
	// solo signals left) its stalest model.
	size_t cap = uid == kSiteUid ? limits_.site_lines : limits_.lines_per_user;
	size_t lines = 0;
	for (auto e : user_models(uid))
		lines += e->second.lines();
	while (lines > cap) {
		auto ms_now = user_models(uid);
		std::map<Key, Entry>::iterator in = entries_.end();
		std::map<std::pair<int, int>, StoreRow>::iterator oldest;
		std::pair<int64_t, uint32_t> oldest_at;
		for (auto e : ms_now)
			for (auto r = e->second.rows.begin(); r != e->second.rows.end(); ++r)
				if (in == entries_.end() ||
				    std::make_pair(r->second.when, r->second.job_id) < oldest_at)
					in = e, oldest = r,
					oldest_at = { r->second.when, r->second.job_id };
		// A beside measurement older than every row goes before them.
		std::map<Key, Entry>::iterator in_beside = entries_.end();
		for (auto e : ms_now)
			if (!e->second.beside.empty()) {
				auto b = oldest_beside(e->second);
				std::pair<int64_t, uint32_t> at{ b->second.when, b->second.job_id };
				if ((in == entries_.end() && in_beside == entries_.end()) ||
				    at < oldest_at)
					in_beside = e, oldest_at = at;
			}
		if (in_beside != entries_.end()) {
			in_beside->second.beside.erase(oldest_beside(in_beside->second));
			lines--;
			if (in_beside->second.lines() == 0)
				entries_.erase(in_beside);
			continue;
		}
		if (in != entries_.end()) {
			in->second.rows.erase(oldest);
			lines--;
			if (in->second.lines() == 0)
				entries_.erase(in);
			continue;
		}
		auto stale = std::min_element(ms_now.begin(), ms_now.end(), [](auto a, auto b) {
			return a->second.newest() < b->second.newest();
		});
		lines -= (*stale)->second.lines();
		entries_.erase(*stale);
	}
	std::vector<uint32_t> us = users();
	us.erase(std::remove(us.begin(), us.end(), kSiteUid), us.end());
	while (us.size() > limits_.users) {
		uint32_t stalest = us.front();
		int64_t t_stalest = INT64_MAX;
		for (uint32_t u : us) {
			int64_t t = 0;
			for (auto e : user_models(u))
				t = std::max(t, e->second.newest());
			if (t < t_stalest)
				t_stalest = t, stalest = u;
		}
		for (auto e : user_models(stalest))
			entries_.erase(e);
		us.erase(std::remove(us.begin(), us.end(), stalest), us.end());
	}
}

std::map<std::string, BesideRow>::iterator ProfileStore::oldest_beside(Entry &e)
{
	return std::min_element(e.beside.begin(), e.beside.end(), [](const auto &a, const auto &b) {
		return std::make_pair(a.second.when, a.second.job_id) <
		       std::make_pair(b.second.when, b.second.job_id);
	});
}

bool ProfileStore::apply(const StoreOp &op)
{
	switch (op.kind) {
	case StoreOp::Kind::AddRow: {
		if (!valid_row(op.row))
			return false;
		Entry &e = entries_[{ op.uid, op.row.model }];
		e.rows[{ op.row.gpus, op.row.nodes }] = op.row;
		enforce(op.uid, op.row.model);
		break;
	}
	case StoreOp::Kind::SetCorrection: {
		if (!valid_model(op.model) || !(op.factor >= 0.01 && op.factor <= 100) ||
		    op.when < 0)
			return false;
		Entry &e = entries_[{ op.uid, op.model }];
		e.factor = op.factor;
		e.factor_when = op.when;
		enforce(op.uid, op.model);
		break;
	}
	case StoreOp::Kind::SetLoaderNeed: {
		if (!valid_model(op.model) || op.need < 1 || op.need > kMaxLoaderNeed ||
		    op.when < 0)
			return false;
		Entry &e = entries_[{ op.uid, op.model }];
		e.loader_need = op.need;
		e.loader_when = op.when;
		enforce(op.uid, op.model);
		break;
	}
	case StoreOp::Kind::AddBeside: {
		const BesideRow &b = op.beside;
		if (!valid_model(op.model) || !valid_model(b.neighbour) ||
		    !(b.slowdown > 0 && b.slowdown <= 100) || b.runs < 1 ||
		    b.runs > kMaxBesideRuns || b.when < 0)
			return false;
		const double x = std::clamp(b.slowdown, 1.0, kMaxSlowdown);
		Entry &e = entries_[{ op.uid, op.model }];
		auto [it, added] = e.beside.try_emplace(b.neighbour, b);
		BesideRow &kept = it->second;
		if (added) {
			kept.slowdown = x;
		} else {
			kept.slowdown = fold(kept.slowdown, kept.runs, x, b.runs);
			kept.runs = std::min(kept.runs + b.runs, kMaxBesideRuns);
			kept.when = std::max(kept.when, b.when);
			kept.job_id = b.job_id;
		}
		enforce(op.uid, op.model);
		break;
	}
	case StoreOp::Kind::AddSignals: {
		const SignalsRow &x = op.signals;
		if (!valid_model(op.model) || !(x.gpu_pct >= 0 && x.gpu_pct <= 100) ||
		    !(x.mem_pct >= 0 && x.mem_pct <= 100) || x.runs < 1 ||
		    x.runs > kMaxBesideRuns || x.when < 0)
			return false;
		Entry &e = entries_[{ op.uid, op.model }];
		if (!e.signals) {
			e.signals = x;
		} else {
			SignalsRow &kept = *e.signals;
			kept.gpu_pct = fold(kept.gpu_pct, kept.runs, x.gpu_pct, x.runs);
			kept.mem_pct = fold(kept.mem_pct, kept.runs, x.mem_pct, x.runs);
			kept.runs = std::min(kept.runs + x.runs, kMaxBesideRuns);
			kept.when = std::max(kept.when, x.when);
			kept.job_id = x.job_id;
		}
		enforce(op.uid, op.model);
		break;
	}
	case StoreOp::Kind::Forget:
		if (!entries_.erase({ op.uid, op.model }))
			return false;
		break;
	case StoreOp::Kind::ForgetUser: {
		auto lo = entries_.lower_bound({ op.uid, "" });
		auto hi = lo;
		while (hi != entries_.end() && hi->first.first == op.uid)
			++hi;
		if (lo == hi)
			return false;
		entries_.erase(lo, hi);
		break;
	}
	case StoreOp::Kind::ForgetModel: {
		// Its entries, and every measurement of another model beside it.
		bool any = false;
		for (auto it = entries_.begin(); it != entries_.end();) {
			any = it->second.beside.erase(op.model) || any;
			if (it->first.second == op.model || it->second.lines() == 0)
				it = entries_.erase(it), any = true;
			else
				++it;
		}
		if (!any)
			return false;
		break;
	}
	}
	generation_++;
	return true;
}

std::vector<StoreRow> ProfileStore::rows(uint32_t uid, const std::string &model) const
{
	std::vector<StoreRow> out;
	auto it = entries_.find({ uid, model });
	if (it != entries_.end())
		for (const auto &[k, r] : it->second.rows)
			out.push_back(r);
	return out;
}

std::vector<std::string> ProfileStore::models(uint32_t uid) const
{
	std::vector<std::string> out;
	for (auto e = entries_.lower_bound({ uid, "" });
	     e != entries_.end() && e->first.first == uid; ++e)
		out.push_back(e->first.second);
	return out;
}

std::vector<uint32_t> ProfileStore::users() const
{
	std::vector<uint32_t> out;
	for (const auto &[k, e] : entries_)
		if (out.empty() || out.back() != k.first)
			out.push_back(k.first);
	return out;
}

double ProfileStore::correction(uint32_t uid, const std::string &model) const
{
	auto it = entries_.find({ uid, model });
	return it == entries_.end() ? 1.0 : it->second.factor;
}

int ProfileStore::loader_need(uint32_t uid, const std::string &model) const
{
	auto it = entries_.find({ uid, model });
	return it == entries_.end() ? 0 : it->second.loader_need;
}

int64_t ProfileStore::loader_need_when(uint32_t uid, const std::string &model) const
{
	auto it = entries_.find({ uid, model });
	return it == entries_.end() ? 0 : it->second.loader_when;
}

std::vector<BesideRow> ProfileStore::beside(uint32_t uid, const std::string &model) const
{
	std::vector<BesideRow> out;
	auto it = entries_.find({ uid, model });
	if (it != entries_.end())
		for (const auto &[k, b] : it->second.beside)
			out.push_back(b);
	return out;
}

const BesideRow *ProfileStore::beside(uint32_t uid, const std::string &model,
				      const std::string &neighbour) const
{
	auto it = entries_.find({ uid, model });
	if (it == entries_.end())
		return nullptr;
	auto b = it->second.beside.find(neighbour);
	return b == it->second.beside.end() ? nullptr : &b->second;
}

const SignalsRow *ProfileStore::signals(uint32_t uid, const std::string &model) const
{
	auto it = entries_.find({ uid, model });
	return it == entries_.end() || !it->second.signals ? nullptr : &*it->second.signals;
}

bool ProfileStore::measured_colocation(uint32_t uid, const std::string &model) const
{
	auto it = entries_.find({ uid, model });
	return it != entries_.end() && (it->second.signals || !it->second.beside.empty());
}

bool ProfileStore::knows(uint32_t uid, const std::string &model) const
{
	auto it = entries_.find({ uid, model });
	return it != entries_.end() && !it->second.rows.empty();
}

size_t ProfileStore::row_count() const
{
	size_t n = 0;
	for (const auto &[k, e] : entries_)
		n += e.rows.size();
	return n;
}

std::string ProfileStore::serialize() const
{
	std::string out = std::string(kHeader) + "\n" + std::string(kColumns) + "\n";
	for (const auto &[k, e] : entries_) {
		const std::string uid = std::to_string(k.first);
		for (const auto &[rk, r] : e.rows)
			out += "row," + uid + "," + k.second + "," + std::to_string(r.gpus) +
			       "," + std::to_string(r.nodes) + "," + exact(r.epoch_s) + "," +
			       source_name(r.source) + "," + std::to_string(r.when) + "," +
			       std::to_string(r.job_id) + "\n";
		if (e.factor != 1)
			out += "correction," + uid + "," + k.second + ",0,0," +
			       exact(e.factor) + ",," + std::to_string(e.factor_when) + ",0\n";
		if (e.loader_need)
			out += "loader_need," + uid + "," + k.second + ",0,0," +
			       std::to_string(e.loader_need) + ",," +
			       std::to_string(e.loader_when) + ",0\n";
		for (const auto &[n, b] : e.beside)
			out += "beside," + uid + "," + k.second + "," + std::to_string(b.runs) +
			       ",0," + exact(b.slowdown) + "," + n + "," + std::to_string(b.when) +
			       "," + std::to_string(b.job_id) + "\n";
		if (const auto &g = e.signals)
			out += "signals," + uid + "," + k.second + "," + std::to_string(g->runs) +
			       ",0," + exact(g->gpu_pct) + "," + exact(g->mem_pct) + "," +
			       std::to_string(g->when) + "," + std::to_string(g->job_id) + "\n";
	}
	return out;
}

Parsed<ProfileStore> ProfileStore::parse(std::string_view text, const std::string &name,
					 Limits l)
{
	using R = Parsed<ProfileStore>;
	ProfileStore s(l);
	size_t line_no = 0, pos = 0;
	bool v1 = false, v2 = false;
	auto fail = [&](const std::string &why) {
		return R::fail(name + ":" + std::to_string(line_no) + ": " + why);
	};
	while (pos < text.size()) {
		size_t nl = text.find('\n', pos);
		std::string line(text.substr(pos, nl == std::string_view::npos ? std::string_view::npos
									      : nl - pos));
		pos = nl == std::string_view::npos ? text.size() : nl + 1;
		line_no++;
		if (line_no == 1) {
			v1 = line == kHeaderV1;
			v2 = line == kHeaderV2;
			if (line != kHeader && !v1 && !v2)
				return fail("not an omru profile store (expected '" +
					    std::string(kHeader) + "', '" +
					    std::string(kHeaderV2) + "' or '" +
					    std::string(kHeaderV1) + "')");
			continue;
		}
		if (line_no == 2) {
			if (line != kColumns)
				return fail("expected the header '" + std::string(kColumns) + "'");
			continue;
		}
		if (line.empty())
			continue;
		std::vector<std::string> f;
		for (size_t a = 0;;) {
			size_t c = line.find(',', a);
			f.push_back(line.substr(a, c == std::string::npos ? std::string::npos : c - a));
			if (c == std::string::npos)
				break;
			a = c + 1;
		}
		if (f.size() != 9)
			return fail("expected 9 fields, found " + std::to_string(f.size()));
		int64_t uid, gpus, nodes, when, job;
		double v;
		if (!to_i64(f[1], 0, 0xFFFFFFFFll, uid) || !to_i64(f[3], 0, 65536, gpus) ||
		    !to_i64(f[4], 0, 65536, nodes) || !to_double(f[5], v) ||
		    !to_i64(f[7], 0, INT64_MAX, when) || !to_i64(f[8], 0, 0xFFFFFFFFll, job))
			return fail("a number out of range");
		if (f[0] == "row") {
			StoreRow r;
			r.model = f[2];
			r.gpus = static_cast<int>(gpus);
			r.nodes = static_cast<int>(nodes);
			r.epoch_s = v;
			r.when = when;
			r.job_id = static_cast<uint32_t>(job);
			if (f[6] == "measured")
				r.source = RowSource::Measured;
			else if (f[6] == "runtime")
				r.source = RowSource::Runtime;
			else if (f[6] == "site")
				r.source = RowSource::Site;
			else
				return fail("source '" + f[6] + "': expected measured, runtime or site");
			if (std::string e = row_error(r); !e.empty())
				return fail(e);
			s.apply(StoreOp::add_row(static_cast<uint32_t>(uid), r));
		} else if (f[0] == "correction") {
			if (!s.apply(StoreOp::set_correction(static_cast<uint32_t>(uid), f[2], v, when)))
				return fail("correction: a valid model and a factor in [0.01, 100]");
		} else if (f[0] == "loader_need" && !v1) {
			// Whole workers, written by to_string: "3", never "3.0".
			int64_t need;
			if (!to_i64(f[5], 1, kMaxLoaderNeed, need) ||
			    !s.apply(StoreOp::set_loader_need(static_cast<uint32_t>(uid), f[2],
							      static_cast<int>(need), when)))
				return fail("loader_need: a valid model and a whole number of "
					    "workers from 1 to " + std::to_string(kMaxLoaderNeed));
		} else if (f[0] == "beside" && !v1 && !v2) {
			BesideRow b;
			b.neighbour = f[6];
			b.slowdown = v;
			b.runs = static_cast<int>(gpus);
			b.when = when;
			b.job_id = static_cast<uint32_t>(job);
			if (nodes != 0 || !s.apply(StoreOp::add_beside(static_cast<uint32_t>(uid),
								      f[2], b)))
				return fail("beside: two valid models, 1 to " +
					    std::to_string(kMaxBesideRuns) +
					    " runs, 0 and a slowdown in (0, 100]");
		} else if (f[0] == "signals" && !v1 && !v2) {
			SignalsRow g;
			g.gpu_pct = v;
			g.runs = static_cast<int>(gpus);
			g.when = when;
			g.job_id = static_cast<uint32_t>(job);
			if (nodes != 0 || !to_double(f[6], g.mem_pct) ||
			    !s.apply(StoreOp::add_signals(static_cast<uint32_t>(uid), f[2], g)))
				return fail("signals: a valid model, 1 to " +
					    std::to_string(kMaxBesideRuns) +
					    " runs, 0 and two percentages");
		} else {
			return fail("kind '" + f[0] + "': expected row, correction" +
				    (v1 ? " (a v1 store)"
					: v2 ? ", loader_need (a v2 store)"
					     : ", loader_need, beside or signals"));
		}
	}
	if (line_no == 0)
		return fail("empty");
	return s;
}

} // namespace profiler
} // namespace omru
