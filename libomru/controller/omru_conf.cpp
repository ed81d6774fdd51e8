// omru_conf.cpp - see omru_conf.hpp.
#include "controller/omru_conf.hpp"

#include "omru/omru.h" // OMRU_GPUS_LIMIT

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <functional>
#include <sys/stat.h>
#include <unistd.h>

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

bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

std::string_view trim(std::string_view s)
{
	while (!s.empty() && is_space(s.front()))
		s.remove_prefix(1);
	while (!s.empty() && is_space(s.back()))
		s.remove_suffix(1);
	return s;
}

bool is_digits(std::string_view s)
{
	return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
		return c >= '0' && c <= '9';
	});
}

// Plain decimal: DIGITS or DIGITS.DIGITS - no sign, exponent, hex, inf, nan.
bool parse_decimal(std::string_view v, double &out)
{
	if (v.size() > 32)
		return false;
	size_t dot = v.find('.');
	if (!is_digits(v.substr(0, dot)))
		return false;
	if (dot != std::string_view::npos && !is_digits(v.substr(dot + 1)))
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

// The shortest fixed-point text that reads back as `v` ("0.5", "86400").
std::string fmt(double v)
{
	char buf[64];
	for (int digits = 0; digits <= 17; digits++) {
		std::snprintf(buf, sizeof(buf), "%.*f", digits, v);
		if (std::strtod(buf, nullptr) == v)
			return buf;
	}
	std::snprintf(buf, sizeof(buf), "%.17g", v);
	return buf;
}

// A number from lo to hi; RET "" or what is allowed.
std::string number_in(std::string_view v, double lo, double hi, double &out,
		      const char *unit)
{
	double d;
	if (!parse_decimal(v, d) || d < lo || d > hi)
		return std::string("must be a number of ") + unit + " from " +
		       fmt(lo) + " to " + fmt(hi);
	out = d;
	return "";
}

// A whole number (digits only) from lo to hi; RET "" or what is allowed.
std::string whole_in(std::string_view v, int lo, int hi, int &out)
{
	double d = 0;
	if (!is_digits(v) || !parse_decimal(v, d) || d < lo || d > hi)
		return "must be a whole number from " + std::to_string(lo) + " to " +
		       std::to_string(hi);
	out = static_cast<int>(d);
	return "";
}

// An absolute path; RET "" or what is allowed.  Whitespace and control
// characters never reach here (parse_omru_conf refuses them first).
std::string path_value(std::string_view v, std::string &out)
{
	if (v.empty() || v.front() != '/')
		return "must be an absolute path";
	if (v.size() > kMaxOmruConfPath)
		return "must be a path of at most " + std::to_string(kMaxOmruConfPath) +
		       " bytes";
	out = std::string(v);
	return "";
}

// What parse_omru_conf knows of the file beyond the values.
struct Seen {
	std::vector<std::pair<std::string, size_t>> lines; // key -> first line
	std::vector<size_t> profile_lines;                  // of profile_files
	std::string interval_min_text, interval_max_text;   // as written
};

struct Key {
	const char *name;
	// Applies `value` given on `line`; RET "" or what is wrong and allowed.
	std::function<std::string(std::string_view value, size_t line,
				  OmruConf &, Seen &)>
		apply;
};

const std::vector<Key> &keys()
{
	static const std::vector<Key> k = {
		{ "Objective",
		  [](std::string_view v, size_t, OmruConf &c, Seen &) -> std::string {
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
		  [](std::string_view v, size_t, OmruConf &c, Seen &) -> std::string {
			  double d;
			  if (!parse_decimal(v, d) || (d != 0 && (d < 1 || d > 1000)))
				  return "must be 0 (off) or a number from 1 to 1000";
			  c.fairness_factor = d;
			  return "";
		  } },
		{ "ReferenceBound",
		  [](std::string_view v, size_t, OmruConf &c, Seen &) -> std::string {
			  return parse_bool(v, c.reference_bound) ? "" : "must be yes or no";
		  } },
		{ "ReferenceSlack",
		  [](std::string_view v, size_t, OmruConf &c, Seen &) {
			  return number_in(v, 0, 10, c.reference_slack, "a fraction");
		  } },
		{ "ReferenceSlackSeconds",
		  [](std::string_view v, size_t, OmruConf &c, Seen &) {
			  return number_in(v, 0, 86400, c.reference_slack_s, "seconds");
		  } },
		{ "ArrivalGuard",
		  [](std::string_view v, size_t, OmruConf &c, Seen &) -> std::string {
			  return parse_bool(v, c.arrival_guard) ? "" : "must be yes or no";
		  } },
		{ "ProfileFile",
		  [](std::string_view v, size_t line, OmruConf &c, Seen &s) -> std::string {
			  std::string p;
			  std::string e = path_value(v, p);
			  if (!e.empty())
				  return e;
			  auto it = std::find(c.profile_files.begin(), c.profile_files.end(), p);
			  if (it != c.profile_files.end())
				  return "is already listed on line " +
					 std::to_string(s.profile_lines[static_cast<size_t>(
						 it - c.profile_files.begin())]);
			  c.profile_files.push_back(p);
			  s.profile_lines.push_back(line);
			  return "";
		  } },
		{ "StateDir",
		  [](std::string_view v, size_t, OmruConf &c, Seen &) {
			  return path_value(v, c.state_dir);
		  } },
		{ "PlanIntervalMin",
		  [](std::string_view v, size_t, OmruConf &c, Seen &s) {
			  s.interval_min_text = std::string(v);
			  return number_in(v, 0, 3600, c.plan_interval_min_s, "seconds");
		  } },
		{ "PlanIntervalMax",
		  [](std::string_view v, size_t, OmruConf &c, Seen &s) {
			  s.interval_max_text = std::string(v);
			  return number_in(v, 1, 86400, c.plan_interval_max_s, "seconds");
		  } },
		{ "PlanTimeMax",
		  [](std::string_view v, size_t, OmruConf &c, Seen &) {
			  return number_in(v, 1, 60000, c.plan_time_max_ms, "milliseconds");
		  } },
		{ "CorrectionMargin",
		  [](std::string_view v, size_t, OmruConf &c, Seen &) {
			  return number_in(v, 0.01, 10, c.correction_margin, "a fraction");
		  } },
		{ "SpreadCost",
		  [](std::string_view v, size_t, OmruConf &c, Seen &) {
			  return number_in(v, 1, 10, c.spread_cost, "a factor");
		  } },
		{ "CpusPerGpu",
		  [](std::string_view v, size_t, OmruConf &c, Seen &) {
			  return whole_in(v, 0, 1024, c.cpus_per_gpu);
		  } },
		{ "MaxJobGpus",
		  [](std::string_view v, size_t, OmruConf &c, Seen &) {
			  return whole_in(v, 0, OMRU_GPUS_LIMIT, c.max_job_gpus);
		  } },
		{ "LoaderCpus",
		  [](std::string_view v, size_t, OmruConf &c, Seen &) -> std::string {
			  return parse_bool(v, c.loader_cpus) ? "" : "must be yes or no";
		  } },
		{ "PlanRigidJobs",
		  [](std::string_view v, size_t, OmruConf &c, Seen &) -> std::string {
			  return parse_bool(v, c.plan_rigid_jobs) ? "" : "must be yes or no";
		  } },
		{ "MaxPendingPlanned",
		  [](std::string_view v, size_t, OmruConf &c, Seen &) {
			  return whole_in(v, 1, 1000000, c.max_pending_planned);
		  } },
		{ "Elastic",
		  [](std::string_view v, size_t, OmruConf &c, Seen &) -> std::string {
			  return parse_bool(v, c.elastic) ? "" : "must be yes or no";
		  } },
		{ "ElasticGrace",
		  [](std::string_view v, size_t, OmruConf &c, Seen &) {
			  return number_in(v, 5, 86400, c.elastic_grace_s, "seconds");
		  } },
		{ "RestartOverhead",
		  [](std::string_view v, size_t, OmruConf &c, Seen &) {
			  return number_in(v, 0, 86400, c.restart_overhead_s, "seconds");
		  } },
		{ "StartOverhead",
		  [](std::string_view v, size_t, OmruConf &c, Seen &) {
			  if (lower(v) == "auto") {
				  c.start_overhead_s = -1;
				  return std::string();
			  }
			  return number_in(v, 0, 3600, c.start_overhead_s, "auto or seconds");
		  } },
		{ "ResizeMargin",
		  [](std::string_view v, size_t, OmruConf &c, Seen &) {
			  return number_in(v, 0, 10, c.resize_margin, "a fraction");
		  } },
		{ "PhaseAware",
		  [](std::string_view v, size_t, OmruConf &c, Seen &) -> std::string {
			  return parse_bool(v, c.phase_aware) ? "" : "must be yes or no";
		  } },
		{ "PhaseThreshold",
		  [](std::string_view v, size_t, OmruConf &c, Seen &) {
			  return number_in(v, 0, 1, c.phase_threshold, "a fraction");
		  } },
		{ "LayerProfileDir",
		  [](std::string_view v, size_t, OmruConf &c, Seen &) {
			  return path_value(v, c.layer_profile_dir);
		  } },
		{ "ColocationFile",
		  [](std::string_view v, size_t, OmruConf &c, Seen &) {
			  return path_value(v, c.colocation_file);
		  } },
		{ "ColocationSignals",
		  [](std::string_view v, size_t, OmruConf &c, Seen &) {
			  return path_value(v, c.colocation_signals);
		  } },
		{ "PipelineBatch",
		  [](std::string_view v, size_t, OmruConf &c, Seen &) {
			  return whole_in(v, 1, 1 << 20, c.pipeline_batch);
		  } },
		{ "PipelineGpuMem",
		  [](std::string_view v, size_t, OmruConf &c, Seen &) {
			  return number_in(v, 0, 1 << 20, c.pipeline_gpu_mem_gib, "GiB");
		  } },
		{ "LogPlans",
		  [](std::string_view v, size_t, OmruConf &c, Seen &) -> std::string {
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

size_t line_of(const Seen &s, const std::string &key)
{
	for (const auto &kl : s.lines)
		if (kl.first == key)
			return kl.second;
	return 0;
}

// PlanIntervalMax >= PlanIntervalMin, blamed on the later of the two lines
// that set them (the one that made the pair wrong); RET "" when fine.
std::string check_intervals(const OmruConf &c, const Seen &s, const std::string &file)
{
	if (c.plan_interval_max_s >= c.plan_interval_min_s)
		return "";
	size_t min_line = line_of(s, "PlanIntervalMin");
	size_t max_line = line_of(s, "PlanIntervalMax");
	std::string min_text = min_line ? s.interval_min_text
					: fmt(c.plan_interval_min_s) + " (the default)";
	std::string max_text = max_line ? s.interval_max_text
					: fmt(c.plan_interval_max_s) + " (the default)";
	if (max_line > min_line)
		return file + ":" + std::to_string(max_line) + ": PlanIntervalMax=" +
		       s.interval_max_text + ": must not be below PlanIntervalMin=" +
		       min_text;
	return file + ":" + std::to_string(min_line) + ": PlanIntervalMin=" +
	       s.interval_min_text + ": must not be above PlanIntervalMax=" + max_text;
}

} // namespace

Parsed<OmruConf> parse_omru_conf(std::string_view text, const std::string &file)
{
	using P = Parsed<OmruConf>;
	OmruConf c;
	Seen seen;
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
		for (char ch : line) {
			auto u = static_cast<unsigned char>(ch);
			if ((u < 0x20 && ch != '\t') || u == 0x7f) {
				char hex[8];
				std::snprintf(hex, sizeof(hex), "0x%02x", u);
				return P::fail(where + "control character " + hex +
					       " (only text is allowed)");
			}
		}
		size_t eq = line.find('=');
		if (eq == std::string_view::npos || trim(line.substr(0, eq)).empty())
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
		if (name != "ProfileFile") {
			if (size_t first = line_of(seen, name))
				return P::fail(where + name + " is given twice (first on line " +
					       std::to_string(first) + ")");
			seen.lines.emplace_back(name, n);
		}
		std::string setting = name + "=" + std::string(value) + ": ";
		if (std::any_of(value.begin(), value.end(), is_space))
			return P::fail(where + setting +
				       "must not contain whitespace (one Key=Value per line)");
		std::string e = k->apply(value, n, c, seen);
		if (!e.empty())
			return P::fail(where + setting + e);
	}
	std::string e = check_intervals(c, seen, file);
	if (!e.empty())
		return P::fail(e);
	return c;
}

Parsed<OmruConf> load_omru_conf(const std::string &path, bool missing_ok)
{
	using P = Parsed<OmruConf>;
	int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int err = errno;
		if (err == ENOENT && missing_ok)
			return OmruConf{};
		return P::fail(path + ": cannot read: " + std::strerror(err));
	}
	struct Closer {
		int fd;
		~Closer() { ::close(fd); }
	} closer{ fd };
	struct stat st;
	if (::fstat(fd, &st) != 0)
		return P::fail(path + ": cannot read: " + std::strerror(errno));
	if (!S_ISREG(st.st_mode))
		return P::fail(path + ": cannot read: not a regular file");
	if (static_cast<unsigned long long>(st.st_size) > kMaxOmruConfBytes)
		return P::fail(path + ": larger than 1 MiB");
	std::string text;
	char buf[8192];
	for (;;) {
		ssize_t got = ::read(fd, buf, sizeof(buf));
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return P::fail(path + ": cannot read: " + std::strerror(errno));
		if (got == 0)
			break;
		text.append(buf, static_cast<size_t>(got));
		if (text.size() > kMaxOmruConfBytes) // grew while being read
			return P::fail(path + ": larger than 1 MiB");
	}
	return parse_omru_conf(text, path);
}

std::string format_omru_conf(const OmruConf &c)
{
	std::string s = "Objective=";
	s += c.objective == planner::Objective::Makespan ? "makespan" : "jct";
	s += " FairnessFactor=" + fmt(c.fairness_factor);
	s += std::string(" ReferenceBound=") + (c.reference_bound ? "yes" : "no");
	s += " ReferenceSlack=" + fmt(c.reference_slack);
	s += " ReferenceSlackSeconds=" + fmt(c.reference_slack_s);
	s += std::string(" ArrivalGuard=") + (c.arrival_guard ? "yes" : "no");
	if (c.profile_files.empty())
		s += " ProfileFile=(none)";
	for (const std::string &p : c.profile_files)
		s += " ProfileFile=" + p;
	s += " StateDir=" + (c.state_dir.empty() ? std::string("(default)") : c.state_dir);
	s += " PlanIntervalMin=" + fmt(c.plan_interval_min_s);
	s += " PlanIntervalMax=" + fmt(c.plan_interval_max_s);
	s += " PlanTimeMax=" + fmt(c.plan_time_max_ms);
	s += " CpusPerGpu=" + std::to_string(c.cpus_per_gpu);
	s += " MaxJobGpus=" + std::to_string(c.max_job_gpus);
	s += std::string(" LoaderCpus=") + (c.loader_cpus ? "yes" : "no");
	s += std::string(" PlanRigidJobs=") + (c.plan_rigid_jobs ? "yes" : "no");
	s += " MaxPendingPlanned=" + std::to_string(c.max_pending_planned);
	s += std::string(" LogPlans=") + (c.log_plans ? "yes" : "no");
	s += " CorrectionMargin=" + fmt(c.correction_margin);
	s += " SpreadCost=" + fmt(c.spread_cost);
	s += std::string(" Elastic=") + (c.elastic ? "yes" : "no");
	s += " ElasticGrace=" + fmt(c.elastic_grace_s);
	s += " RestartOverhead=" + fmt(c.restart_overhead_s);
	s += " StartOverhead=" + (c.start_overhead_s < 0 ? std::string("auto") : fmt(c.start_overhead_s));
	s += " ResizeMargin=" + fmt(c.resize_margin);
	s += std::string(" PhaseAware=") + (c.phase_aware ? "yes" : "no");
	s += " PhaseThreshold=" + fmt(c.phase_threshold);
	s += " LayerProfileDir=" +
	     (c.layer_profile_dir.empty() ? std::string("(none)") : c.layer_profile_dir);
	s += " PipelineBatch=" + std::to_string(c.pipeline_batch);
	s += " PipelineGpuMem=" + fmt(c.pipeline_gpu_mem_gib);
	s += " ColocationFile=" +
	     (c.colocation_file.empty() ? std::string("(none)") : c.colocation_file);
	s += " ColocationSignals=" +
	     (c.colocation_signals.empty() ? std::string("(none)") : c.colocation_signals);
	return s;
}

} // namespace controller
} // namespace omru
