// sacct_jobs.cpp - see sacct_jobs.hpp.
#include "sacct_jobs.hpp"

#include <charconv>
#include <ctime>
#include <stdexcept>
#include <tuple>

#include "model/cluster.hpp"      // kMaxClusterNodes
#include "model/cluster_file.hpp" // expand_hostlist

namespace omru {
namespace report {
namespace {

// Fields of one line: the first kSacctColumns - 1 '|' split, the rest of
// the line is the last field.
std::vector<std::string_view> split_line(std::string_view line)
{
	std::vector<std::string_view> out;
	while (out.size() + 1 < kSacctColumns) {
		size_t bar = line.find('|');
		if (bar == std::string_view::npos)
			break;
		out.push_back(line.substr(0, bar));
		line.remove_prefix(bar + 1);
	}
	out.push_back(line);
	return out;
}

bool parse_int(std::string_view s, int &out)
{
	auto r = std::from_chars(s.data(), s.data() + s.size(), out);
	return r.ec == std::errc() && r.ptr == s.data() + s.size() && out >= 0;
}

} // namespace

std::vector<std::string> sacct_argv(const SacctSelection &s)
{
	std::vector<std::string> argv = { "sacct", "-n", "-P", "-X", "-o",
					  kSacctFormat };
	if (!s.jobs.empty())
		argv.push_back("--jobs=" + s.jobs);
	if (!s.start.empty())
		argv.push_back("--starttime=" + s.start);
	if (!s.end.empty())
		argv.push_back("--endtime=" + s.end);
	if (!s.user.empty())
		argv.push_back("--user=" + s.user);
	if (s.all_users)
		argv.push_back("--allusers");
	return argv;
}

double parse_sacct_time(std::string_view text)
{
	// Exactly YYYY-MM-DDTHH:MM:SS; sscanf would take blanks and signs.
	if (text.size() != 19 || text[4] != '-' || text[7] != '-' ||
	    text[10] != 'T' || text[13] != ':' || text[16] != ':')
		return kUnknownTime;
	int v[6];
	const size_t at[6] = { 0, 5, 8, 11, 14, 17 }, len[6] = { 4, 2, 2, 2, 2, 2 };
	for (int i = 0; i < 6; i++) {
		std::string_view part = text.substr(at[i], len[i]);
		if (part.find_first_not_of("0123456789") != std::string_view::npos ||
		    !parse_int(part, v[i]))
			return kUnknownTime;
	}
	if (v[1] < 1 || v[1] > 12 || v[2] < 1 || v[2] > 31 || v[3] > 23 ||
	    v[4] > 59 || v[5] > 60)
		return kUnknownTime;
	std::tm tm{};
	tm.tm_year = v[0] - 1900;
	tm.tm_mon = v[1] - 1;
	tm.tm_mday = v[2];
	tm.tm_hour = v[3];
	tm.tm_min = v[4];
	tm.tm_sec = v[5];
	tm.tm_isdst = -1; // sacct writes local time; let mktime find DST
	const std::time_t t = std::mktime(&tm);
	return t == static_cast<std::time_t>(-1) ? kUnknownTime
						 : static_cast<double>(t);
}

int alloc_tres_gpus(std::string_view tres)
{
	int plain = -2, typed = 0; // -2: no plain gres/gpu= entry
	for (size_t pos = 0; pos <= tres.size();) {
		size_t comma = tres.find(',', pos);
		std::string_view item = tres.substr(
			pos, comma == std::string_view::npos ? std::string_view::npos
							     : comma - pos);
		pos = comma == std::string_view::npos ? tres.size() + 1 : comma + 1;
		const std::string_view key = "gres/gpu";
		size_t eq = item.find('=');
		std::string_view name = item.substr(0, eq);
		// gres/gpu or gres/gpu:TYPE, not gres/gpumem or gres/gpuutil.
		if (eq == std::string_view::npos || name.substr(0, key.size()) != key ||
		    (name.size() > key.size() && name[key.size()] != ':'))
			continue;
		int n = 0;
		if (!parse_int(item.substr(eq + 1), n))
			return -1;
		if (name == key)
			plain = n;
		else
			typed += n;
	}
	return plain >= 0 ? plain : typed;
}

std::vector<SacctJob> parse_sacct(const std::string &name, std::string_view text,
				  std::vector<std::string> &warnings)
{
	std::vector<SacctJob> jobs;
	size_t line_no = 0;
	for (size_t pos = 0; pos < text.size();) {
		size_t nl = text.find('\n', pos);
		std::string_view line = text.substr(
			pos, nl == std::string_view::npos ? std::string_view::npos
							  : nl - pos);
		pos = nl == std::string_view::npos ? text.size() : nl + 1;
		line_no++;
		if (!line.empty() && line.back() == '\r')
			line.remove_suffix(1);
		const std::string where = name + ":" + std::to_string(line_no) + ": ";
		std::vector<std::string_view> f = split_line(line);
		const bool job_line = f.size() == kSacctColumns && !f[0].empty() &&
				      f[0][0] >= '0' && f[0][0] <= '9';
		if (!job_line) {
			if (!jobs.empty())
				jobs.back().admin_comment += "\n" + std::string(line);
			else if (!line.empty())
				warnings.push_back(where + "not a sacct line (" +
						   std::to_string(kSacctColumns) +
						   " '|'-separated fields: " +
						   kSacctFormat + "); skipped");
			continue;
		}
		SacctJob j;
		j.line = line_no;
		j.id = f[0];
		j.name = f[1];
		j.user = f[2];
		std::string_view state = f[3];
		j.state = state.substr(0, state.find(' '));
		j.submit_text = f[4];
		j.start_text = f[5];
		j.end_text = f[6];
		j.submit_s = parse_sacct_time(f[4]);
		j.start_s = parse_sacct_time(f[5]);
		j.end_s = parse_sacct_time(f[6]);
		const std::string job = where + "job " + j.id + ": ";
		if (std::isnan(j.submit_s))
			warnings.push_back(job + "Submit '" + j.submit_text +
					   "' is not a time (YYYY-MM-DDTHH:MM:SS)");
		for (auto [text, value, column] :
		     { std::tuple{ f[5], j.start_s, "Start" },
		       std::tuple{ f[6], j.end_s, "End" } })
			if (std::isnan(value) && text != "Unknown" && text != "None" &&
			    !text.empty())
				warnings.push_back(job + column + " '" +
						   std::string(text) +
						   "' is not a time (YYYY-MM-DDTHH:MM:SS)");
		j.gpus = alloc_tres_gpus(f[7]);
		if (j.gpus < 0) {
			warnings.push_back(job + "AllocTRES '" + std::string(f[7]) +
					   "': a gres/gpu count is not a number");
			j.gpus = 0;
		}
		j.node_list = f[8];
		if (!f[8].empty() && f[8] != "None assigned" && f[8] != "None") {
			try {
				j.nodes = expand_hostlist(f[8], kMaxClusterNodes);
			} catch (const std::invalid_argument &e) {
				warnings.push_back(job + "NodeList " + e.what());
			}
		}
		j.admin_comment = f[9];
		jobs.push_back(std::move(j));
	}
	return jobs;
}

} // namespace report
} // namespace omru
