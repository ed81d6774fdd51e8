// omru_report.cpp - omru-report: what really happened to a window of jobs,
// from sacct: per job the wait, the runtime select/omru predicted and the
// real one, the trainer's throughput and data wait; for the window the
// makespan, GPU utilization, mean JCT and how far the predictions were
// off.  Exit status: 0 done, 1 sacct (or the file) could not be read or
// the chart not written, 2 bad usage.
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>

#include <fcntl.h>
#include <unistd.h>

#include "cli_args.hpp"
#include "cluster_gpus.hpp"
#include "colocation_observed.hpp"
#include "report_stats.hpp"
#include "report_svg.hpp"
#include "report_text.hpp"
#include "run_command.hpp"
#include "sacct_jobs.hpp"

using namespace omru;
using namespace omru::report;

static const char kUsage[] =
	"usage: omru-report [-j LIST] [-S START] [-E END] [-u USER | --all-users]\n"
	"                   [--gpus N] [--json] [--svg FILE] [--colocation-out FILE]\n"
	"                   [--sacct-out FILE] [--baseline FILE [--names BASE,THIS]]\n"
	"       omru-report --sacct-file FILE [--gpus N] [--json] [--svg FILE]\n"
	"                   [--colocation-out FILE] [--baseline FILE [--names BASE,THIS]]\n"
	"       omru-report --help | --version\n";

static void print_help()
{
	std::cout << kUsage << "\n"
		"Reports what really happened to a window of jobs: runs\n"
		"  sacct -n -P -X -o JobID,JobName,User,State,Submit,Start,End,AllocTRES,NodeList,AdminComment\n"
		"and reads the slurm-omru record in each job's AdminComment.  One row per\n"
		"job, then the window's summary.\n\n"
		"  -j, --jobs LIST          sacct --jobs: these jobs\n"
		"  -S, --starttime TIME     sacct --starttime (sacct's default: today 00:00)\n"
		"  -E, --endtime TIME       sacct --endtime\n"
		"  -u, --user USER          sacct --user\n"
		"  --all-users              sacct --allusers\n"
		"  --sacct-file FILE        read that sacct output from FILE, run no sacct\n"
		"  --gpus N                 the cluster's GPUs, for the utilization (else\n"
		"                           sinfo -h -o '%N %G', summed)\n"
		"  --json                   print one JSON document instead of the table\n"
		"  --svg FILE               write a Gantt chart of what ran and a\n"
		"                           predicted-vs-real scatter plot (SVG)\n"
		"  --colocation-out FILE    what co-location cost the window's jobs, as a\n"
		"                           co-location pairs table (ColocationFile= of\n"
		"                           omru.conf(5)): each completed job that shared\n"
		"                           its nodes with jobs of one other model all\n"
		"                           along, its epoch time over its model's alone\n"
		"                           at the same GPU and node count; the counts of\n"
		"                           jobs used and left out on standard error\n"
		"  --sacct-out FILE         also write what sacct printed to FILE (a later\n"
		"                           report's --sacct-file or --baseline)\n"
		"  --baseline FILE          compare with another window of jobs, FILE as\n"
		"                           --sacct-file reads (e.g. the same workload\n"
		"                           under cons_tres+backfill, saved with\n"
		"                           --sacct-out): a side-by-side table of both\n"
		"                           windows' jobs finished, makespan, mean JCT,\n"
		"                           GPU utilization and GPU-seconds, with this\n"
		"                           window's over the baseline's; --svg draws\n"
		"                           the baseline's Gantt chart above this one's,\n"
		"                           on one time scale; --json adds \"comparison\".\n"
		"                           Both windows' utilization is over the same\n"
		"                           cluster GPUs (--gpus or sinfo)\n"
		"  --names BASE,THIS        the two windows' names (default\n"
		"                           \"baseline,this window\")\n\n"
		"Columns: JOBID STATE MODEL GPUS WAIT_S (Start - Submit) PREDICTED_S\n"
		"REAL_S (End - Start) ERROR% ((real - predicted) / predicted, completed\n"
		"jobs) SAMPLES/S DATA_WAIT% PROFILE P (the job profiled).\n\n"
		"Exit status: 0 done, 1 sacct or the file could not be read or the\n"
		"chart not written, 2 bad usage.  See omru-report(1).\n";
}

// Options that take a value, and the short forms of sacct's.
static const std::vector<OptionSpec> kOptions = {
	{ "jobs", true },       { "starttime", true }, { "endtime", true },
	{ "user", true },       { "all-users", false }, { "sacct-file", true },
	{ "gpus", true },       { "json", false },      { "svg", true },
	{ "colocation-out", true }, { "sacct-out", true }, { "baseline", true },
	{ "names", true },
};
static const std::map<std::string, std::string> kShort = {
	{ "-j", "--jobs" }, { "-S", "--starttime" }, { "-E", "--endtime" },
	{ "-u", "--user" }, { "-a", "--all-users" },
};

// sacct's short options as long ones: "-j 12" and "-j12" as "--jobs 12"
// and "--jobs=12".  A word that is an option's value is left as it is.
static std::vector<std::string> long_options(const std::vector<std::string> &args)
{
	std::vector<std::string> out;
	for (size_t i = 0; i < args.size(); i++) {
		const std::string &a = args[i];
		std::string word = a;
		auto it = kShort.find(a.substr(0, 2));
		if (it != kShort.end() && a.size() > 1 && a[1] != '-')
			word = a.size() == 2 ? it->second : it->second + "=" + a.substr(2);
		out.push_back(word);
		if (word.rfind("--", 0) == 0 && word.find('=') == std::string::npos) {
			for (const OptionSpec &o : kOptions)
				if (o.takes_value && word == std::string("--") + o.name &&
				    i + 1 < args.size())
					out.push_back(args[++i]);
		}
	}
	return out;
}

// A selection value goes to sacct as one word; control characters there
// are a mistake, not a selection.
static std::string selection(const CliArgs &args, const char *name)
{
	std::string v = args.get(name).value_or("");
	for (unsigned char c : v)
		if (c < 0x20 || c == 0x7f)
			throw UsageError(std::string("--") + name +
					 ": a control character in the value");
	return v;
}

// The whole file, or false with errno set.
static bool read_whole_file(const std::string &path, std::string &text)
{
	int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	char buf[65536];
	ssize_t n;
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			close(fd);
			errno = e;
			return false;
		}
		text.append(buf, n);
	}
	close(fd);
	return true;
}

// The jobs of a sacct dump with their records; what is wrong with a job
// goes to warnings as "SOURCE:LINE: job ID: ...".
static std::vector<JobReport> read_jobs(const std::string &source, const std::string &text,
					std::vector<std::string> &warnings)
{
	std::vector<SacctJob> sacct = parse_sacct(source, text, warnings);
	std::vector<JobReport> jobs;
	for (SacctJob &j : sacct) {
		const std::string where = source + ":" + std::to_string(j.line) +
					  ": job " + j.id + ": ";
		std::vector<std::string> problems;
		jobs.push_back(report_job(std::move(j), problems));
		for (const std::string &p : problems)
			warnings.push_back(where + p);
	}
	return jobs;
}

// --names BASE,THIS: two names, neither empty.
static std::pair<std::string, std::string> window_names(const CliArgs &args)
{
	const std::string v = selection(args, "names");
	if (v.empty())
		return { "baseline", "this window" };
	const size_t comma = v.find(',');
	if (comma == std::string::npos || comma == 0 || comma + 1 == v.size() ||
	    v.find(',', comma + 1) != std::string::npos || v.size() > 64)
		throw UsageError("--names: two names, BASE,THIS (at most 64 characters)");
	return { v.substr(0, comma), v.substr(comma + 1) };
}

static bool write_file(const std::string &path, const std::string &text)
{
	std::ofstream f(path);
	f << text;
	return static_cast<bool>(f.flush());
}

static int report_main(const std::vector<std::string> &argv)
{
	CliArgs args(long_options(argv), kOptions);
	SacctSelection sel;
	sel.jobs = selection(args, "jobs");
	sel.start = selection(args, "starttime");
	sel.end = selection(args, "endtime");
	sel.user = selection(args, "user");
	sel.all_users = args.has("all-users");
	if (sel.all_users && !sel.user.empty())
		throw UsageError("--user and --all-users: give one");
	const bool selected = !sel.jobs.empty() || !sel.start.empty() ||
			      !sel.end.empty() || !sel.user.empty() || sel.all_users;
	if (args.has("sacct-file") && selected)
		throw UsageError("--sacct-file reads jobs sacct already selected; "
				 "-j, -S, -E, -u and --all-users are for running sacct");
	if (args.has("names") && !args.has("baseline"))
		throw UsageError("--names names the two windows of --baseline");
	const int gpus_option = static_cast<int>(
		args.integer("gpus", 0, 1, kMaxClusterNodes * kMaxGpusPerNode));

	std::string text, source;
	if (auto path = args.get("sacct-file")) {
		source = *path;
		if (!read_whole_file(*path, text)) {
			std::cerr << "omru-report: " << *path << ": cannot read: "
				  << std::strerror(errno) << "\n";
			return 1;
		}
	} else {
		source = "sacct";
		CommandResult r = run_command(sacct_argv(sel));
		if (!r.ok()) {
			std::cerr << "omru-report: sacct failed: " << r.failure() << "\n";
			return 1;
		}
		text = std::move(r.out);
	}

	if (auto path = args.get("sacct-out")) {
		if (!write_file(*path, text)) {
			std::cerr << "omru-report: " << *path << ": cannot write: "
				  << std::strerror(errno) << "\n";
			return 1;
		}
	}

	std::vector<std::string> warnings;
	std::vector<JobReport> jobs = read_jobs(source, text, warnings);
	std::optional<NamedWindow> base;
	const auto [base_name, this_name] = window_names(args);
	if (auto path = args.get("baseline")) {
		std::string base_text;
		if (!read_whole_file(*path, base_text)) {
			std::cerr << "omru-report: " << *path << ": cannot read: "
				  << std::strerror(errno) << "\n";
			return 1;
		}
		base.emplace();
		base->name = base_name;
		base->jobs = read_jobs(*path, base_text, warnings);
	}

	// The cluster's GPUs: --gpus, or sinfo's nodes summed.
	int cluster_gpus = gpus_option;
	ClusterNote note;
	std::map<std::string, int> node_gpus;
	if (!cluster_gpus) {
		CommandResult r = run_command(sinfo_argv());
		if (r.ok()) {
			node_gpus = sinfo_node_gpus(r.out, warnings);
			long total = 0;
			for (const auto &[node, g] : node_gpus)
				total += g;
			cluster_gpus = static_cast<int>(
				std::min<long>(total, kMaxClusterNodes * kMaxGpusPerNode));
			if (!cluster_gpus)
				note.why_unknown = "sinfo reports no GPUs; give --gpus N";
		} else {
			note.why_unknown = "cluster GPUs unknown: sinfo: " + r.failure() +
					   "; give --gpus N";
		}
	}
	for (const std::string &w : warnings)
		std::cerr << "omru-report: " << w << "\n";

	const WindowStats stats = window_stats(jobs, cluster_gpus);
	if (base)
		base->stats = window_stats(base->jobs, cluster_gpus);
	if (auto path = args.get("colocation-out")) {
		const ColocationFindings f = observe_colocation(jobs);
		std::ofstream out(*path);
		write_colocation_pairs(out, f);
		if (!out.flush()) {
			std::cerr << "omru-report: " << *path << ": cannot write the pairs\n";
			return 1;
		}
		std::cerr << "omru-report: co-location: " << f.observations.size()
			  << " job(s) beside one other model all along, " << f.alone
			  << " alone (the references), " << f.mixed
			  << " beside several or for part of their run, " << f.no_reference
			  << " without an alone run of their model, count and span to "
			     "compare with\n";
	}
	if (auto path = args.get("svg")) {
		std::ofstream f(*path);
		if (base)
			write_comparison_svg(f, *base, this_name, jobs, stats, node_gpus);
		else
			write_report_svg(f, jobs, stats, node_gpus);
		if (!f.flush()) {
			std::cerr << "omru-report: " << *path << ": cannot write the chart\n";
			return 1;
		}
	}
	if (args.has("json")) {
		write_json(std::cout, jobs, stats, base ? &*base : nullptr, this_name);
	} else {
		write_table(std::cout, jobs);
		std::cout << "\n";
		write_summary(std::cout, stats, note);
		if (base) {
			std::cout << "\n";
			write_comparison(std::cout, *base, this_name, stats, jobs);
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	std::vector<std::string> args(argv + 1, argv + argc);
	try {
		if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h")) {
			print_help();
			return 0;
		}
		if (args.size() == 1 && args[0] == "--version") {
			std::cout << "omru-report " OMRU_VERSION "\n";
			return 0;
		}
		return report_main(args);
	} catch (const UsageError &e) {
		std::cerr << "omru-report: " << e.what() << "\n" << kUsage;
		return 2;
	} catch (const std::exception &e) {
		std::cerr << "omru-report: internal error: " << e.what() << "\n";
		return 1;
	}
}
