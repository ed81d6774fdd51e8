// omru_conf.cpp - see omru_conf.hpp.
#include "controller/omru_conf.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>

namespace omru {
namespace controller {
namespace {

std::string lower(std::string_view s)
{
	std::string out(s);
	for (char &c : out)
		if (c >= 'A' && c <= 'Z')
			c = static_cast<char>(c - 'A' + 'a');
	return out;
}

std::string_view trim(std::string_view s)
{
	while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r'))
		s.remove_prefix(1);
	while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
		s.remove_suffix(1);
	return s;
}

// Plain decimal: digits with an optional fraction, no sign, no exponent.
bool parse_decimal(std::string_view v, double &out)
{
	if (v.empty() || v.size() > 32)
		return false;
	bool dot = false, digit = false;
	for (char c : v) {
		if (c == '.' && !dot)
			dot = true;
		else if (c >= '0' && c <= '9')
			digit = true;
		else
			return false;
	}
	if (!digit)
		return false;
	out = std::strtod(std::string(v).c_str(), nullptr);
	return std::isfinite(out);
}

bool parse_bool(std::string_view v, bool &out)
{
	std::string l = lower(v);
	if (l == "yes" || l == "true" || l == "1") {
		out = true;
		return true;
	}
	if (l == "no" || l == "false" || l == "0") {
		out = false;
		return true;
	}
	return false;
}

std::string fmt(double v)
{
	char buf[64];
	std::snprintf(buf, sizeof(buf), "%g", v);
	return buf;
}

struct Key {
	const char *name;
	// Applies the value; RET "" or what is allowed.
	std::function<std::string(std::string_view, OmruConf &)> apply;
};

std::string number_in(std::string_view v, double lo, double hi, double &out,
		      const char *what)
{
	double d;
	if (!parse_decimal(v, d) || d < lo || d > hi)
		return std::string("must be ") + what + " from " + fmt(lo) + " to " + fmt(hi);
	out = d;
	return "";
}

std::string whole_in(std::string_view v, int lo, int hi, int &out)
{
	double d;
	if (!number_in(v, lo, hi, d, "a whole number").empty() || d != std::floor(d))
		return "must be a whole number from " + std::to_string(lo) + " to " +
		       std::to_string(hi);
	out = static_cast<int>(d);
	return "";
}

std::string path_value(std::string_view v, std::string &out)
{
	if (v.empty() || v.front() != '/')
		return "must be an absolute path";
	if (v.size() > 4095)
		return "path longer than 4095 bytes";
	for (char c : v)
		if (c == ' ' || c == '\t' || static_cast<unsigned char>(c) < 0x20)
			return "path must not contain whitespace or control characters";
	out = std::string(v);
	return "";
}

const std::vector<Key> &keys()
{
	static const std::vector<Key> k = {
		{ "Objective",
		  [](std::string_view v, OmruConf &c) -> std::string {
			  std::string l = lower(v);
			  if (l == "makespan")
				  c.objective = planner::Objective::Makespan;
			  else if (l == "jct")
				  c.objective = planner::Objective::MeanJct;
			  else
				  return "must be makespan or jct";
			  return "";
		  } },
		{ "FairnessFactor",
		  [](std::string_view v, OmruConf &c) -> std::string {
			  double d;
			  if (!parse_decimal(v, d) || (d != 0 && (d < 1 || d > 1000)))
				  return "must be 0 (off) or a number from 1 to 1000";
			  c.fairness_factor = d;
			  return "";
		  } },
		{ "ProfileFile",
		  [](std::string_view v, OmruConf &c) -> std::string {
			  std::string p;
			  std::string e = path_value(v, p);
			  if (!e.empty())
				  return e;
			  if (std::find(c.profile_files.begin(), c.profile_files.end(), p) !=
			      c.profile_files.end())
				  return "is already listed";
			  c.profile_files.push_back(p);
			  return "";
		  } },
		{ "StateDir",
		  [](std::string_view v, OmruConf &c) { return path_value(v, c.state_dir); } },
		{ "PlanIntervalMin",
		  [](std::string_view v, OmruConf &c) {
			  return number_in(v, 0, 3600, c.plan_interval_min_s, "seconds");
		  } },
		{ "PlanIntervalMax",
		  [](std::string_view v, OmruConf &c) {
			  return number_in(v, 1, 86400, c.plan_interval_max_s, "seconds");
		  } },
		{ "PlanTimeMax",
		  [](std::string_view v, OmruConf &c) {
			  return number_in(v, 1, 60000, c.plan_time_max_ms, "milliseconds");
		  } },
		{ "CpusPerGpu",
		  [](std::string_view v, OmruConf &c) {
			  return whole_in(v, 0, 1024, c.cpus_per_gpu);
		  } },
		{ "PlanRigidJobs",
		  [](std::string_view v, OmruConf &c) -> std::string {
			  return parse_bool(v, c.plan_rigid_jobs) ? "" : "must be yes or no";
		  } },
		{ "MaxPendingPlanned",
		  [](std::string_view v, OmruConf &c) {
			  return whole_in(v, 1, 1000000, c.max_pending_planned);
		  } },
		{ "LogPlans",
		  [](std::string_view v, OmruConf &c) -> std::string {
			  return parse_bool(v, c.log_plans) ? "" : "must be yes or no";
		  } },
	};
	return k;
}

std::string known_keys()
{
	std::string s;
	for (const Key &k : keys())
		s += (s.empty() ? "" : ", ") + std::string(k.name);
	return s;
}

} // namespace

Parsed<OmruConf> parse_omru_conf(std::string_view text, const std::string &file)
{
	using P = Parsed<OmruConf>;
	OmruConf c;
	std::set<std::string> seen;
	size_t n = 0;
	while (!text.empty()) {
		size_t nl = text.find('\n');
		std::string_view line = text.substr(0, nl);
		text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
		n++;
		std::string where = file + ":" + std::to_string(n) + ": ";
		if (line.size() > kMaxOmruConfLine)
			return P::fail(where + "line longer than " +
				       std::to_string(kMaxOmruConfLine) + " bytes");
		size_t hash = line.find('#');
		if (hash != std::string_view::npos)
			line = line.substr(0, hash);
		line = trim(line);
		if (line.empty())
			continue;
		size_t eq = line.find('=');
		if (eq == std::string_view::npos)
			return P::fail(where + "'" + std::string(line) +
				       "': expected Key=Value");
		std::string_view key = trim(line.substr(0, eq));
		std::string_view value = trim(line.substr(eq + 1));
		auto k = std::find_if(keys().begin(), keys().end(), [&](const Key &x) {
			return lower(x.name) == lower(key);
		});
		if (k == keys().end())
			return P::fail(where + "unknown key '" + std::string(key) +
				       "' (known: " + known_keys() + ")");
		std::string name = k->name;
		if (name != "ProfileFile" && !seen.insert(name).second)
			return P::fail(where + name + " is given twice");
		std::string e = k->apply(value, c);
		if (!e.empty())
			return P::fail(where + name + "=" + std::string(value) + ": " + e);
	}
	if (c.plan_interval_max_s < c.plan_interval_min_s)
		return P::fail(file + ": PlanIntervalMax=" + fmt(c.plan_interval_max_s) +
			       " must not be below PlanIntervalMin=" +
			       fmt(c.plan_interval_min_s));
	return c;
}

Parsed<OmruConf> load_omru_conf(const std::string &path, bool missing_ok)
{
	using P = Parsed<OmruConf>;
	std::ifstream in(path, std::ios::binary);
	if (!in) {
		if (errno == ENOENT && missing_ok)
			return OmruConf{};
		return P::fail(path + ": cannot read: " + std::strerror(errno));
	}
	std::string text;
	char buf[8192];
	while (in.read(buf, sizeof(buf)) || in.gcount() > 0) {
		text.append(buf, static_cast<size_t>(in.gcount()));
		if (text.size() > kMaxOmruConfBytes)
			return P::fail(path + ": larger than 1 MiB");
	}
	return parse_omru_conf(text, path);
}

std::string format_omru_conf(const OmruConf &c)
{
	std::string s = "Objective=";
	s += c.objective == planner::Objective::Makespan ? "makespan" : "jct";
	s += " FairnessFactor=" + fmt(c.fairness_factor);
	for (const std::string &p : c.profile_files)
		s += " ProfileFile=" + p;
	s += " StateDir=" + (c.state_dir.empty() ? std::string("(default)") : c.state_dir);
	s += " PlanIntervalMin=" + fmt(c.plan_interval_min_s);
	s += " PlanIntervalMax=" + fmt(c.plan_interval_max_s);
	s += " PlanTimeMax=" + fmt(c.plan_time_max_ms);
	s += " CpusPerGpu=" + std::to_string(c.cpus_per_gpu);
	s += std::string(" PlanRigidJobs=") + (c.plan_rigid_jobs ? "yes" : "no");
	s += " MaxPendingPlanned=" + std::to_string(c.max_pending_planned);
	s += std::string(" LogPlans=") + (c.log_plans ? "yes" : "no");
	return s;
}

} // namespace controller
} // namespace omru
