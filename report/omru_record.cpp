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

// A list field read by its codec (model/admin_comment.hpp) into `out`; a
// malformed one is left out whole, with a problem line.
template <typename T>
void list(const AdminComment &c, const char *key,
	  Parsed<std::vector<T>> (*parse)(std::string_view),
	  std::vector<std::string> &problems, std::vector<T> &out)
{
	const std::string *v = c.get(key);
	if (!v)
		return;
	auto parsed = parse(*v);
	if (parsed.ok())
		out = parsed.value();
	else
		problems.push_back(std::string(key) + ": " + parsed.error() + "; ignored");
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
	list(c, "profiling", parse_count_list, problems, r.profiling);
	std::vector<CommentRow> rows;
	list(c, "rows", parse_comment_rows, problems, rows);
	r.rows = rows.size();
	r.epoch_s = number(c, "epoch_s", problems);
	r.epochs_done = number(c, "epochs_done", problems);
	r.samples_s = number(c, "samples_s", problems);
	r.data_wait = number(c, "data_wait", problems);
	r.profile_s = number(c, "profile_s", problems);
	r.real_s = number(c, "real_s", problems);
	r.workers = whole(c, "workers", 1 << 20, problems);
	list(c, "resizes", parse_comment_resizes, problems, r.resizes);
	if (const std::string *v = c.get("phase")) {
		auto p = parse_comment_phase(*v);
		if (p.ok())
			r.phase = p.value();
		else
			problems.push_back("phase: " + p.error() + "; ignored");
	}
	return r;
}

} // namespace report
} // namespace omru
