// resize_state.cpp - see resize_state.hpp.
#include "controller/resize_state.hpp"

#include "controller/plan_state.hpp" // state_header_error

#include <cmath>
#include <sstream>

namespace omru {
namespace controller {
namespace {

constexpr const char *kMagic = "omru-resize-state";
constexpr int kVersion = 1;

bool time_ok(double t) { return std::isfinite(t) && t >= 0 && t <= 1e12; }

bool model_ok(const std::string &m)
{
	return !m.empty() && m.size() <= 256 && m.find_first_of(" \t\r\n") == std::string::npos;
}

// "0:2,1:3" (node index ascending, counts >= 1).
bool parse_where(const std::string &s, std::vector<std::pair<int, int>> &out)
{
	std::istringstream in(s);
	std::string item;
	while (std::getline(in, item, ',')) {
		std::istringstream it(item);
		int node = -1, gpus = 0;
		char colon = 0;
		if (!(it >> node >> colon >> gpus) || colon != ':' || !it.eof() ||
		    node < 0 || node > 1000000 || gpus < 1 || gpus > 65536 ||
		    (!out.empty() && out.back().first >= node))
			return false;
		out.emplace_back(node, gpus);
	}
	return !out.empty();
}

} // namespace

std::string format_resize_state(const ResizeBookState &st)
{
	std::ostringstream o;
	o.precision(17);
	o << kMagic << ' ' << kVersion << '\n';
	for (const Resize &r : st.open) {
		o << "resize " << r.job_id << ' ' << r.from_gpus << ' ' << r.to_gpus << ' '
		  << r.asked_s << ' ' << r.stopped_s << ' ' << r.model << ' ';
		for (size_t i = 0; i < r.where.size(); i++)
			o << (i ? "," : "") << r.where[i].first << ':' << r.where[i].second;
		o << '\n';
	}
	for (const Resize &r : st.restarting)
		o << "restarting " << r.job_id << ' ' << r.from_gpus << ' ' << r.to_gpus << ' '
		  << r.asked_s << ' ' << r.cost_s << ' ' << r.model << '\n';
	for (uint32_t id : st.refused)
		o << "refused " << id << '\n';
	for (uint32_t id : st.late)
		o << "late " << id << '\n';
	for (auto [id, until] : st.rest_until)
		o << "rest " << id << ' ' << until << '\n';
	for (const auto &[model, m] : st.by_model)
		o << "cost " << model << ' ' << m.n << ' ' << m.sum << '\n';
	o << "cost_all " << st.all.n << ' ' << st.all.sum << '\n';
	return o.str();
}

Parsed<ResizeBookState> parse_resize_state(const std::string &text,
					   const std::string &file)
{
	using P = Parsed<ResizeBookState>;
	std::istringstream in(text);
	std::string line;
	ResizeBookState st;
	int n = 0;
	while (std::getline(in, line)) {
		n++;
		std::istringstream l(line);
		std::string key;
		l >> key;
		auto bad = [&](const std::string &why) {
			return P::fail(file + ":" + std::to_string(n) + ": " + why);
		};
		if (n == 1) {
			std::string e = state_header_error(key, l, kMagic, kVersion,
							   "an omru resize state file");
			if (!e.empty())
				return bad(e);
			continue;
		}
		if (key == "resize") {
			Resize r;
			std::string where;
			if (!(l >> r.job_id >> r.from_gpus >> r.to_gpus >> r.asked_s >>
			      r.stopped_s >> r.model >> where) ||
			    r.job_id == 0 || r.from_gpus < 1 || r.to_gpus < 1 ||
			    !time_ok(r.asked_s) || !time_ok(r.stopped_s) ||
			    !model_ok(r.model) || !parse_where(where, r.where))
				return bad("resize needs JOB FROM TO ASKED_S STOPPED_S MODEL "
					   "NODE:GPUS,...");
			st.open.push_back(std::move(r));
		} else if (key == "restarting") {
			Resize r;
			if (!(l >> r.job_id >> r.from_gpus >> r.to_gpus >> r.asked_s >>
			      r.cost_s >> r.model) ||
			    r.job_id == 0 || r.from_gpus < 1 || r.to_gpus < 1 ||
			    !time_ok(r.asked_s) || !time_ok(r.cost_s) || !model_ok(r.model))
				return bad("restarting needs JOB FROM TO ASKED_S COST_S MODEL");
			st.restarting.push_back(std::move(r));
		} else if (key == "refused" || key == "late") {
			uint32_t id = 0;
			if (!(l >> id) || id == 0)
				return bad(key + " needs a job id");
			(key == "refused" ? st.refused : st.late).push_back(id);
		} else if (key == "rest") {
			uint32_t id = 0;
			double until = 0;
			if (!(l >> id >> until) || id == 0 || !time_ok(until))
				return bad("rest needs JOB UNTIL_S");
			st.rest_until.emplace_back(id, until);
		} else if (key == "cost" || key == "cost_all") {
			std::string model;
			CostMean m;
			if ((key == "cost" && (!(l >> model) || !model_ok(model))) ||
			    !(l >> m.n >> m.sum) || m.n < 0 || !time_ok(m.sum))
				return bad(key + " needs " + (key == "cost" ? "MODEL " : "") +
					   "COUNT SUM_S");
			if (key == "cost")
				st.by_model[model] = m;
			else
				st.all = m;
		} else if (!key.empty()) {
			return bad("unknown key '" + key + "'");
		}
		std::string rest;
		if (l >> rest)
			return bad("trailing text after " + key);
	}
	if (n == 0)
		return P::fail(file + ": empty");
	return st;
}

} // namespace controller
} // namespace omru
