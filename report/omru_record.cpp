// omru_record.cpp - see omru_record.hpp.
#include "omru_record.hpp"

#include <charconv>

#include "model/admin_comment.hpp"

namespace omru {
namespace report {
namespace {

// A plain decimal >= 0, or NaN (with a problem line) for anything else.
double number(const AdminComment &c, const char *key,
	      std::vector<std::string> &problems)
{
	const std::string *v = c.get(key);
	if (!v)
		return NAN;
	double d = 0;
	auto r = std::from_chars(v->data(), v->data() + v->size(), d);
	if (r.ec != std::errc() || r.ptr != v->data() + v->size() ||
	    !std::isfinite(d) || d < 0) {
		problems.push_back(std::string(key) + " '" + *v +
				   "' is not a number >= 0; ignored");
		return NAN;
	}
	return d;
}

int whole(const AdminComment &c, const char *key, int max,
	  std::vector<std::string> &problems)
{
	const std::string *v = c.get(key);
	if (!v)
		return 0;
	int n = 0;
	auto r = std::from_chars(v->data(), v->data() + v->size(), n);
	if (r.ec != std::errc() || r.ptr != v->data() + v->size() || n < 0 ||
	    n > max) {
		problems.push_back(std::string(key) + " '" + *v +
				   "' is not a whole number in 0.." +
				   std::to_string(max) + "; ignored");
		return 0;
	}
	return n;
}

std::string text(const AdminComment &c, const char *key)
{
	const std::string *v = c.get(key);
	return v ? *v : std::string();
}

} // namespace

OmruRecord read_omru_record(std::string_view admin_comment,
			    std::vector<std::string> &problems)
{
	OmruRecord r;
	auto parsed = parse_admin_comment(admin_comment);
	if (!parsed.ok()) {
		r.error = parsed.error();
		return r;
	}
	const AdminComment &c = parsed.value();
	if (c.fields.empty())
		return r;
	r.present = true;
	r.model = text(c, "model");
	r.profile = text(c, "profile");
	r.nodes = text(c, "nodes");
	r.planned_start = text(c, "planned_start");
	r.gpus = whole(c, "gpus", 65536, problems);
	r.predicted_s = number(c, "predicted_s", problems);
	r.epochs = number(c, "epochs", problems);
	if (const std::string *p = c.get("profiling")) {
		auto counts = parse_count_list(*p);
		if (counts.ok())
			r.profiling = counts.value();
		else
			problems.push_back("profiling: " + counts.error() + "; ignored");
	}
	if (const std::string *rows = c.get("rows")) {
		auto parsed_rows = parse_comment_rows(*rows);
		if (parsed_rows.ok())
			r.rows = parsed_rows.value().size();
		else
			problems.push_back("rows: " + parsed_rows.error() + "; ignored");
	}
	r.epoch_s = number(c, "epoch_s", problems);
	r.epochs_done = number(c, "epochs_done", problems);
	r.samples_s = number(c, "samples_s", problems);
	r.data_wait = number(c, "data_wait", problems);
	r.profile_s = number(c, "profile_s", problems);
	r.real_s = number(c, "real_s", problems);
	r.workers = whole(c, "workers", 1 << 20, problems);
	if (const std::string *rs = c.get("resizes")) {
		auto parsed_resizes = parse_comment_resizes(*rs);
		if (parsed_resizes.ok())
			r.resizes = parsed_resizes.value();
		else
			problems.push_back("resizes: " + parsed_resizes.error() + "; ignored");
	}
	return r;
}

} // namespace report
} // namespace omru
