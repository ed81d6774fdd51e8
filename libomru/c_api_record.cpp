// c_api_record.cpp - the extern "C" side of the job record
// (omru/omru_record.h) for spank_omru.
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "c_boundary.hpp"
#include "model/admin_comment.hpp"
#include "model/measured_rows.hpp"
#include "omru/omru_record.h"

using omru::guarded;
using omru::put;

namespace {

// What a node sends as AdminComment for job_submit/omru to merge in.
constexpr const char *kRequestTag = OMRU_RECORD_REQUEST_TAG;

// A value fits the record when it is non-empty and has no blank.
bool valid_value(const char *v)
{
	if (!v || !*v || std::strlen(v) > omru::kMaxAdminComment)
		return false;
	for (const char *p = v; *p; p++)
		if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			return false;
	return true;
}

// A trainer's one-line file (phase, resumed) without its line end.
std::string one_line(const char *text, size_t len)
{
	std::string line(text ? text : "", text ? len : 0);
	while (!line.empty() && (line.back() == '\n' || line.back() == '\r'))
		line.pop_back();
	return line;
}

} // namespace

extern "C" {

int omru_record_get(const char *comment, const char *key, char *out,
		    size_t outlen)
{
	int rc = guarded(nullptr, 0, [&] {
		auto c = omru::parse_admin_comment(comment ? comment : "");
		if (!c.ok() || !key)
			return 0;
		const std::string *v = c.value().get(key);
		if (!v)
			return 0;
		put(out, outlen, *v);
		return 1;
	});
	return rc == 1 ? 1 : 0;
}

// CURRENT as a record to write into: parsed, or when it is not ours to
// parse, kept whole as the text in front.
static omru::AdminComment current_record(const char *current)
{
	auto c = omru::parse_admin_comment(current ? current : "");
	if (c.ok())
		return c.value();
	omru::AdminComment kept;
	kept.prefix = current; // not ours: keep it, in front
	return kept;
}

// KEYS=VALUES checked one by one (a key the parser takes, a value without
// blanks) into ADD.  RET false with the message in err.
static bool fields_of(const char *const *keys, const char *const *values,
		      int n, omru::AdminComment &add, char *err, size_t errlen)
{
	for (int i = 0; i < n; i++) {
		auto probe = omru::parse_admin_comment(
			std::string("omru: ") + (keys[i] ? keys[i] : "") + "=x");
		if (!probe.ok() || probe.value().fields.size() != 1 ||
		    !valid_value(values[i])) {
			put(err, errlen, std::string("bad record field '") +
						 (keys[i] ? keys[i] : "") + "'");
			return false;
		}
		add.set(keys[i], values[i]);
	}
	return true;
}

int omru_record_merge(const char *current, const char *const *keys,
		      const char *const *values, int n, char *out,
		      size_t outlen, char *err, size_t errlen)
{
	return guarded(err, errlen, [&] {
		omru::AdminComment add;
		if (!fields_of(keys, values, n, add, err, errlen))
			return OMRU_EINVAL;
		omru::AdminComment base = current_record(current);
		base.merge(add);
		put(out, outlen, omru::format_admin_comment(base));
		return OMRU_OK;
	});
}

int omru_record_request(const char *const *keys, const char *const *values,
			int n, char *out, size_t outlen, char *err,
			size_t errlen)
{
	return guarded(err, errlen, [&] {
		omru::AdminComment add;
		if (!fields_of(keys, values, n, add, err, errlen))
			return OMRU_EINVAL;
		std::string text = kRequestTag;
		for (const auto &f : add.fields)
			text += " " + f.first + "=" + f.second;
		if (text.size() > omru::kMaxAdminComment || text.size() >= outlen) {
			put(err, errlen, "record fields too long for one request");
			return OMRU_EINVAL;
		}
		put(out, outlen, text);
		return OMRU_OK;
	});
}

int omru_record_is_request(const char *text)
{
	return text && std::strncmp(text, kRequestTag, std::strlen(kRequestTag)) == 0;
}

int omru_record_merged_in_slurmctld(const char *list)
{
	for (const char *p = list ? list : ""; *p;) {
		size_t len = std::strcspn(p, ",");
		if ((len == 4 && std::strncmp(p, "omru", 4) == 0) ||
		    (len == 15 && std::strncmp(p, "job_submit/omru", 15) == 0))
			return 1;
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}

int omru_record_apply(const char *current, const char *request, char *out,
		      size_t outlen, char *err, size_t errlen)
{
	return guarded(err, errlen, [&] {
		if (!omru_record_is_request(request)) {
			put(err, errlen, "not a record merge request");
			return OMRU_EINVAL;
		}
		std::string body = request + std::strlen(kRequestTag);
		auto add = omru::parse_admin_comment("omru: " + body);
		if (!add.ok()) {
			put(err, errlen, add.error());
			return OMRU_EINVAL;
		}
		if (add.value().fields.empty() || !add.value().prefix.empty() ||
		    body.find("omru:") != std::string::npos) {
			put(err, errlen, "a merge request carries KEY=VALUE fields only");
			return OMRU_EINVAL;
		}
		omru::AdminComment base = current_record(current);
		base.merge(add.value());
		put(out, outlen, omru::format_admin_comment(base));
		return OMRU_OK;
	});
}

int omru_record_replace(const char *current, const char *record, char *out,
			size_t outlen, char *err, size_t errlen)
{
	return guarded(err, errlen, [&] {
		auto fresh = omru::parse_admin_comment(record ? record : "");
		if (!fresh.ok()) {
			put(err, errlen, fresh.error());
			return OMRU_EINVAL;
		}
		omru::AdminComment out_c = fresh.value();
		out_c.prefix = current_record(current).prefix;
		put(out, outlen, omru::format_admin_comment(out_c));
		return OMRU_OK;
	});
}

int omru_record_rows(const char *csv, size_t len, const char *model,
		     int max_gpus, int max_nodes, char *out, size_t outlen,
		     char *err, size_t errlen)
{
	return guarded(err, errlen, [&] {
		auto r = omru::measured_rows(std::string_view(csv ? csv : "", csv ? len : 0),
					     "OMRU_PROFILE_OUT", model ? model : "",
					     max_gpus, max_nodes);
		if (!r.ok())
			return omru::fail_with(r, err, errlen);
		// Whole rows only: a value cut mid-number would be read as
		// another epoch time.  The largest counts go first.
		std::vector<omru::CommentRow> rows = r.value();
		std::string text = omru::format_comment_rows(rows);
		while (!rows.empty() && outlen > 0 && text.size() >= outlen) {
			rows.pop_back();
			text = omru::format_comment_rows(rows);
		}
		put(out, outlen, text);
		return OMRU_OK;
	});
}

int omru_record_phase(const char *text, size_t len, char *out, size_t outlen,
		      char *err, size_t errlen)
{
	return guarded(err, errlen, [&] {
		std::string line = one_line(text, len);
		// Exactly one blank between the three fields: the codec's ':'.
		size_t blanks = 0;
		for (char &c : line)
			if (c == ' ') {
				c = ':';
				blanks++;
			}
		auto p = omru::parse_comment_phase(line);
		if (blanks != 2 || !p.ok()) {
			put(err, errlen, "phase file: expected one line 'STEPS "
					 "FIRST_DROP RECENT_DROP'" +
						 (p.ok() ? std::string() : ": " + p.error()));
			return OMRU_EINVAL;
		}
		put(out, outlen, omru::format_comment_phase(p.value()));
		return OMRU_OK;
	});
}

int omru_record_resumed(const char *text, size_t len, char *out, size_t outlen,
			char *err, size_t errlen)
{
	return guarded(err, errlen, [&] {
		std::string line = one_line(text, len);
		double t = 0;
		auto r = std::from_chars(line.data(), line.data() + line.size(), t);
		if (line.empty() || r.ec != std::errc() || r.ptr != line.data() + line.size() ||
		    !std::isfinite(t) || t < 1 || t > 1e11) {
			put(err, errlen, "resume file: expected one line with a Unix time");
			return OMRU_EINVAL;
		}
		char buf[32];
		std::snprintf(buf, sizeof(buf), "%.0f", std::floor(t));
		put(out, outlen, buf);
		return OMRU_OK;
	});
}

int omru_record_metrics(const char *jsonl, size_t len, char *out, size_t outlen)
{
	return guarded(nullptr, 0, [&] {
		std::string s;
		for (const auto &[k, v] : omru::metrics_summary(
			     std::string_view(jsonl ? jsonl : "", jsonl ? len : 0)))
			s += (s.empty() ? "" : " ") + k + "=" + v;
		put(out, outlen, s);
		return OMRU_OK;
	});
}

} // extern "C"
