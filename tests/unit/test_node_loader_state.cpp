// test_node_loader_state.cpp - a node's loader state in files: the entry
// and report formats (exact round trip, refusals with reasons), re-sharing
// as steps join, report and leave (share files follow the allocator), which
// entries count (per job the reported ones, else the newest), the two CPU
// modes, and crash safety: a dead slurmstepd's entry, a corrupt entry and a
// crashed write's temp file are cleaned up at the next re-share.
#include "check_cxx.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "loader/loader_entry.hpp"
#include "loader/node_loader_state.hpp"
#include "omru/omru_loader.h"

using namespace omru;

namespace {

std::string temp_dir()
{
	char tmpl[] = "/tmp/omru-loader-test.XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	return tmpl;
}

std::string slurp(const std::string &path)
{
	std::ifstream f(path);
	std::stringstream s;
	s << f.rdbuf();
	return s.str();
}

void spit(const std::string &path, const std::string &text)
{
	std::ofstream(path) << text;
}

LoaderEntry entry(const std::string &top, uint32_t job, uint32_t step, long pid,
		  int tasks = 1, int job_cpus = 0)
{
	LoaderEntry e;
	e.job = job;
	e.step = step;
	e.pid = pid;
	e.uid = 1000;
	e.tasks = tasks;
	e.job_cpus = job_cpus;
	e.share_file = top + "/share." + std::to_string(job) + "." + std::to_string(step);
	return e;
}

int share_of(const std::string &top, uint32_t job, uint32_t step)
{
	return std::atoi(slurp(top + "/share." + std::to_string(job) + "." +
			       std::to_string(step)).c_str());
}

NodeLoaderConfig node(int cpus)
{
	NodeLoaderConfig c;
	c.node_cpus = cpus;
	return c;
}

} // namespace

START_TEST(test_entries_and_reports_read_back_exactly)
{
	LoaderEntry e = entry("/run/x", 12, 4294967291u, 4242, 2, 8);
	e.seq = 17;
	e.pid_start = 987654321;
	e.report = LoaderSample{ 3, 118.5, 0.3125, 61.25 };
	auto back = parse_loader_entry(format_loader_entry(e));
	ck_assert_msg(back.ok(), "%s", back.error().c_str());
	ck_assert_string_eq(format_loader_entry(back.value()), format_loader_entry(e));
	ck_assert_string_eq(back.value().file_name(), "job12.step4294967291");
	ck_assert_double_eq(back.value().report->wait_fraction, 0.3125);

	auto r = parse_loader_report("rate=50 wait=0.4 workers=2 samples_s=100\n");
	ck_assert_msg(r.ok(), "%s", r.error().c_str());
	ck_assert_int_eq(r.value().workers, 2);
	ck_assert_string_eq(format_loader_report(r.value()),
			    "workers=2 samples_s=100 wait=0.4 rate=50");
	// The job record's `loader=` value: the same sample, exactly.
	ck_assert_string_eq(format_loader_field(r.value()), "2:100:0.4:50");
	auto f = parse_loader_field("2:100:0.4:50");
	ck_assert_msg(f.ok(), "%s", f.error().c_str());
	ck_assert_string_eq(format_loader_report(f.value()), format_loader_report(r.value()));
	auto odd = parse_loader_field("3:118.25:0.3125:61.5");
	ck_assert(odd.ok());
	// Rounded to what a sampled rate means: 4 significant digits for the
	// rates, 3 for the wait fraction (ties to even), no exponent.
	ck_assert_string_eq(format_loader_field(odd.value()), "3:118.2:0.312:61.5");
	auto raw = parse_loader_field("1:2400.678332293605:0.003083088731341316:217785.83817515094");
	ck_assert(raw.ok());
	ck_assert_string_eq(format_loader_field(raw.value()), "1:2401:0.00308:217786");
	auto back_raw = parse_loader_field(format_loader_field(raw.value()));
	ck_assert(back_raw.ok());
	ck_assert_double_eq_tol(back_raw.value().samples_s, 2400.678, 0.5);
	// Where rounding would make a valid sample one the reader refuses (a
	// wait of 0.9996 read back as 1), the field stays exact.
	auto edge = parse_loader_field("2:10:0.9996:20");
	ck_assert(edge.ok());
	ck_assert_string_eq(format_loader_field(edge.value()), "2:10:0.9996:20");
	ck_assert(parse_loader_field(format_loader_field(edge.value())).ok());
	char field[64];
	const char rep[] = "workers=2 samples_s=100 wait=0.4 rate=50\n";
	ck_assert_int_eq(omru_loader_report_field(rep, sizeof(rep) - 1, field, sizeof(field)), OMRU_OK);
	ck_assert_str_eq(field, "2:100:0.4:50");
	ck_assert_int_eq(omru_loader_report_field("workers=2", 9, field, sizeof(field)), OMRU_EINVAL);
	ck_assert_int_eq(omru_loader_report_field(rep, sizeof(rep) - 1, field, 5), OMRU_EINVAL);
}
END_TEST

START_TEST(test_bad_entries_and_reports_are_refused)
{
	std::string good = format_loader_entry(entry("/run/x", 1, 0, 5));
	ck_assert(parse_loader_entry(good).ok());
	const char *bad[] = {
		"",
		"omru-loader-entry 2\n",
		"omru-loader-entry 1\njob 1\n",
	};
	for (const char *t : bad)
		ck_assert(!parse_loader_entry(t).ok());
	auto twice = parse_loader_entry(good + "tasks 3\n");
	ck_assert(!twice.ok());
	ck_assert(twice.error().find("twice") != std::string::npos);
	std::string rel = good;
	rel.replace(rel.find("share_file /run"), 15, "share_file run");
	ck_assert(!parse_loader_entry(rel).ok());
	ck_assert(!parse_loader_entry(good + "colour blue\n").ok());
	ck_assert(!parse_loader_entry(good.substr(0, good.size() - 1)).ok());
	ck_assert(!parse_loader_entry(good + std::string(5000, '#')).ok());

	const char *reports[] = {
		"workers=2 samples_s=100 wait=0.4",          // a key missing
		"workers=2 samples_s=100 wait=1.4 rate=50",  // wait >= 1
		"workers=0 samples_s=100 wait=0.4 rate=50",  // no workers
		"workers=2 samples_s=1e999 wait=0.4 rate=50", // not finite
		"workers=2 samples_s=100 wait=0.4 rate=50 x=1",
		"workers=2 workers=2 samples_s=100 wait=0.4 rate=50",
		"workers=2 samples_s=100\nwait=0.4 rate=50",
		"workers=2,5 samples_s=100 wait=0.4 rate=50",
		// Out of doc/report-bounds.md's ranges: 1e-309 made the peak
		// rate 0 and every share's score NaN.
		"workers=2 samples_s=1e-309 wait=0.4 rate=50",
		"workers=2 samples_s=100 wait=0.4 rate=1e-309",
		"workers=2 samples_s=2e9 wait=0 rate=2e9",
		"workers=5000 samples_s=100 wait=0.4 rate=50",
	};
	for (const char *t : reports)
		ck_assert_msg(!parse_loader_report(t).ok(), "accepted '%s'", t);
	auto why = parse_loader_report("workers=2 samples_s=100 wait=1.4 rate=50");
	ck_assert(why.error().find("wait") != std::string::npos);

	const char *fields[] = {
		"", "2:100:0.4", "2:100:0.4:50:1", "2:100:1.4:50", "0:100:0.4:50",
		"2:nan:0.4:50", "2:100:0.4:", ":100:0.4:50", "2:100:0.4:50 ", "x:100:0.4:50",
		"2:1e-309:0.4:50",
	};
	for (const char *t : fields)
		ck_assert_msg(!parse_loader_field(t).ok(), "accepted '%s'", t);
}
END_TEST

START_TEST(test_steps_joining_reporting_and_leaving_reshare_the_node)
{
	std::string top = temp_dir();
	NodeLoaderState st(top + "/loader", [](long, uint64_t) { return true; });
	// 8 CPUs, two one-task jobs: 6 loader CPUs; unmeasured, each is
	// assumed to saturate at 2, and the 2 CPUs left go one each.
	NodeShares s = st.join(entry(top, 10, 0, 100), node(8));
	ck_assert_int_eq(s.pool, 7);
	ck_assert_int_eq(share_of(top, 10, 0), 7);
	s = st.join(entry(top, 11, 0, 101), node(8));
	ck_assert_int_eq(s.pool, 6);
	ck_assert_int_eq(share_of(top, 10, 0), 3);
	ck_assert_int_eq(share_of(top, 11, 0), 3);
	ck_assert(s.problems.empty());
	// Job 10 is decode-bound (needs 4 workers), job 11 compute-bound
	// (1 is plenty): 5 + 1.
	st.report(10, 0, { 3, 300, 0.25, 100 }, node(8));
	s = st.report(11, 0, { 3, 200, 0, 400 }, node(8));
	ck_assert_int_eq(share_of(top, 10, 0), 5);
	ck_assert_int_eq(share_of(top, 11, 0), 1);
	ck_assert_msg(s.summary() == "job10.0:5 job11.0:1 (pool 6)", "%s",
		      s.summary().c_str());
	ck_assert(s.changed);
	// Noise (a few %) changes nothing on disk.
	std::string before = slurp(top + "/loader/job10.step0");
	s = st.report(10, 0, { 5, 395, 0.01, 98 }, node(8));
	ck_assert_string_eq(slurp(top + "/loader/job10.step0"), before);
	ck_assert(!s.changed);
	// Job 11 leaves: job 10 gets the node.
	s = st.leave(11, 0, node(8));
	ck_assert_int_eq(share_of(top, 10, 0), 7);
	ck_assert_uint_eq(st.entries().size(), 1);
}
END_TEST

START_TEST(test_per_job_the_reported_or_newest_step_counts)
{
	std::string top = temp_dir();
	NodeLoaderState st(top + "/loader", [](long, uint64_t) { return true; });
	// The batch step (its shell) then an srun step of the same job.
	st.join(entry(top, 20, 4294967291u, 200), node(6));
	NodeShares s = st.join(entry(top, 20, 0, 201, 2), node(6));
	ck_assert_int_eq(share_of(top, 20, 4294967291u), 1);
	ck_assert_int_eq(share_of(top, 20, 0), 2); // (6 - 2 tasks) / 2 tasks
	int active = 0;
	for (const auto &x : s.shares)
		active += x.active;
	ck_assert_int_eq(active, 1);
}
END_TEST

START_TEST(test_job_mode_keeps_loaders_within_each_jobs_cpus)
{
	std::string top = temp_dir();
	NodeLoaderState st(top + "/loader", [](long, uint64_t) { return true; });
	NodeLoaderConfig job_mode;
	job_mode.mode = OMRU_LOADER_SHARE_JOB;
	job_mode.node_cpus = 64; // not used in this mode
	st.join(entry(top, 30, 0, 300, 1, 4), job_mode);
	NodeShares s = st.join(entry(top, 31, 0, 301, 2, 10), job_mode);
	// Job 30: 4 CPUs, 1 task: 3 workers.  Job 31: 10 CPUs, 2 tasks: 4
	// each.  Nothing moves between them even when one needs more.
	ck_assert_int_eq(s.pool, 3 + 8);
	ck_assert_int_eq(share_of(top, 30, 0), 3);
	ck_assert_int_eq(share_of(top, 31, 0), 4);
	st.report(31, 0, { 1, 50, 0, 400 }, job_mode);
	ck_assert_int_eq(share_of(top, 30, 0), 3);
	ck_assert_int_eq(share_of(top, 31, 0), 4); // headroom within its own
}
END_TEST

START_TEST(test_dead_corrupt_and_half_written_entries_are_cleaned_up)
{
	std::string top = temp_dir();
	std::set<long> dead;
	NodeLoaderState st(top + "/loader",
			   [&](long pid, uint64_t) { return !dead.count(pid); });
	st.join(entry(top, 40, 0, 400), node(5));
	st.join(entry(top, 41, 0, 401), node(5));
	ck_assert_int_eq(share_of(top, 40, 0), 2);
	// Job 41's slurmstepd was killed: its entry goes at the next change.
	dead.insert(401);
	spit(top + "/loader/job99.step0", "omru-loader-entry 1\ngarbage\n");
	spit(top + "/loader/job40.step0.tmp", "half");
	spit(top + "/loader/job7.step0", format_loader_entry(entry(top, 8, 0, 402)));
	NodeShares s = st.reshare(node(5));
	ck_assert_uint_eq(s.problems.size(), 3);
	std::string all;
	for (const std::string &p : s.problems)
		all += p + "\n";
	ck_assert_msg(all.find("pid 401") != std::string::npos, "%s", all.c_str());
	ck_assert_msg(all.find("job99.step0") != std::string::npos, "%s", all.c_str());
	ck_assert_msg(all.find("does not match") != std::string::npos, "%s", all.c_str());
	ck_assert_int_eq(share_of(top, 40, 0), 4);
	struct stat sb;
	ck_assert_int_ne(stat((top + "/loader/job40.step0.tmp").c_str(), &sb), 0);
	ck_assert_int_ne(stat((top + "/loader/job99.step0").c_str(), &sb), 0);
	ck_assert_uint_eq(st.entries().size(), 1);
}
END_TEST

START_TEST(test_processes_are_known_by_pid_and_start_time)
{
	uint64_t me = process_start_ticks(getpid());
	ck_assert_uint_gt(me, 0);
	ck_assert(process_alive(getpid(), me));
	ck_assert(!process_alive(getpid(), me + 1)); // a recycled pid
	ck_assert(!process_alive(0, 0));
	ck_assert_uint_eq(process_start_ticks(1 << 30), 0);
}
END_TEST

START_TEST(test_a_state_directory_others_may_write_is_refused)
{
	std::string top = temp_dir();
	ck_assert_int_eq(mkdir((top + "/open").c_str(), 0777), 0);
	chmod((top + "/open").c_str(), 0777);
	bool threw = false;
	try {
		NodeLoaderState st(top + "/open");
	} catch (const std::runtime_error &e) {
		threw = std::string(e.what()).find("only it may write") != std::string::npos;
	}
	ck_assert(threw);
	NodeLoaderState made(top + "/made");
	struct stat sb;
	ck_assert_int_eq(stat((top + "/made").c_str(), &sb), 0);
	ck_assert_int_eq(sb.st_mode & 0777, 0700);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("node_loader_state");
	TCase *fmt = tcase_create("formats");
	tcase_add_test(fmt, test_entries_and_reports_read_back_exactly);
	tcase_add_test(fmt, test_bad_entries_and_reports_are_refused);
	suite_add_tcase(s, fmt);
	TCase *state = tcase_create("state");
	tcase_add_test(state, test_steps_joining_reporting_and_leaving_reshare_the_node);
	tcase_add_test(state, test_per_job_the_reported_or_newest_step_counts);
	tcase_add_test(state, test_job_mode_keeps_loaders_within_each_jobs_cpus);
	tcase_add_test(state, test_dead_corrupt_and_half_written_entries_are_cleaned_up);
	tcase_add_test(state, test_processes_are_known_by_pid_and_start_time);
	tcase_add_test(state, test_a_state_directory_others_may_write_is_refused);
	suite_add_tcase(s, state);
	return run_suite(s);
}
