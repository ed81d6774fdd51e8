// test_site_limits.cpp - omru-sim's site limits (doc/sim-formats.md, Site
// limits): the workload's columns, the simulator refusing what slurmctld
// and cons_tres refuse, fifo/backfill/omru placing within them, and the
// validator catching a schedule that breaks them.  Schedules worked out by
// hand; every one is validated (run_policy) against the same limits.
#include "sim_fixture.hpp"

#include <stdexcept>

using namespace omru;
using namespace omru_test;

// m: 1 GPU 10 s/epoch, 2 GPUs 6 s, 3 GPUs 5 s, 4 GPUs 4 s (any spread).
static const char kProfiles[] = "model,gpus,epoch_s\nm,1,10\nm,2,6\nm,3,5\nm,4,4\n";
static const char kHead[] =
	"job_id,submit_s,model,epochs,gpus,gpus_min,gpus_max,user,node_list,"
	"cpus_per_gpu,mem_mb,mem_per_cpu_mb,exclusive,license\n";

// Nodes of 4 GPUs, 16 CPUs and 16,000 MB; alice may hold 2 GPUs; one lic.
static Inputs site(const char *cluster, const std::string &jobs)
{
	Inputs in = make_inputs(cluster, kProfiles, (kHead + jobs).c_str());
	in.cluster.node_cpus = 16;
	in.cluster.node_mem_mb = 16000;
	set_site_limits(in.workload, in.cluster.nodes, { { "alice", 2 } }, { { "lic", 1 } });
	return in;
}

START_TEST(test_columns_are_read_and_bounded)
{
	Inputs in = site("2x4", "a,0,m,1,2,1,4,alice,1,8,9000,,1,lic:1\n"
				"b,0,m,1,1,1,1,,0;1,,,1000,,\n");
	const Job &a = in.workload.jobs[0], &b = in.workload.jobs[1];
	ck_assert_str_eq(in.workload.users[a.user].c_str(), "alice");
	ck_assert(a.node_list == std::vector<int>({ 1 }));
	ck_assert_double_eq(a.need.cpus_per_gpu, 8);
	ck_assert_double_eq(a.need.mem_min, 9000);
	ck_assert(a.need.whole_node);
	ck_assert_int_eq(a.license_count, 1);
	ck_assert_int_eq(b.user, -1);
	ck_assert(b.node_list == std::vector<int>({ 0, 1 }));
	// Memory per CPU gives the job a CPU per GPU (cons_tres's minimum).
	ck_assert_double_eq(b.need.cpus_per_gpu, 1);
	ck_assert(in.workload.has_site_limits());
	for (const char *bad : { "a,0,m,1,1,1,1,,0;x,,,,,\n", "a,0,m,1,1,1,1,,0;0,,,,,\n",
				 "a,0,m,1,1,1,1,,,-1,,,,\n", "a,0,m,1,1,1,1,,,,1e13,,,\n",
				 "a,0,m,1,1,1,1,,,,,,2,\n", "a,0,m,1,1,1,1,,,,,,,lic:0\n",
				 "a,0,m,1,1,1,1,a b,,,,,,\n" }) {
		bool refused = false;
		try {
			make_inputs("2x4", kProfiles, (kHead + std::string(bad)).c_str());
		} catch (const InputError &) {
			refused = true;
		}
		ck_assert_msg(refused, "accepted: %s", bad);
	}
}
END_TEST

START_TEST(test_site_refuses_what_it_cannot_hold)
{
	for (const char *jobs : { "a,0,m,1,1,1,1,,2,,,,,\n",         // node 2 of 2
				  "a,0,m,1,3,3,3,alice,,,,,,\n",     // alice holds 2
				  "a,0,m,1,1,1,1,,,,,,,lic:2\n" }) { // one lic
		bool refused = false;
		try {
			site("2x4", jobs);
		} catch (const std::invalid_argument &) {
			refused = true;
		}
		ck_assert_msg(refused, "accepted: %s", jobs);
	}
}
END_TEST

START_TEST(test_fifo_passes_over_a_job_its_users_limit_holds)
{
	// alice holds 2 GPUs with a; b (alice, 1 GPU) waits for a although
	// GPUs are free, and does not block c behind it (slurmctld passes a
	// job held by its QOS over).
	Inputs in = site("1x4", "a,0,m,1,2,2,2,alice,,,,,,\n"
				"b,1,m,1,1,1,1,alice,,,,,,\n"
				"c,2,m,1,1,1,1,bob,,,,,,\n");
	Schedule s = run_policy(in, "fifo");
	ck_assert_segment(segments_of(in, s, "b")[0], 6, 16, 1, 1);
	ck_assert_segment(segments_of(in, s, "c")[0], 2, 12, 1, 1);
}
END_TEST

START_TEST(test_backfill_keeps_memory_heavy_jobs_apart)
{
	// a and b take 9,000 MB each: two cannot share a 16,000 MB node, so b
	// goes to node 1 and c (9,000 MB too) waits for a; d (no memory)
	// shares node 0 with a.
	Inputs in = site("2x4", "a,0,m,1,1,1,1,,,1,9000,,,\n"
				"b,0,m,2,1,1,1,,,1,9000,,,\n"
				"c,0,m,1,1,1,1,,,1,9000,,,\n"
				"d,0,m,1,3,3,3,,,1,,,,\n");
	Schedule s = run_policy(in, "backfill");
	ck_assert_segment(segments_of(in, s, "a")[0], 0, 10, 1, 1);
	ck_assert_segment(segments_of(in, s, "b")[0], 0, 20, 1, 2);
	ck_assert_segment(segments_of(in, s, "c")[0], 10, 20, 1, 1);
	ck_assert_int_ne(segments_of(in, s, "a")[0].nodes[0], segments_of(in, s, "b")[0].nodes[0]);
	ck_assert_int_eq(segments_of(in, s, "d")[0].start_s, 0);
}
END_TEST

START_TEST(test_omru_plans_within_node_lists_cpus_licenses_and_exclusive)
{
	// a may only use node 1; b takes 8 CPUs a GPU (two GPUs fill a node's
	// 16 CPUs); c and d share one license; e wants a whole node.
	Inputs in = site("2x4", "a,0,m,2,1,1,4,,1,1,,,,\n"
				"b,0,m,2,2,1,4,,,8,,,,\n"
				"c,0,m,1,1,1,2,,,1,,,,lic\n"
				"d,0,m,1,1,1,2,,,1,,,,lic\n"
				"e,0,m,1,2,2,2,,,1,,,1,\n");
	Schedule s = run_policy(in, "omru");
	for (const Segment &g : segments_of(in, s, "a"))
		for (int n : g.nodes)
			ck_assert_int_eq(n, 1);
	for (const Segment &g : segments_of(in, s, "b"))
		ck_assert_int_le(g.gpus(), 2 * static_cast<int>(g.distinct_nodes()));
	auto c = segments_of(in, s, "c"), d = segments_of(in, s, "d");
	ck_assert(c.back().end_s <= d.front().start_s || d.back().end_s <= c.front().start_s);
	for (const Segment &e : segments_of(in, s, "e"))
		for (const Segment &g : s)
			if (&g != &e && in.workload.jobs[g.job].id != "e")
				ck_assert(g.end_s <= e.start_s || g.start_s >= e.end_s ||
					  g.nodes[0] != e.nodes[0] || g.nodes.back() != e.nodes[0]);
}
END_TEST

START_TEST(test_omru_plans_a_users_jobs_within_their_gpu_limit)
{
	// alice may hold 2 GPUs (a pool of the plan): a (moldable 1-4) is
	// offered 2, not 4; b (alice) starts when a ends; bob's c takes the
	// free GPUs at once.
	Inputs in = site("1x4", "a,0,m,4,2,1,4,alice,,,,,,\n"
				"b,0,m,1,1,1,1,alice,,,,,,\n"
				"c,0,m,2,2,1,2,bob,,,,,,\n");
	Schedule s = run_policy(in, "omru", 0, [] {
		PolicyOptions o;
		o.omru_resize = false;
		return o;
	}());
	ck_assert_int_le(segments_of(in, s, "a")[0].gpus(), 2);
	ck_assert_double_eq(segments_of(in, s, "c")[0].start_s, 0);
	ck_assert(segments_of(in, s, "b")[0].start_s >= segments_of(in, s, "a").back().end_s);
}
END_TEST

START_TEST(test_validator_reports_a_schedule_that_breaks_limits)
{
	// The same jobs planned without limits break all four.
	const char *jobs = "a,0,m,1,2,2,2,alice,,,,,,\n"
			   "b,0,m,1,1,1,1,alice,,,,,,\n"
			   "c,0,m,1,1,1,1,,,,,,,lic\n"
			   "d,0,m,1,1,1,1,,,,,,,lic\n"
			   "e,0,m,1,1,1,1,,,1,17000,,,\n";
	Inputs plain = make_inputs("1x8", kProfiles,
				   "job_id,submit_s,model,epochs,gpus\n"
				   "a,0,m,1,2\nb,0,m,1,1\nc,0,m,1,1\nd,0,m,1,1\ne,0,m,1,1\n");
	Schedule s = run_policy(plain, "fifo");
	Inputs in = site("1x8", jobs);
	std::string all;
	for (const Violation &v : validate_schedule(in.cluster, in.profiles, in.workload, s, 0))
		all += v.message + "\n";
	ck_assert_msg(all.find("user alice holds more than 2") != std::string::npos, "%s", all.c_str());
	ck_assert_msg(all.find("license lic") != std::string::npos, "%s", all.c_str());
	ck_assert_msg(all.find("lacks the CPUs or memory") != std::string::npos, "%s", all.c_str());
}
END_TEST

START_TEST(test_policies_without_a_limit_model_say_so)
{
	for (const char *p : { "fifo", "backfill", "omru" })
		ck_assert(find_policy(p)->make({})->models_site_limits());
	for (const char *p : { "sjf", "seq", "tiresias" })
		ck_assert(!find_policy(p)->make({})->models_site_limits());
}
END_TEST

int main(void)
{
	Suite *s = suite_create("site_limits");
	TCase *tc = tcase_create("limits");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_columns_are_read_and_bounded);
	tcase_add_test(tc, test_site_refuses_what_it_cannot_hold);
	tcase_add_test(tc, test_fifo_passes_over_a_job_its_users_limit_holds);
	tcase_add_test(tc, test_backfill_keeps_memory_heavy_jobs_apart);
	tcase_add_test(tc, test_omru_plans_within_node_lists_cpus_licenses_and_exclusive);
	tcase_add_test(tc, test_omru_plans_a_users_jobs_within_their_gpu_limit);
	tcase_add_test(tc, test_validator_reports_a_schedule_that_breaks_limits);
	tcase_add_test(tc, test_policies_without_a_limit_model_say_so);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
