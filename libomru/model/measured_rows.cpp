// measured_rows.cpp - see measured_rows.hpp.
#include "model/measured_rows.hpp"
#include "model/report_bounds.hpp"
#include "model/decimal_text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>

#include "model/csv_table.hpp"

namespace omru {
namespace {

// The number after "key": in a flat JSON object, or NAN.  omru-train's
// metrics lines are flat objects of numbers, so this is all it takes.
double json_number(std::string_view obj, const std::string &key)
{
	std::string pat = "\"" + key + "\"";
	size_t at = obj.find(pat);
	if (at == std::string_view::npos)
		return NAN;
	at += pat.size();
	while (at < obj.size() && obj[at] == ' ')
		at++;
	if (at >= obj.size() || obj[at] != ':')
		return NAN;
	std::string tail(obj.substr(at + 1, 40));
	char *end = nullptr;
	double v = std::strtod(tail.c_str(), &end);
	return end == tail.c_str() || !std::isfinite(v) ? NAN : v;
}

} // namespace

Parsed<std::vector<CommentRow>> measured_rows(std::string_view csv,
					      const std::string &name,
					      const std::string &model,
					      int max_gpus, int max_nodes)
{
	using R = Parsed<std::vector<CommentRow>>;
	if (csv.size() > kMaxMeasuredFileBytes)
		return R::fail(name + ": larger than " +
			       std::to_string(kMaxMeasuredFileBytes) + " bytes");
	try {
		// The README says "write rows model,gpus,epoch_s,nodes": a
		// trainer that appends rows without the header line is read so.
		CsvTable t = CsvTable::parse(name, std::string(csv),
					     { "model", "gpus", "epoch_s", "nodes" });
		size_t cm = t.require("model"), cg = t.require("gpus"),
		       ce = t.require("epoch_s");
		auto cn = t.optional("nodes");
		std::map<std::pair<int, int>, double> rows;
		for (const CsvRow &r : t.rows()) {
			if (r.field(cm) != model)
				r.fail(cm, "a row of model '" + std::string(r.field(cm)) +
						   "' in a job of model '" + model + "'");
			int g = r.positive_int(cg, 65536);
			if (g > max_gpus)
				r.fail(cg, std::to_string(g) + " GPUs; the job had " +
						   std::to_string(max_gpus));
			int k = 0;
			if (cn && r.has(*cn) && !r.field(*cn).empty()) {
				k = r.positive_int(*cn, 65536);
				if (k > g || k > max_nodes)
					r.fail(*cn, std::to_string(k) + " nodes for " +
							    std::to_string(g) +
							    " GPUs; the job had " +
							    std::to_string(max_nodes));
			}
			double e = r.positive_double(ce);
			if (!bounds::epoch_s_ok(e))
				r.fail(ce, "epoch_s outside 1e-4..1e7 seconds");
			rows[{ g, k }] = e;
		}
		if (rows.size() > kMaxCommentRows)
			return R::fail(name + ": more than " +
				       std::to_string(kMaxCommentRows) +
				       " distinct (gpus, nodes) rows");
		std::vector<CommentRow> out;
		for (const auto &[key, e] : rows)
			out.push_back(CommentRow{ key.first, key.second, e });
		return out;
	} catch (const InputError &e) {
		return R::fail(e.what());
	}
}

std::vector<std::pair<std::string, std::string>>
metrics_summary(std::string_view jsonl)
{
	std::string_view last;
	double profile_s = NAN;
	for (size_t pos = 0; pos < jsonl.size();) {
		size_t nl = jsonl.find('\n', pos);
		std::string_view line = jsonl.substr(
			pos, nl == std::string_view::npos ? std::string_view::npos
							  : nl - pos);
		if (line.size() > 2 && line.front() == '{' &&
		    std::isfinite(json_number(line, "epoch")) &&
		    std::isfinite(json_number(line, "epoch_s"))) {
			last = line;
			if (double p = json_number(line, "profile_s"); std::isfinite(p))
				profile_s = p;
		}
		if (nl == std::string_view::npos)
			break;
		pos = nl + 1;
	}
	std::vector<std::pair<std::string, std::string>> out;
	if (last.empty())
		return out;
	auto add = [&](const char *key, double v, double lo, double hi, int prec) {
		if (std::isfinite(v) && v >= lo && v <= hi)
			out.emplace_back(key, significant(v, prec));
	};
	add("epoch_s", json_number(last, "epoch_s"), bounds::kEpochSMin, bounds::kEpochSMax, 4);
	add("epochs_done", json_number(last, "epoch"), 0, 1e9, 9);
	add("samples_s", json_number(last, "samples_per_s"), 0, bounds::kSamplesSMax, 4);
	add("data_wait", json_number(last, "data_wait_fraction"), 0, 1, 3);
	add("workers", json_number(last, "loader_workers"), 0, 1e6, 6);
	add("profile_s", profile_s, 0, 1e9, 4);
	return out;
}

} // namespace omru
