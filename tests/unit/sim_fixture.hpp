// sim_fixture.hpp - builds simulator inputs from CSV text written out in a
// test, runs a policy, and finds segments, so policy tests read as the
// hand-worked schedule they expect.
#ifndef OMRU_TESTS_SIM_FIXTURE_HPP
#define OMRU_TESTS_SIM_FIXTURE_HPP

#include "check_cxx.hpp"

#include <cstdlib>
#include <string>
#include <vector>

#include "model/csv_table.hpp"
#include "model/schedule.hpp"
#include "policy/policy.hpp"
#include "sim/simulator.hpp"
#include "sim/validator.hpp"

namespace omru_test {

struct Inputs {
	omru::Cluster cluster;
	omru::ProfileTable profiles;
	omru::Workload workload;
};

inline Inputs make_inputs(const char *cluster, const char *profiles_csv,
			  const char *workload_csv)
{
	Inputs in;
	in.cluster = omru::parse_cluster(cluster).value();
	in.profiles = omru::ProfileTable::from_csv(
		omru::CsvTable::parse("profiles.csv", profiles_csv));
	in.workload = omru::workload_from_csv(
		omru::CsvTable::parse("workload.csv", workload_csv), in.profiles);
	return in;
}

// A workload of the shared data set (data/workloads/NAME.csv) with the T4
// profiles on `cluster`; the source tree comes from OMRU_SRCDIR (make check
// sets it).
inline Inputs shared_inputs(const char *cluster, const std::string &workload)
{
	const char *src = getenv("OMRU_SRCDIR");
	ck_assert_msg(src != NULL, "OMRU_SRCDIR must name the source tree");
	Inputs in;
	in.cluster = omru::parse_cluster(cluster).value();
	in.profiles = omru::ProfileTable::from_csv(
		omru::CsvTable::read_file(std::string(src) + "/data/profiles-t4.csv"));
	in.workload = omru::workload_from_csv(
		omru::CsvTable::read_file(std::string(src) + "/data/workloads/" +
					  workload + ".csv"),
		in.profiles);
	return in;
}

// Two runs gave exactly the same schedule (determinism).
inline void ck_assert_same_schedule(const omru::Schedule &a, const omru::Schedule &b)
{
	ck_assert_int_eq(a.size(), b.size());
	for (size_t i = 0; i < a.size(); i++) {
		ck_assert_int_eq(a[i].job, b[i].job);
		ck_assert(a[i].start_s == b[i].start_s);
		ck_assert(a[i].end_s == b[i].end_s);
		ck_assert(a[i].epochs == b[i].epochs);
		ck_assert(a[i].gpu_ids == b[i].gpu_ids);
	}
}

// Runs `policy` and checks the schedule passes the validator.
inline omru::Schedule run_policy(const Inputs &in, const char *policy,
				 double restart_overhead_s = 0,
				 omru::PolicyOptions opts = {})
{
	const omru::PolicyInfo *info = omru::find_policy(policy);
	ck_assert_ptr_nonnull(info);
	auto p = info->make(opts);
	ck_assert_string_eq(p->refuse(in.workload, in.profiles, in.cluster), "");
	omru::SimOptions so;
	so.restart_overhead_s = restart_overhead_s;
	omru::SimResult r = omru::simulate(in.cluster, in.profiles, in.workload, *p, so);
	auto v = omru::validate_schedule(in.cluster, in.profiles, in.workload,
					 r.schedule, restart_overhead_s);
	ck_assert_msg(v.empty(), "%s: invalid schedule: %s", policy,
		      v.empty() ? "" : v.front().message.c_str());
	return r.schedule;
}

// The segments of one job, in start order.
inline std::vector<omru::Segment> segments_of(const Inputs &in,
					      const omru::Schedule &s,
					      const char *job_id)
{
	std::vector<omru::Segment> out;
	for (const omru::Segment &g : s)
		if (in.workload.jobs[g.job].id == job_id)
			out.push_back(g);
	std::sort(out.begin(), out.end(), [](const auto &a, const auto &b) {
		return a.start_s < b.start_s;
	});
	return out;
}

// Asserts one segment's start, end, GPU count and epochs (1e-9 tolerance).
#define ck_assert_segment(seg, start_, end_, gpus_, epochs_)                  \
	do {                                                                  \
		const omru::Segment ck_seg_ = (seg); /* copy: seg may be a temporary */ \
		ck_assert_double_eq_tol(ck_seg_.start_s, (start_), 1e-9);     \
		ck_assert_double_eq_tol(ck_seg_.end_s, (end_), 1e-9);         \
		ck_assert_int_eq(ck_seg_.gpus(), (gpus_));                    \
		ck_assert_double_eq_tol(ck_seg_.epochs, (epochs_), 1e-9);     \
	} while (0)

} // namespace omru_test

#endif
