// test_omru_conf.cpp - omru.conf is parsed strictly: every key, comments,
// case rules, and an error that names FILE:LINE, key, value and what is
// allowed for everything else.
#include "check_cxx.hpp"

#include <cstdio>
#include <fstream>
#include <string>
#include <unistd.h>

#include "controller/omru_conf.hpp"

using namespace omru;
using namespace omru::controller;

namespace {

// The error parse_omru_conf gives for `text` read as "omru.conf", or "(ok)".
std::string error_of(const std::string &text)
{
	auto r = parse_omru_conf(text, "omru.conf");
	return r.ok() ? "(ok)" : r.error();
}

OmruConf parsed(const std::string &text)
{
	auto r = parse_omru_conf(text, "omru.conf");
	ck_assert_msg(r.ok(), "'%s' refused: %s", text.c_str(), r.error().c_str());
	return r.value();
}

// A file under /tmp that is removed at the end of the test.
struct TempFile {
	std::string path;
	explicit TempFile(const std::string &content)
	{
		char name[] = "/tmp/omru-conf-XXXXXX";
		int fd = mkstemp(name);
		ck_assert(fd >= 0);
		close(fd);
		path = name;
		std::ofstream(path, std::ios::binary) << content;
	}
	~TempFile() { std::remove(path.c_str()); }
};

} // namespace

// ---- what is read --------------------------------------------------------

START_TEST(test_empty_text_gives_the_defaults)
{
	OmruConf c = parsed("");
	ck_assert(c.objective == planner::Objective::MeanJct);
	ck_assert_double_eq(c.fairness_factor, 0);
	ck_assert_int_eq(c.profile_files.size(), 0);
	ck_assert_string_eq(c.state_dir, "");
	ck_assert_double_eq(c.plan_interval_min_s, 1);
	ck_assert_double_eq(c.plan_interval_max_s, 30);
	ck_assert_double_eq(c.plan_time_max_ms, 200);
	ck_assert_int_eq(c.cpus_per_gpu, 0);
	ck_assert(!c.loader_cpus);
	ck_assert(c.plan_rigid_jobs);
	ck_assert_int_eq(c.max_pending_planned, 5000);
	ck_assert_int_eq(c.max_job_gpus, 0);
	ck_assert(!c.log_plans);
}
END_TEST

START_TEST(test_every_key_is_read)
{
	OmruConf c = parsed("Objective=jct\nFairnessFactor=2.5\n"
			    "ProfileFile=/a.csv\n"
			    "StateDir=/var/omru\nPlanIntervalMin=0.5\n"
			    "PlanIntervalMax=10\nPlanTimeMax=50\nCpusPerGpu=4\n"
			    "MaxJobGpus=64\nLoaderCpus=yes\n"
			    "PlanRigidJobs=no\nMaxPendingPlanned=100\nLogPlans=yes\n");
	ck_assert(c.objective == planner::Objective::MeanJct);
	ck_assert_double_eq(c.fairness_factor, 2.5);
	ck_assert_int_eq(c.profile_files.size(), 1);
	ck_assert_string_eq(c.profile_files[0], "/a.csv");
	ck_assert_string_eq(c.state_dir, "/var/omru");
	ck_assert_double_eq(c.plan_interval_min_s, 0.5);
	ck_assert_double_eq(c.plan_interval_max_s, 10);
	ck_assert_double_eq(c.plan_time_max_ms, 50);
	ck_assert_int_eq(c.cpus_per_gpu, 4);
	ck_assert_int_eq(c.max_job_gpus, 64);
	ck_assert(c.loader_cpus);
	ck_assert(!c.plan_rigid_jobs);
	ck_assert_int_eq(c.max_pending_planned, 100);
	ck_assert(c.log_plans);
}
END_TEST

START_TEST(test_profile_files_repeat_in_their_order)
{
	OmruConf c = parsed("ProfileFile=/etc/slurm/b.csv\nLogPlans=yes\n"
			    "ProfileFile=/etc/slurm/a.csv\nProfileFile=/srv/c.csv\n");
	ck_assert_int_eq(c.profile_files.size(), 3);
	ck_assert_string_eq(c.profile_files[0], "/etc/slurm/b.csv");
	ck_assert_string_eq(c.profile_files[1], "/etc/slurm/a.csv");
	ck_assert_string_eq(c.profile_files[2], "/srv/c.csv");
}
END_TEST

START_TEST(test_comments_blank_lines_and_whitespace_are_ignored)
{
	OmruConf c = parsed("# a comment\n\n   \t\n  # indented comment\n"
			    "\t Objective = jct   # trailing comment\r\n"
			    "CpusPerGpu=2#no space before the comment\n");
	ck_assert(c.objective == planner::Objective::MeanJct);
	ck_assert_int_eq(c.cpus_per_gpu, 2);
}
END_TEST

START_TEST(test_last_line_needs_no_newline)
{
	ck_assert_int_eq(parsed("LogPlans=yes\nCpusPerGpu=8").cpus_per_gpu, 8);
}
END_TEST

START_TEST(test_keys_are_case_insensitive)
{
	OmruConf c = parsed("objective=jct\nPLANTIMEMAX=75\nprofilefile=/p.csv\n"
			    "maxPendingPlanned=7\n");
	ck_assert(c.objective == planner::Objective::MeanJct);
	ck_assert_double_eq(c.plan_time_max_ms, 75);
	ck_assert_string_eq(c.profile_files[0], "/p.csv");
	ck_assert_int_eq(c.max_pending_planned, 7);
}
END_TEST

START_TEST(test_objective_and_boolean_words_are_case_insensitive)
{
	ck_assert(parsed("Objective=MAKESPAN").objective == planner::Objective::Makespan);
	ck_assert(parsed("Objective=Jct").objective == planner::Objective::MeanJct);
	ck_assert(parsed("LogPlans=YES").log_plans);
	ck_assert(parsed("LogPlans=True").log_plans);
	ck_assert(!parsed("PlanRigidJobs=NO").plan_rigid_jobs);
	ck_assert(!parsed("PlanRigidJobs=FALSE").plan_rigid_jobs);
}
END_TEST

START_TEST(test_booleans_accept_yes_true_1_and_no_false_0)
{
	ck_assert(parsed("LogPlans=yes").log_plans);
	ck_assert(parsed("LogPlans=true").log_plans);
	ck_assert(parsed("LogPlans=1").log_plans);
	ck_assert(!parsed("PlanRigidJobs=no").plan_rigid_jobs);
	ck_assert(!parsed("PlanRigidJobs=false").plan_rigid_jobs);
	ck_assert(!parsed("PlanRigidJobs=0").plan_rigid_jobs);
}
END_TEST

START_TEST(test_loader_cpus_is_a_boolean_off_by_default)
{
	ck_assert(parsed("LoaderCpus=yes").loader_cpus);
	ck_assert(parsed("loadercpus=TRUE").loader_cpus);
	ck_assert(parsed("LoaderCpus=1").loader_cpus);
	ck_assert(!parsed("LoaderCpus=no").loader_cpus);
	ck_assert(!parsed("LoaderCpus=0").loader_cpus);
	ck_assert(!parsed("CpusPerGpu=4").loader_cpus);
}
END_TEST

START_TEST(test_paths_keep_their_case)
{
	OmruConf c = parsed("StateDir=/Var/OMRU\nProfileFile=/Etc/Profiles.CSV");
	ck_assert_string_eq(c.state_dir, "/Var/OMRU");
	ck_assert_string_eq(c.profile_files[0], "/Etc/Profiles.CSV");
}
END_TEST

START_TEST(test_range_bounds_are_accepted)
{
	OmruConf lo = parsed("FairnessFactor=1\nPlanIntervalMin=0\nPlanIntervalMax=1\n"
			     "PlanTimeMax=1\nCpusPerGpu=0\nMaxPendingPlanned=1\n");
	ck_assert_double_eq(lo.fairness_factor, 1);
	ck_assert_double_eq(lo.plan_interval_min_s, 0);
	ck_assert_double_eq(lo.plan_interval_max_s, 1);
	ck_assert_double_eq(lo.plan_time_max_ms, 1);
	ck_assert_int_eq(lo.cpus_per_gpu, 0);
	ck_assert_int_eq(lo.max_pending_planned, 1);
	OmruConf hi = parsed("FairnessFactor=1000\nPlanIntervalMin=3600\n"
			     "PlanIntervalMax=86400\nPlanTimeMax=60000\n"
			     "CpusPerGpu=1024\nMaxPendingPlanned=1000000\n");
	ck_assert_double_eq(hi.fairness_factor, 1000);
	ck_assert_double_eq(hi.plan_interval_min_s, 3600);
	ck_assert_double_eq(hi.plan_interval_max_s, 86400);
	ck_assert_double_eq(hi.plan_time_max_ms, 60000);
	ck_assert_int_eq(hi.cpus_per_gpu, 1024);
	ck_assert_int_eq(hi.max_pending_planned, 1000000);
}
END_TEST

START_TEST(test_interval_max_equal_to_min_is_accepted)
{
	OmruConf c = parsed("PlanIntervalMin=5\nPlanIntervalMax=5\n");
	ck_assert_double_eq(c.plan_interval_min_s, 5);
	ck_assert_double_eq(c.plan_interval_max_s, 5);
}
END_TEST

START_TEST(test_line_of_exactly_4096_bytes_is_read)
{
	std::string path = "/" + std::string(4096 - 10, 'd'); // "StateDir=" is 9
	ck_assert_int_eq(("StateDir=" + path).size(), 4096);
	ck_assert_string_eq(parsed("StateDir=" + path + "\n").state_dir, path);
}
END_TEST

// ---- what is refused -----------------------------------------------------

START_TEST(test_unknown_key_lists_the_known_ones)
{
	ck_assert_string_eq(error_of("\nObjectiv=jct\n"),
			    "omru.conf:2: unknown key 'Objectiv' (known: Objective, "
			    "FairnessFactor, ReferenceBound, ReferenceSlack, ReferenceSlackSeconds, "
			    "ArrivalGuard, "
			    "ProfileFile, StateDir, PlanIntervalMin, "
			    "PlanIntervalMax, PlanTimeMax, CorrectionMargin, SpreadCost, "
			    "CpusPerGpu, MaxJobGpus, LoaderCpus, "
			    "PlanRigidJobs, "
			    "MaxPendingPlanned, Elastic, ElasticGrace, RestartOverhead, StartOverhead, "
			    "ResizeMargin, PhaseAware, PhaseThreshold, LayerProfileDir, "
			    "ColocationFile, ColocationSignals, "
			    "PipelineBatch, PipelineGpuMem, LogPlans)");
}
END_TEST

START_TEST(test_elastic_keys_are_checked)
{
	ck_assert_string_eq(error_of("Elastic=maybe"),
			    "omru.conf:1: Elastic=maybe: must be yes or no");
	ck_assert(error_of("ElasticGrace=1").find("ElasticGrace=1:") != std::string::npos);
	ck_assert(error_of("RestartOverhead=-1").find("RestartOverhead=-1:") != std::string::npos);
	ck_assert(error_of("StartOverhead=-1").find("StartOverhead=-1:") != std::string::npos);
	ck_assert(error_of("StartOverhead=3601").find("StartOverhead=3601:") != std::string::npos);
	ck_assert(error_of("StartOverhead=soon").find("auto or seconds") != std::string::npos);
	ck_assert(error_of("ResizeMargin=11").find("ResizeMargin=11:") != std::string::npos);
	ck_assert(error_of("PhaseThreshold=1.5").find("PhaseThreshold=1.5:") != std::string::npos);
	ck_assert(error_of("PhaseAware=maybe").find("must be yes or no") != std::string::npos);
	ck_assert_string_eq(error_of("LayerProfileDir=layers"),
			    "omru.conf:1: LayerProfileDir=layers: must be an absolute path");
	ck_assert_string_eq(error_of("MaxJobGpus=1025"),
			    "omru.conf:1: MaxJobGpus=1025: must be a whole number from 0 to 1024");
	ck_assert_string_eq(error_of("PipelineBatch=0"),
			    "omru.conf:1: PipelineBatch=0: must be a whole number from 1 to 1048576");
	ck_assert_string_eq(error_of("PipelineGpuMem=-1"),
			    "omru.conf:1: PipelineGpuMem=-1: must be a number of GiB from 0 to 1048576");
}
END_TEST

START_TEST(test_spread_cost_is_a_factor_from_1_to_10)
{
	ck_assert_double_eq(OmruConf{}.spread_cost, 1.25);
	ck_assert_double_eq(parsed("SpreadCost=1").spread_cost, 1);
	ck_assert_double_eq(parsed("spreadcost=10").spread_cost, 10);
	ck_assert_string_eq(error_of("SpreadCost=0.9"),
			    "omru.conf:1: SpreadCost=0.9: must be a number of a factor "
			    "from 1 to 10");
	ck_assert(error_of("SpreadCost=10.5").find("SpreadCost=10.5:") != std::string::npos);
}
END_TEST

START_TEST(test_include_is_an_unknown_key)
{
	ck_assert_string_eq(error_of("Include=/etc/slurm/omru-more.conf"),
			    "omru.conf:1: unknown key 'Include' (known: Objective, "
			    "FairnessFactor, ReferenceBound, ReferenceSlack, ReferenceSlackSeconds, "
			    "ArrivalGuard, "
			    "ProfileFile, StateDir, PlanIntervalMin, "
			    "PlanIntervalMax, PlanTimeMax, CorrectionMargin, SpreadCost, "
			    "CpusPerGpu, MaxJobGpus, LoaderCpus, "
			    "PlanRigidJobs, "
			    "MaxPendingPlanned, Elastic, ElasticGrace, RestartOverhead, StartOverhead, "
			    "ResizeMargin, PhaseAware, PhaseThreshold, LayerProfileDir, "
			    "ColocationFile, ColocationSignals, "
			    "PipelineBatch, PipelineGpuMem, LogPlans)");
}
END_TEST

START_TEST(test_line_without_equals_is_an_error)
{
	ck_assert_string_eq(error_of("Objective jct"),
			    "omru.conf:1: 'Objective jct': expected Key=Value");
}
END_TEST

START_TEST(test_line_without_key_is_an_error)
{
	ck_assert_string_eq(error_of("LogPlans=no\n  =jct"),
			    "omru.conf:2: '=jct': expected Key=Value");
}
END_TEST

START_TEST(test_two_settings_on_one_line_are_an_error)
{
	ck_assert_string_eq(error_of("Objective=jct FairnessFactor=2"),
			    "omru.conf:1: Objective=jct FairnessFactor=2: must not "
			    "contain whitespace (one Key=Value per line)");
}
END_TEST

START_TEST(test_control_character_is_an_error)
{
	ck_assert_string_eq(error_of(std::string("LogPlans=y\0s", 12)),
			    "omru.conf:1: control character 0x00 (only text is allowed)");
	ck_assert_string_eq(error_of("StateDir=/a\rb"),
			    "omru.conf:1: control character 0x0d (only text is allowed)");
}
END_TEST

START_TEST(test_line_longer_than_4096_bytes_is_an_error)
{
	ck_assert_string_eq(error_of("# ok\nStateDir=/" + std::string(4096 - 10 + 1, 'd')),
			    "omru.conf:2: line longer than 4096 bytes");
}
END_TEST

START_TEST(test_empty_value_is_an_error)
{
	ck_assert_string_eq(error_of("Objective="),
			    "omru.conf:1: Objective=: must be makespan or jct");
	ck_assert_string_eq(error_of("PlanTimeMax=  # none"),
			    "omru.conf:1: PlanTimeMax=: must be a number of milliseconds "
			    "from 1 to 60000");
	ck_assert_string_eq(error_of("StateDir="),
			    "omru.conf:1: StateDir=: must be an absolute path");
}
END_TEST

START_TEST(test_bad_objective_is_an_error)
{
	ck_assert_string_eq(error_of("Objective=fast"),
			    "omru.conf:1: Objective=fast: must be makespan or jct");
}
END_TEST

START_TEST(test_fairness_factor_between_0_and_1_is_an_error)
{
	ck_assert_string_eq(error_of("Objective=jct\nLogPlans=no\nFairnessFactor=0.5"),
			    "omru.conf:3: FairnessFactor=0.5: must be 0 (off) or a "
			    "number from 1 to 1000");
}
END_TEST

START_TEST(test_fairness_factor_above_1000_is_an_error)
{
	ck_assert_string_eq(error_of("FairnessFactor=1000.5"),
			    "omru.conf:1: FairnessFactor=1000.5: must be 0 (off) or a "
			    "number from 1 to 1000");
}
END_TEST

START_TEST(test_reference_bound_keys_are_checked)
{
	ck_assert_string_eq(error_of("ReferenceBound=maybe"),
			    "omru.conf:1: ReferenceBound=maybe: must be yes or no");
	ck_assert(error_of("ReferenceSlack=-0.1").find("ReferenceSlack=-0.1") !=
		  std::string::npos);
	ck_assert(error_of("ReferenceSlackSeconds=90000").find("ReferenceSlackSeconds=90000") !=
		  std::string::npos);
	ck_assert_string_eq(error_of("ArrivalGuard=sometimes"),
			    "omru.conf:1: ArrivalGuard=sometimes: must be yes or no");
	ck_assert(OmruConf{}.arrival_guard);
	OmruConf c = parsed("ReferenceBound=no\nReferenceSlack=0\nReferenceSlackSeconds=0\n"
			    "ArrivalGuard=no\n");
	ck_assert(!c.arrival_guard);
	ck_assert(!c.reference_bound);
	ck_assert_double_eq(c.reference_slack, 0);
	ck_assert_double_eq(c.reference_slack_s, 0);
}
END_TEST

START_TEST(test_numbers_must_be_plain_decimals)
{
	const char *bad[] = { "1e3", "0x10", "inf", "nan", "10s", "-5", "+5",
			      ".5", "5.", "1,5", "1.2.3", "0.5.", "١٠" };
	for (const char *v : bad)
		ck_assert_string_eq(error_of(std::string("PlanTimeMax=") + v),
				    std::string("omru.conf:1: PlanTimeMax=") + v +
					    ": must be a number of milliseconds from 1 to 60000");
}
END_TEST

START_TEST(test_plan_interval_min_out_of_range_is_an_error)
{
	ck_assert_string_eq(error_of("PlanIntervalMin=3600.5"),
			    "omru.conf:1: PlanIntervalMin=3600.5: must be a number of "
			    "seconds from 0 to 3600");
}
END_TEST

START_TEST(test_plan_interval_max_out_of_range_is_an_error)
{
	ck_assert_string_eq(error_of("PlanIntervalMax=0.5"),
			    "omru.conf:1: PlanIntervalMax=0.5: must be a number of "
			    "seconds from 1 to 86400");
	ck_assert_string_eq(error_of("PlanIntervalMax=86401"),
			    "omru.conf:1: PlanIntervalMax=86401: must be a number of "
			    "seconds from 1 to 86400");
}
END_TEST

START_TEST(test_plan_time_max_out_of_range_is_an_error)
{
	ck_assert_string_eq(error_of("PlanTimeMax=0"),
			    "omru.conf:1: PlanTimeMax=0: must be a number of "
			    "milliseconds from 1 to 60000");
	ck_assert_string_eq(error_of("PlanTimeMax=60000.001"),
			    "omru.conf:1: PlanTimeMax=60000.001: must be a number of "
			    "milliseconds from 1 to 60000");
}
END_TEST

START_TEST(test_cpus_per_gpu_must_be_a_whole_number_up_to_1024)
{
	const char *bad[] = { "2.5", "4.0", "1025", "-1", "four" };
	for (const char *v : bad)
		ck_assert_string_eq(error_of(std::string("CpusPerGpu=") + v),
				    std::string("omru.conf:1: CpusPerGpu=") + v +
					    ": must be a whole number from 0 to 1024");
}
END_TEST

START_TEST(test_max_pending_planned_must_be_a_whole_number_from_1)
{
	const char *bad[] = { "0", "1000001", "99999999999999999999", "1e3" };
	for (const char *v : bad)
		ck_assert_string_eq(error_of(std::string("MaxPendingPlanned=") + v),
				    std::string("omru.conf:1: MaxPendingPlanned=") + v +
					    ": must be a whole number from 1 to 1000000");
}
END_TEST

START_TEST(test_bad_boolean_is_an_error)
{
	ck_assert_string_eq(error_of("PlanRigidJobs=maybe"),
			    "omru.conf:1: PlanRigidJobs=maybe: must be yes or no");
	ck_assert_string_eq(error_of("LogPlans=y"),
			    "omru.conf:1: LogPlans=y: must be yes or no");
	ck_assert_string_eq(error_of("LoaderCpus=job"),
			    "omru.conf:1: LoaderCpus=job: must be yes or no");
	ck_assert_string_eq(error_of("LoaderCpus=yes\nLoaderCpus=no"),
			    "omru.conf:2: LoaderCpus is given twice (first on line 1)");
}
END_TEST

START_TEST(test_relative_paths_are_an_error)
{
	ck_assert_string_eq(error_of("ProfileFile=rel/path.csv"),
			    "omru.conf:1: ProfileFile=rel/path.csv: must be an absolute path");
	ck_assert_string_eq(error_of("StateDir=~/omru"),
			    "omru.conf:1: StateDir=~/omru: must be an absolute path");
}
END_TEST

START_TEST(test_path_with_whitespace_is_an_error)
{
	ck_assert_string_eq(error_of("ProfileFile=/etc/slurm/my profiles.csv"),
			    "omru.conf:1: ProfileFile=/etc/slurm/my profiles.csv: must "
			    "not contain whitespace (one Key=Value per line)");
}
END_TEST

START_TEST(test_key_given_twice_is_an_error)
{
	ck_assert_string_eq(error_of("Objective=jct\n# again\nobjective=makespan"),
			    "omru.conf:3: Objective is given twice (first on line 1)");
}
END_TEST

START_TEST(test_profile_file_listed_twice_is_an_error)
{
	ck_assert_string_eq(error_of("ProfileFile=/a.csv\nProfileFile=/b.csv\n"
				     "ProfileFile=/a.csv"),
			    "omru.conf:3: ProfileFile=/a.csv: is already listed on line 1");
}
END_TEST

START_TEST(test_interval_max_below_min_is_an_error)
{
	ck_assert_string_eq(error_of("PlanIntervalMin=20\nPlanIntervalMax=10"),
			    "omru.conf:2: PlanIntervalMax=10: must not be below "
			    "PlanIntervalMin=20");
	ck_assert_string_eq(error_of("PlanIntervalMax=10\nPlanIntervalMin=20"),
			    "omru.conf:2: PlanIntervalMin=20: must not be above "
			    "PlanIntervalMax=10");
}
END_TEST

START_TEST(test_interval_min_above_the_default_max_is_an_error)
{
	ck_assert_string_eq(error_of("LogPlans=no\nPlanIntervalMin=60"),
			    "omru.conf:2: PlanIntervalMin=60: must not be above "
			    "PlanIntervalMax=30 (the default)");
}
END_TEST

START_TEST(test_first_error_is_the_one_reported)
{
	ck_assert_string_eq(error_of("Objective=fast\nFairnessFactor=0.5\n"),
			    "omru.conf:1: Objective=fast: must be makespan or jct");
}
END_TEST

// ---- files ---------------------------------------------------------------

START_TEST(test_missing_file_gives_the_defaults_when_allowed)
{
	auto r = load_omru_conf("/nonexistent/omru.conf", true);
	ck_assert(r.ok());
	ck_assert_string_eq(format_omru_conf(r.value()), format_omru_conf(OmruConf{}));
}
END_TEST

START_TEST(test_missing_file_is_an_error_when_not_allowed)
{
	auto r = load_omru_conf("/nonexistent/omru.conf", false);
	ck_assert(!r.ok());
	ck_assert_string_eq(r.error(),
			    "/nonexistent/omru.conf: cannot read: No such file or directory");
}
END_TEST

START_TEST(test_file_is_read_and_errors_name_its_path)
{
	TempFile good("Objective=jct\nPlanTimeMax=80\n");
	auto r = load_omru_conf(good.path, false);
	ck_assert(r.ok());
	ck_assert(r.value().objective == planner::Objective::MeanJct);
	ck_assert_double_eq(r.value().plan_time_max_ms, 80);
	TempFile bad("LogPlans=yes\nPlanTimeMax=0\n");
	ck_assert_string_eq(load_omru_conf(bad.path, true).error(),
			    bad.path + ":2: PlanTimeMax=0: must be a number of "
				       "milliseconds from 1 to 60000");
}
END_TEST

START_TEST(test_file_larger_than_1_mib_is_an_error)
{
	std::string line = std::string(4095, '#') + "\n";
	std::string text;
	for (int i = 0; i < 256; i++)
		text += line;
	ck_assert_int_eq(text.size(), 1048576);
	TempFile exact(text);
	ck_assert(load_omru_conf(exact.path, false).ok());
	TempFile over(text + "\n");
	ck_assert_string_eq(load_omru_conf(over.path, false).error(),
			    over.path + ": larger than 1 MiB");
}
END_TEST

START_TEST(test_directory_is_an_error_even_when_missing_is_ok)
{
	ck_assert_string_eq(load_omru_conf("/tmp", true).error(),
			    "/tmp: cannot read: not a regular file");
}
END_TEST

// ---- format --------------------------------------------------------------

START_TEST(test_format_writes_every_key_at_its_default)
{
	ck_assert_string_eq(format_omru_conf(OmruConf{}),
			    "Objective=jct FairnessFactor=0 ReferenceBound=yes "
			    "ReferenceSlack=0.05 ReferenceSlackSeconds=1 ArrivalGuard=yes "
			    "ProfileFile=(none) "
			    "StateDir=(default) PlanIntervalMin=1 PlanIntervalMax=30 "
			    "PlanTimeMax=200 CpusPerGpu=0 MaxJobGpus=0 LoaderCpus=no PlanRigidJobs=yes "
			    "MaxPendingPlanned=5000 LogPlans=no CorrectionMargin=0.25 "
			    "SpreadCost=1.25 Elastic=yes ElasticGrace=300 RestartOverhead=60 StartOverhead=auto "
			    "ResizeMargin=0.1 "
			    "PhaseAware=yes PhaseThreshold=0.5 LayerProfileDir=(none) "
			    "PipelineBatch=32 PipelineGpuMem=0 ColocationFile=(none) "
			    "ColocationSignals=(none)");
}
END_TEST

START_TEST(test_format_writes_the_values_read)
{
	OmruConf c = parsed("Objective=jct\nFairnessFactor=2.25\n"
			    "ReferenceBound=no\nReferenceSlack=0.2\nReferenceSlackSeconds=30\n"
			    "ArrivalGuard=no\nProfileFile=/a.csv\nProfileFile=/b.csv\n"
			    "StateDir=/var/omru\nPlanIntervalMin=0.1\n"
			    "PlanIntervalMax=86400\nPlanTimeMax=12345.678\nCpusPerGpu=4\n"
			    "MaxJobGpus=16\nLoaderCpus=yes\nPlanRigidJobs=no\nMaxPendingPlanned=1000000\nLogPlans=yes\n"
			    "CorrectionMargin=0.5\nSpreadCost=1.5\nElastic=no\nElasticGrace=45\n"
			    "RestartOverhead=0\nStartOverhead=12.5\nResizeMargin=0.25\nPhaseAware=no\n"
			    "PhaseThreshold=0.25\nLayerProfileDir=/etc/slurm/layers\n"
			    "PipelineBatch=64\nPipelineGpuMem=15.5\n"
			    "ColocationFile=/etc/slurm/pairs.csv\n"
			    "ColocationSignals=/etc/slurm/signals.csv\n");
	ck_assert_string_eq(format_omru_conf(c),
			    "Objective=jct FairnessFactor=2.25 ReferenceBound=no ReferenceSlack=0.2 "
			    "ReferenceSlackSeconds=30 ArrivalGuard=no ProfileFile=/a.csv "
			    "ProfileFile=/b.csv StateDir=/var/omru PlanIntervalMin=0.1 "
			    "PlanIntervalMax=86400 PlanTimeMax=12345.678 CpusPerGpu=4 "
			    "MaxJobGpus=16 LoaderCpus=yes PlanRigidJobs=no MaxPendingPlanned=1000000 LogPlans=yes "
			    "CorrectionMargin=0.5 SpreadCost=1.5 Elastic=no ElasticGrace=45 "
			    "RestartOverhead=0 StartOverhead=12.5 "
			    "ResizeMargin=0.25 PhaseAware=no PhaseThreshold=0.25 "
			    "LayerProfileDir=/etc/slurm/layers PipelineBatch=64 PipelineGpuMem=15.5 "
			    "ColocationFile=/etc/slurm/pairs.csv "
			    "ColocationSignals=/etc/slurm/signals.csv");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("omru_conf");
	TCase *read = tcase_create("read");
	tcase_add_test(read, test_empty_text_gives_the_defaults);
	tcase_add_test(read, test_every_key_is_read);
	tcase_add_test(read, test_spread_cost_is_a_factor_from_1_to_10);
	tcase_add_test(read, test_profile_files_repeat_in_their_order);
	tcase_add_test(read, test_comments_blank_lines_and_whitespace_are_ignored);
	tcase_add_test(read, test_last_line_needs_no_newline);
	tcase_add_test(read, test_keys_are_case_insensitive);
	tcase_add_test(read, test_objective_and_boolean_words_are_case_insensitive);
	tcase_add_test(read, test_booleans_accept_yes_true_1_and_no_false_0);
	tcase_add_test(read, test_loader_cpus_is_a_boolean_off_by_default);
	tcase_add_test(read, test_paths_keep_their_case);
	tcase_add_test(read, test_range_bounds_are_accepted);
	tcase_add_test(read, test_interval_max_equal_to_min_is_accepted);
	tcase_add_test(read, test_line_of_exactly_4096_bytes_is_read);
	suite_add_tcase(s, read);
	TCase *refused = tcase_create("refused");
	tcase_add_test(refused, test_unknown_key_lists_the_known_ones);
	tcase_add_test(refused, test_include_is_an_unknown_key);
	tcase_add_test(refused, test_elastic_keys_are_checked);
	tcase_add_test(refused, test_line_without_equals_is_an_error);
	tcase_add_test(refused, test_line_without_key_is_an_error);
	tcase_add_test(refused, test_two_settings_on_one_line_are_an_error);
	tcase_add_test(refused, test_control_character_is_an_error);
	tcase_add_test(refused, test_line_longer_than_4096_bytes_is_an_error);
	tcase_add_test(refused, test_empty_value_is_an_error);
	tcase_add_test(refused, test_bad_objective_is_an_error);
	tcase_add_test(refused, test_fairness_factor_between_0_and_1_is_an_error);
	tcase_add_test(refused, test_fairness_factor_above_1000_is_an_error);
	tcase_add_test(refused, test_reference_bound_keys_are_checked);
	tcase_add_test(refused, test_numbers_must_be_plain_decimals);
	tcase_add_test(refused, test_plan_interval_min_out_of_range_is_an_error);
	tcase_add_test(refused, test_plan_interval_max_out_of_range_is_an_error);
	tcase_add_test(refused, test_plan_time_max_out_of_range_is_an_error);
	tcase_add_test(refused, test_cpus_per_gpu_must_be_a_whole_number_up_to_1024);
	tcase_add_test(refused, test_max_pending_planned_must_be_a_whole_number_from_1);
	tcase_add_test(refused, test_bad_boolean_is_an_error);
	tcase_add_test(refused, test_relative_paths_are_an_error);
	tcase_add_test(refused, test_path_with_whitespace_is_an_error);
	tcase_add_test(refused, test_key_given_twice_is_an_error);
	tcase_add_test(refused, test_profile_file_listed_twice_is_an_error);
	tcase_add_test(refused, test_interval_max_below_min_is_an_error);
	tcase_add_test(refused, test_interval_min_above_the_default_max_is_an_error);
	tcase_add_test(refused, test_first_error_is_the_one_reported);
	suite_add_tcase(s, refused);
	TCase *files = tcase_create("files");
	tcase_add_test(files, test_missing_file_gives_the_defaults_when_allowed);
	tcase_add_test(files, test_missing_file_is_an_error_when_not_allowed);
	tcase_add_test(files, test_file_is_read_and_errors_name_its_path);
	tcase_add_test(files, test_file_larger_than_1_mib_is_an_error);
	tcase_add_test(files, test_directory_is_an_error_even_when_missing_is_ok);
	suite_add_tcase(s, files);
	TCase *format = tcase_create("format");
	tcase_add_test(format, test_format_writes_every_key_at_its_default);
	tcase_add_test(format, test_format_writes_the_values_read);
	suite_add_tcase(s, format);
	return run_suite(s);
}
