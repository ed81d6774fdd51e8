// test_profile_store.cpp - the profile store slurmctld learns into and
// omru-profile edits (profiler/): rows per (user, model) with their source,
// the bounds (oldest measurement first), corrections, loader demands and
// forgetting, the
// versioned text read back exactly and refused with FILE:LINE when it is
// not a store, the file (atomic save, merge of two writers, a file that does not load
// kept as it is, the stamp that tells slurmctld someone else wrote), how
// omru-profile finds it from slurm.conf/omru.conf, and its views (the curve
// is the one the user's jobs are planned with).
#include "check_cxx.hpp"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#include "controller/site_profiles.hpp"
#include "omru/omru_ctl.h"
#include "profile/profile_store.hpp"
#include "profiler/profile_view.hpp"
#include "profile/store_file.hpp"
#include "profiler/store_location.hpp"

using namespace omru;
using namespace omru::profiler;

namespace {

StoreRow row(const std::string &model, int gpus, double epoch_s, int64_t when,
	     int nodes = 0, RowSource source = RowSource::Measured)
{
	StoreRow r;
	r.model = model;
	r.gpus = gpus;
	r.nodes = nodes;
	r.epoch_s = epoch_s;
	r.source = source;
	r.when = when;
	r.job_id = static_cast<uint32_t>(when);
	return r;
}

std::string gpus_of(const std::vector<StoreRow> &rows)
{
	std::string s;
	for (const StoreRow &r : rows)
		s += (s.empty() ? "" : ",") + std::to_string(r.gpus) +
		     (r.nodes ? "/" + std::to_string(r.nodes) : "");
	return s;
}

// A fresh directory for file tests, removed by the caller's rm_dir.
std::string temp_dir()
{
	char tmpl[] = "/tmp/omru-store-test.XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	return tmpl;
}

void rm_dir(const std::string &dir)
{
	std::string cmd = "rm -rf '" + dir + "'";
	ck_assert_int_eq(system(cmd.c_str()), 0);
}

void write_file(const std::string &path, const std::string &text)
{
	std::ofstream f(path);
	f << text;
	ck_assert(f.good());
}

std::string read_file(const std::string &path)
{
	std::ifstream f(path);
	std::stringstream s;
	s << f.rdbuf();
	return s.str();
}

controller::SiteProfiles site_of(const std::string &dir, const std::string &csv)
{
	std::string path = dir + "/site.csv";
	write_file(path, csv);
	auto p = controller::load_site_profiles({ path });
	ck_assert_msg(p.ok(), "%s", p.error().c_str());
	return p.value();
}

} // namespace

// ---- the store -------------------------------------------------------

START_TEST(test_rows_come_back_sorted_and_a_newer_row_replaces_its_count)
{
	ProfileStore s;
	ck_assert(s.apply(StoreOp::add_row(1000, row("resnet", 4, 30, 10))));
	ck_assert(s.apply(StoreOp::add_row(1000, row("resnet", 1, 100, 11))));
	ck_assert(s.apply(StoreOp::add_row(1000, row("resnet", 4, 31, 12, 2))));
	ck_assert(s.apply(StoreOp::add_row(1000, row("resnet", 4, 29, 13))));
	ck_assert_string_eq(gpus_of(s.rows(1000, "resnet")), "1,4,4/2");
	ck_assert(s.rows(1000, "resnet")[1].epoch_s == 29);
	ck_assert_int_eq(s.row_count(), 3);
	ck_assert(s.knows(1000, "resnet"));
}
END_TEST

START_TEST(test_one_users_rows_are_not_anothers)
{
	ProfileStore s;
	s.apply(StoreOp::add_row(1000, row("resnet", 1, 100, 10)));
	ck_assert(!s.knows(1001, "resnet"));
	ck_assert(!s.knows(kSiteUid, "resnet"));
	ck_assert(s.rows(1001, "resnet").empty());
	ck_assert_int_eq(s.users().size(), 1);
}
END_TEST

START_TEST(test_invalid_rows_and_factors_are_ignored)
{
	ProfileStore s;
	ck_assert(!s.apply(StoreOp::add_row(1, row("bad model", 1, 1, 1))));
	ck_assert(!s.apply(StoreOp::add_row(1, row("m", 0, 1, 1))));
	ck_assert(!s.apply(StoreOp::add_row(1, row("m", 2, 1, 1, 3))));
	ck_assert(!s.apply(StoreOp::add_row(1, row("m", 1, 0, 1))));
	ck_assert(!s.apply(StoreOp::add_row(1, row("m", 1, 2e9, 1))));
	ck_assert(!s.apply(StoreOp::add_row(1, row("m", 1, 1, -1))));
	ck_assert(!s.apply(StoreOp::set_correction(1, "m", 0.001, 1)));
	ck_assert(!s.apply(StoreOp::set_correction(1, "m", 1000, 1)));
	ck_assert_int_eq(s.generation(), 0);
	ck_assert_int_eq(s.row_count(), 0);
	ck_assert_string_eq(row_error(row(std::string(65, 'a'), 1, 1, 1)).substr(0, 6), "model ");
}
END_TEST

START_TEST(test_oldest_row_goes_first_when_a_model_is_full)
{
	StoreLimits l;
	l.rows_per_model = 3;
	ProfileStore s(l);
	s.apply(StoreOp::add_row(1, row("m", 1, 10, 100)));
	s.apply(StoreOp::add_row(1, row("m", 2, 6, 50))); // the oldest
	s.apply(StoreOp::add_row(1, row("m", 4, 4, 200)));
	s.apply(StoreOp::add_row(1, row("m", 8, 3, 300)));
	ck_assert_string_eq(gpus_of(s.rows(1, "m")), "1,4,8");
}
END_TEST

START_TEST(test_stalest_model_then_stalest_user_go_when_full)
{
	StoreLimits l;
	l.models_per_user = 2;
	l.users = 2;
	ProfileStore s(l);
	s.apply(StoreOp::add_row(1, row("a", 1, 10, 100)));
	s.apply(StoreOp::add_row(1, row("b", 1, 10, 50)));
	s.apply(StoreOp::add_row(1, row("c", 1, 10, 300)));
	ck_assert_int_eq(s.models(1).size(), 2);
	ck_assert(!s.knows(1, "b"));
	s.apply(StoreOp::add_row(2, row("a", 1, 10, 40)));
	s.apply(StoreOp::add_row(kSiteUid, row("a", 1, 10, 1)));
	s.apply(StoreOp::add_row(3, row("a", 1, 10, 500)));
	// User 2 was stalest; the site's rows never count as a user.
	ck_assert(!s.knows(2, "a"));
	ck_assert(s.knows(1, "a") && s.knows(3, "a") && s.knows(kSiteUid, "a"));
}
END_TEST

START_TEST(test_corrections_and_forgetting)
{
	ProfileStore s;
	s.apply(StoreOp::add_row(1, row("m", 1, 10, 1)));
	s.apply(StoreOp::add_row(2, row("m", 1, 12, 1)));
	s.apply(StoreOp::add_row(kSiteUid, row("m", 1, 11, 1, 0, RowSource::Site)));
	s.apply(StoreOp::add_row(1, row("n", 1, 10, 1)));
	ck_assert(s.apply(StoreOp::set_correction(3, "m", 1.5, 9)));
	ck_assert(s.correction(3, "m") == 1.5);
	ck_assert(s.correction(1, "m") == 1);
	ck_assert(!s.knows(3, "m")); // a correction alone is no row
	ck_assert(s.apply(StoreOp::forget(1, "m")));
	ck_assert(!s.apply(StoreOp::forget(1, "m")));
	ck_assert(s.knows(1, "n") && s.knows(2, "m"));
	ck_assert(s.apply(StoreOp::forget_model("m")));
	ck_assert(!s.knows(2, "m") && !s.knows(kSiteUid, "m"));
	ck_assert(s.correction(3, "m") == 1);
	ck_assert(s.apply(StoreOp::forget_user(1)));
	ck_assert_int_eq(s.users().size(), 0);
	ck_assert(!s.apply(StoreOp::forget_user(1)));
}
END_TEST

START_TEST(test_loader_need_is_kept_per_user_and_model)
{
	ProfileStore s;
	ck_assert(s.apply(StoreOp::set_loader_need(1000, "resnet", 4, 100)));
	ck_assert_int_eq(s.loader_need(1000, "resnet"), 4);
	ck_assert_int_eq(s.loader_need_when(1000, "resnet"), 100);
	ck_assert_int_eq(s.loader_need(1001, "resnet"), 0);
	ck_assert_int_eq(s.loader_need(1000, "vgg"), 0);
	ck_assert(s.apply(StoreOp::set_loader_need(1000, "resnet", 6, 200)));
	ck_assert_int_eq(s.loader_need(1000, "resnet"), 6);
	ck_assert_int_eq(s.loader_need_when(1000, "resnet"), 200);
	ck_assert_int_eq(s.models(1000).size(), 1);
}
END_TEST

START_TEST(test_a_loader_need_alone_is_no_row)
{
	ProfileStore s;
	s.apply(StoreOp::set_loader_need(1000, "resnet", 4, 100));
	ck_assert(!s.knows(1000, "resnet")); // its jobs still profile themselves
	ck_assert_int_eq(s.row_count(), 0);
	s.apply(StoreOp::add_row(1000, row("resnet", 1, 100, 101)));
	ck_assert(s.knows(1000, "resnet"));
	ck_assert_int_eq(s.loader_need(1000, "resnet"), 4);
}
END_TEST

START_TEST(test_invalid_loader_needs_are_ignored)
{
	ProfileStore s;
	ck_assert(!s.apply(StoreOp::set_loader_need(1, "m", 0, 1)));
	ck_assert(!s.apply(StoreOp::set_loader_need(1, "m", -3, 1)));
	ck_assert(!s.apply(StoreOp::set_loader_need(1, "m", 257, 1)));
	ck_assert(!s.apply(StoreOp::set_loader_need(1, "bad model", 2, 1)));
	ck_assert(!s.apply(StoreOp::set_loader_need(1, "m", 2, -1)));
	ck_assert(s.apply(StoreOp::set_loader_need(1, "m", 256, 1)));
	ck_assert_int_eq(s.generation(), 1);
	ck_assert_int_eq(s.loader_need(1, "m"), 256);
}
END_TEST

START_TEST(test_forgetting_drops_the_loader_need)
{
	ProfileStore s;
	s.apply(StoreOp::set_loader_need(1, "m", 3, 1));
	s.apply(StoreOp::set_loader_need(1, "n", 3, 1));
	s.apply(StoreOp::set_loader_need(2, "m", 5, 1));
	s.apply(StoreOp::set_loader_need(3, "n", 7, 1));
	ck_assert(s.apply(StoreOp::forget(1, "m")));
	ck_assert_int_eq(s.loader_need(1, "m"), 0);
	ck_assert_int_eq(s.loader_need(1, "n"), 3);
	ck_assert(s.apply(StoreOp::forget_model("m")));
	ck_assert_int_eq(s.loader_need(2, "m"), 0);
	ck_assert(s.apply(StoreOp::forget_user(1)));
	ck_assert_int_eq(s.loader_need(1, "n"), 0);
	ck_assert_int_eq(s.loader_need(3, "n"), 7);
}
END_TEST

START_TEST(test_a_loader_need_counts_as_a_model_in_the_bounds)
{
	StoreLimits l;
	l.models_per_user = 2;
	ProfileStore s(l);
	s.apply(StoreOp::set_loader_need(1, "a", 2, 100));
	s.apply(StoreOp::set_loader_need(1, "b", 2, 50)); // the stalest
	s.apply(StoreOp::add_row(1, row("c", 1, 10, 300)));
	ck_assert_int_eq(s.models(1).size(), 2);
	ck_assert_int_eq(s.loader_need(1, "a"), 2);
	ck_assert_int_eq(s.loader_need(1, "b"), 0);
	ck_assert(s.knows(1, "c"));
	// Learning a need freshens the model: now "c" is the stalest.
	s.apply(StoreOp::set_loader_need(1, "a", 3, 400));
	s.apply(StoreOp::set_loader_need(1, "d", 2, 350));
	ck_assert(!s.knows(1, "c"));
	ck_assert_int_eq(s.loader_need(1, "a"), 3);
}
END_TEST

// ---- its text ----------------------------------------------------------

START_TEST(test_text_reads_back_exactly)
{
	ProfileStore s;
	s.apply(StoreOp::add_row(1000, row("resnet50", 1, 0.1 + 0.2, 1763800000)));
	s.apply(StoreOp::add_row(1000, row("resnet50", 8, 1e-3 / 3, 1763800001, 2,
					   RowSource::Runtime)));
	s.apply(StoreOp::add_row(kSiteUid, row("v.g_g+1-6", 4, 123456789.125, 0, 0,
					       RowSource::Site)));
	s.apply(StoreOp::set_correction(1000, "vgg", 1.0 / 3, 1763800002));
	auto back = ProfileStore::parse(s.serialize(), "x");
	ck_assert_msg(back.ok(), "%s", back.error().c_str());
	ck_assert_string_eq(back.value().serialize(), s.serialize());
	ck_assert(back.value().rows(1000, "resnet50")[0].epoch_s == 0.1 + 0.2);
	ck_assert(back.value().rows(1000, "resnet50")[1].source == RowSource::Runtime);
	ck_assert(back.value().correction(1000, "vgg") == 1.0 / 3);
	ck_assert_string_eq(s.serialize().substr(0, 24), "# omru profile store v3\n");
}
END_TEST

START_TEST(test_loader_need_is_written_as_its_own_line_and_reads_back)
{
	ProfileStore s;
	s.apply(StoreOp::add_row(1000, row("resnet50", 1, 100, 1763800000)));
	s.apply(StoreOp::set_correction(1000, "resnet50", 1.5, 1763800001));
	s.apply(StoreOp::set_loader_need(1000, "resnet50", 4, 1763800002));
	s.apply(StoreOp::set_loader_need(1001, "vgg", 12, 1763800003));
	ck_assert_string_eq(s.serialize(),
			    "# omru profile store v3\n"
			    "kind,uid,model,gpus,nodes,epoch_s,source,when,job_id\n"
			    "row,1000,resnet50,1,0,100,measured,1763800000,1763800000\n"
			    "correction,1000,resnet50,0,0,1.5,,1763800001,0\n"
			    "loader_need,1000,resnet50,0,0,4,,1763800002,0\n"
			    "loader_need,1001,vgg,0,0,12,,1763800003,0\n");
	auto back = ProfileStore::parse(s.serialize(), "x");
	ck_assert_msg(back.ok(), "%s", back.error().c_str());
	ck_assert_string_eq(back.value().serialize(), s.serialize());
	ck_assert_int_eq(back.value().loader_need(1000, "resnet50"), 4);
	ck_assert_int_eq(back.value().loader_need_when(1001, "vgg"), 1763800003);
	ck_assert(!back.value().knows(1001, "vgg"));
}
END_TEST

START_TEST(test_a_v1_store_still_reads_and_is_written_as_v3)
{
	const std::string v1 = "# omru profile store v1\n"
			       "kind,uid,model,gpus,nodes,epoch_s,source,when,job_id\n"
			       "row,1000,resnet50,1,0,100,measured,1763800000,17\n"
			       "correction,1000,vgg,0,0,2,,1763800002,0\n"
			       "row,4294967295,vgg,4,2,30.5,site,1763800001,0\n";
	auto s = ProfileStore::parse(v1, "old");
	ck_assert_msg(s.ok(), "%s", s.error().c_str());
	ck_assert_int_eq(s.value().row_count(), 2);
	ck_assert(s.value().correction(1000, "vgg") == 2);
	ck_assert_int_eq(s.value().loader_need(1000, "resnet50"), 0);
	ck_assert_string_eq(s.value().serialize(),
			    "# omru profile store v3\n" + v1.substr(24));
	// loader_need lines came with v2: a v1 file with one is not a v1 store.
	auto mixed = ProfileStore::parse(v1 + "loader_need,1000,resnet50,0,0,4,,1,0\n", "old");
	ck_assert(!mixed.ok());
	ck_assert_string_eq(mixed.error(),
			    "old:6: kind 'loader_need': expected row, correction (a v1 store)");
}
END_TEST

// ---- beside: what a user's model lost beside another ----------------------

static BesideRow beside(const std::string &neighbour, double slowdown, int64_t when,
			uint32_t job = 0, int runs = 1)
{
	BesideRow b;
	b.neighbour = neighbour;
	b.slowdown = slowdown;
	b.runs = runs;
	b.when = when;
	b.job_id = job;
	return b;
}

START_TEST(test_beside_is_a_running_mean_per_user_model_and_neighbour)
{
	ProfileStore s;
	ck_assert(s.apply(StoreOp::add_beside(1000, "bert", beside("ncf", 1.6, 10, 1))));
	ck_assert(s.apply(StoreOp::add_beside(1000, "bert", beside("ncf", 1.2, 20, 2))));
	const BesideRow *b = s.beside(1000, "bert", "ncf");
	ck_assert_ptr_nonnull(b);
	ck_assert_double_eq_tol(b->slowdown, 1.4, 1e-12);
	ck_assert_int_eq(b->runs, 2);
	ck_assert_int_eq(b->when, 20);
	ck_assert_int_eq(b->job_id, 2);
	// Another user, another direction, another neighbour: none of it.
	ck_assert_ptr_null(s.beside(1001, "bert", "ncf"));
	ck_assert_ptr_null(s.beside(1000, "ncf", "bert"));
	ck_assert_ptr_null(s.beside(1000, "bert", "vgg"));
	// A beside measurement alone is no row: the model is still profiled.
	ck_assert(!s.knows(1000, "bert"));
	// Kept within [1, 4] as the co-location table reads; a slowdown
	// outside (0, 100], a bad name or run count is refused.
	ck_assert(s.apply(StoreOp::add_beside(1000, "vgg", beside("ncf", 0.8, 1))));
	ck_assert(s.beside(1000, "vgg", "ncf")->slowdown == 1);
	ck_assert(s.apply(StoreOp::add_beside(1000, "vgg", beside("bert", 50, 1))));
	ck_assert(s.beside(1000, "vgg", "bert")->slowdown == 4);
	ck_assert(!s.apply(StoreOp::add_beside(1000, "vgg", beside("x", 0, 1))));
	ck_assert(!s.apply(StoreOp::add_beside(1000, "vgg", beside("x", 101, 1))));
	ck_assert(!s.apply(StoreOp::add_beside(1000, "vgg", beside("x y", 2, 1))));
	ck_assert(!s.apply(StoreOp::add_beside(1000, "vgg", beside("", 2, 1))));
	ck_assert(!s.apply(StoreOp::add_beside(1000, "vgg", beside("x", 2, 1, 0, 0))));
	ck_assert(!s.apply(StoreOp::add_beside(1000, "vgg", beside("x", 2, 1, 0, 9))));
	ck_assert(!s.apply(StoreOp::add_beside(1000, "vgg", beside("x", 2, -1))));
	ck_assert_ptr_null(s.beside(1000, "vgg", "x"));
}
END_TEST

START_TEST(test_beside_follows_a_change_within_a_few_jobs)
{
	// Twenty jobs at 2, then the pair stops interfering: the old mean
	// weighs as at most 7 runs, so it follows within a few jobs instead
	// of never moving.
	ProfileStore s;
	for (int i = 0; i < 20; i++)
		s.apply(StoreOp::add_beside(1, "a", beside("b", 2, i, i)));
	ck_assert_double_eq_tol(s.beside(1, "a", "b")->slowdown, 2, 1e-12);
	ck_assert_int_eq(s.beside(1, "a", "b")->runs, kMaxBesideRuns);
	for (int i = 20; i < 40; i++)
		s.apply(StoreOp::add_beside(1, "a", beside("b", 1, i, i)));
	ck_assert(s.beside(1, "a", "b")->slowdown < 1.1);
}
END_TEST

START_TEST(test_beside_lines_count_in_the_bounds_and_go_oldest_first)
{
	StoreLimits l;
	l.beside_per_model = 2;
	l.lines_per_user = 4;
	ProfileStore s(l);
	s.apply(StoreOp::add_beside(1, "a", beside("x", 2, 10)));
	s.apply(StoreOp::add_beside(1, "a", beside("y", 2, 20)));
	s.apply(StoreOp::add_beside(1, "a", beside("z", 2, 30))); // x goes: two per model
	ck_assert_ptr_null(s.beside(1, "a", "x"));
	ck_assert_int_eq(s.beside(1, "a").size(), 2);
	s.apply(StoreOp::add_row(1, row("a", 1, 5, 5)));  // older than every beside
	s.apply(StoreOp::add_row(1, row("a", 2, 5, 25))); // newer than y
	ck_assert_int_eq(s.row_count(), 2);
	// A fifth line: the oldest of any kind goes (the 1-GPU row, at 5) ...
	s.apply(StoreOp::add_beside(1, "b", beside("x", 2, 40)));
	ck_assert_int_eq(s.row_count(), 1);
	// ... then y's measurement (20), older than the 2-GPU row (25).
	s.apply(StoreOp::add_beside(1, "b", beside("y", 2, 50)));
	ck_assert_ptr_null(s.beside(1, "a", "y"));
	ck_assert_int_eq(s.row_count(), 1);
	ck_assert_ptr_nonnull(s.beside(1, "a", "z"));
	// Another user's lines are its own.
	ck_assert(s.apply(StoreOp::add_beside(2, "a", beside("x", 2, 1))));
	ck_assert_ptr_nonnull(s.beside(1, "b", "x"));
}
END_TEST

START_TEST(test_beside_reads_back_and_forgetting_a_model_drops_its_pairs)
{
	ProfileStore s;
	s.apply(StoreOp::add_row(1000, row("bert", 1, 100, 1763800000)));
	s.apply(StoreOp::add_beside(1000, "bert", beside("ncf", 1.0 / 0.7, 1763800005, 42)));
	s.apply(StoreOp::add_beside(1000, "bert", beside("ncf", 1.25, 1763800006, 43)));
	s.apply(StoreOp::add_beside(1001, "vgg", beside("bert", 3, 1763800007, 44)));
	const std::string text = s.serialize();
	ck_assert_msg(text.find("beside,1000,bert,2,0,") != std::string::npos &&
			      text.find(",ncf,1763800006,43\n") != std::string::npos &&
			      text.find("beside,1001,vgg,1,0,3,bert,1763800007,44\n") !=
				      std::string::npos,
		      "%s", text.c_str());
	auto back = ProfileStore::parse(text, "x");
	ck_assert_msg(back.ok(), "%s", back.error().c_str());
	ck_assert_string_eq(back.value().serialize(), text);
	ck_assert(back.value().beside(1000, "bert", "ncf")->slowdown ==
		  s.beside(1000, "bert", "ncf")->slowdown);
	// Forgetting bert drops its rows and vgg's measurement beside it; the
	// entry it leaves empty goes with it.
	ck_assert(s.apply(StoreOp::forget_model("bert")));
	ck_assert_ptr_null(s.beside(1001, "vgg", "bert"));
	ck_assert_int_eq(s.users().size(), 0);
}
END_TEST

static SignalsRow signals(double gpu, double mem, int64_t when, uint32_t job = 0)
{
	SignalsRow g;
	g.gpu_pct = gpu;
	g.mem_pct = mem;
	g.when = when;
	g.job_id = job;
	return g;
}

START_TEST(test_solo_signals_are_a_running_mean_per_user_and_model)
{
	ProfileStore s;
	ck_assert(s.apply(StoreOp::add_signals(1000, "bert", signals(90, 40, 10, 1))));
	ck_assert(s.apply(StoreOp::add_signals(1000, "bert", signals(70, 20, 20, 2))));
	const SignalsRow *g = s.signals(1000, "bert");
	ck_assert_ptr_nonnull(g);
	ck_assert_double_eq_tol(g->gpu_pct, 80, 1e-12);
	ck_assert_double_eq_tol(g->mem_pct, 30, 1e-12);
	ck_assert_int_eq(g->runs, 2);
	ck_assert_int_eq(g->job_id, 2);
	ck_assert_ptr_null(s.signals(1001, "bert"));
	ck_assert(!s.knows(1000, "bert"));
	for (SignalsRow bad : { signals(-1, 5, 1), signals(5, 101, 1), signals(5, 5, -1) })
		ck_assert(!s.apply(StoreOp::add_signals(1, "m", bad)));
	SignalsRow zero_runs = signals(5, 5, 1);
	zero_runs.runs = 0;
	ck_assert(!s.apply(StoreOp::add_signals(1, "m", zero_runs)));
	ck_assert(!s.apply(StoreOp::add_signals(1, "bad model", signals(5, 5, 1))));
	ck_assert_ptr_null(s.signals(1, "m"));
	// A line of its own that reads back; forgetting the model drops it.
	const std::string text = s.serialize();
	ck_assert_msg(text.find("signals,1000,bert,2,0,80,30,20,2\n") != std::string::npos, "%s",
		      text.c_str());
	auto back = ProfileStore::parse(text, "x");
	ck_assert_msg(back.ok(), "%s", back.error().c_str());
	ck_assert_string_eq(back.value().serialize(), text);
	ck_assert(s.apply(StoreOp::forget_model("bert")));
	ck_assert_ptr_null(s.signals(1000, "bert"));
	ck_assert_int_eq(s.users().size(), 0);
}
END_TEST

START_TEST(test_text_that_is_not_a_store_is_refused_with_its_line)
{
	const std::string head = "# omru profile store v2\n"
				 "kind,uid,model,gpus,nodes,epoch_s,source,when,job_id\n";
	const std::string head3 = "# omru profile store v3\n" + head.substr(24);
	struct {
		std::string text, error;
	} cases[] = {
		{ "", "f:0: empty" },
		{ "# omru profile store v4\n", "f:1: not an omru profile store" },
		{ "# omru profile store v1\nkind,uid\n", "f:2: expected the header" },
		{ head + "row,1,m,1,0,5,measured,1\n", "f:3: expected 9 fields, found 8" },
		{ head + "row,1,m,1,0,5,guessed,1,0\n", "f:3: source 'guessed'" },
		{ head + "row,1,m,1,0,5 ,measured,1,0\n", "f:3: a number out of range" },
		{ head + "row,1,m,1,0,1e99,measured,1,0\n", "f:3: epoch_s" },
		{ head + "row,1,m,1,0,5,measured,1,0\nrow,-1,m,1,0,5,measured,1,0\n",
		  "f:4: a number out of range" },
		{ head + "fact,1,m,1,0,5,measured,1,0\n", "f:3: kind 'fact'" },
		{ head + "correction,1,m,0,0,500,,1,0\n", "f:3: correction:" },
		{ head + "loader_need,1,m,0,0,0,,1,0\n", "f:3: loader_need: a valid model" },
		{ head + "loader_need,1,m,0,0,257,,1,0\n", "f:3: loader_need:" },
		{ head + "loader_need,1,m,0,0,2.5,,1,0\n", "f:3: loader_need:" },
		{ head + "loader_need,1,bad model,0,0,2,,1,0\n", "f:3: loader_need:" },
		{ head + "beside,1,m,1,0,1.5,n,1,0\n", "f:3: kind 'beside': expected row, "
							  "correction, loader_need (a v2 store)" },
		{ head3 + "beside,1,m,0,0,1.5,n,1,0\n", "f:3: beside: two valid models" },
		{ head3 + "beside,1,m,9,0,1.5,n,1,0\n", "f:3: beside:" },
		{ head3 + "beside,1,m,1,1,1.5,n,1,0\n", "f:3: beside:" },
		{ head3 + "beside,1,m,1,0,0,n,1,0\n", "f:3: beside:" },
		{ head3 + "beside,1,m,1,0,101,n,1,0\n", "f:3: beside:" },
		{ head3 + "beside,1,m,1,0,2,,1,0\n", "f:3: beside:" },
		{ head3 + "beside,1,m,1,0,2,bad model,1,0\n", "f:3: beside:" },
		{ head + "signals,1,m,1,0,50,50,1,0\n", "f:3: kind 'signals'" },
		{ head3 + "signals,1,m,1,0,50,,1,0\n", "f:3: signals: a valid model" },
		{ head3 + "signals,1,m,1,0,50,101,1,0\n", "f:3: signals:" },
		{ head3 + "signals,1,m,0,0,50,50,1,0\n", "f:3: signals:" },
		{ head3 + "signals,1,m,1,2,50,50,1,0\n", "f:3: signals:" },
	};
	for (const auto &c : cases) {
		auto r = ProfileStore::parse(c.text, "f");
		ck_assert_msg(!r.ok(), "accepted: %s", c.text.c_str());
		ck_assert_msg(r.error().rfind(c.error, 0) == 0, "'%s' does not start with '%s'",
			      r.error().c_str(), c.error.c_str());
	}
}
END_TEST

// ---- the file ----------------------------------------------------------

START_TEST(test_missing_file_is_an_empty_store_and_a_save_reads_back)
{
	std::string dir = temp_dir(), path = dir + "/profile_store";
	auto empty = load_store(path);
	ck_assert(empty.ok());
	ck_assert_int_eq(empty.value().row_count(), 0);
	ck_assert(stamp_of(path) == StoreStamp());
	ProfileStore s;
	s.apply(StoreOp::add_row(7, row("m", 2, 3.5, 9)));
	ck_assert_string_eq(save_store(path, s), "");
	struct stat st;
	ck_assert_int_eq(stat(path.c_str(), &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0600);
	auto back = load_store(path);
	ck_assert(back.ok());
	ck_assert_string_eq(back.value().serialize(), s.serialize());
	rm_dir(dir);
}
END_TEST

START_TEST(test_two_writers_merge_and_the_stamp_tells_who_wrote)
{
	std::string dir = temp_dir(), path = dir + "/state/profile_store";
	StoreStamp mine;
	ProfileStore result;
	// slurmctld saves what a job measured (creating the directory) ...
	ck_assert_string_eq(merge_save(path, { StoreOp::add_row(7, row("m", 1, 9, 1)) }, {},
				       &result, nullptr, &mine),
			    "");
	ck_assert(mine == stamp_of(path));
	ck_assert(mine != StoreStamp());
	// ... omru-profile imports a site row: slurmctld sees another stamp ...
	ck_assert_string_eq(merge_save(path,
				       { StoreOp::add_row(kSiteUid, row("m", 2, 5, 2, 0,
									 RowSource::Site)) },
				       {}, nullptr, nullptr),
			    "");
	ck_assert(stamp_of(path) != mine);
	// ... and its next save keeps both.
	ck_assert_string_eq(merge_save(path, { StoreOp::add_row(7, row("m", 4, 3, 3)) }, {},
				       &result, nullptr, &mine),
			    "");
	ck_assert_string_eq(gpus_of(result.rows(7, "m")), "1,4");
	ck_assert_string_eq(gpus_of(result.rows(kSiteUid, "m")), "2");
	ck_assert_string_eq(read_file(path), result.serialize());
	rm_dir(dir);
}
END_TEST

// slurmctld's side through the C API: a batch tells when omru-profile
// changed the file (the glue logs it), not when slurmctld itself wrote.
START_TEST(test_controller_batch_tells_when_another_writer_changed_the_file)
{
	std::string dir = temp_dir(), path = dir + "/omru/profile_store";
	omru_ctl_t *c = omru_ctl_create();
	char err[256];
	ck_assert_int_eq(omru_ctl_configure(c, "/nonexistent/omru.conf", dir.c_str(), err,
					    sizeof(err)),
			 OMRU_OK);
	ck_assert_int_eq(omru_ctl_store_load(c, err, sizeof(err)), OMRU_OK);
	auto sync = [&](int *from_disk) {
		omru_store_batch_t *b = omru_ctl_store_take(c);
		ck_assert_ptr_nonnull(b);
		ck_assert_int_eq(omru_store_batch_save(b, err, sizeof(err)), OMRU_OK);
		*from_disk = omru_store_batch_from_disk(b);
		return omru_ctl_store_install(c, b);
	};
	int from_disk = -1;
	ck_assert_int_eq(sync(&from_disk), 0); // no file, nothing of ours
	ck_assert_int_eq(from_disk, 0);
	ck_assert_string_eq(merge_save(path, { StoreOp::add_row(kSiteUid, row("m", 2, 5, 2, 0,
									       RowSource::Site)) },
				       {}, nullptr, nullptr),
			    "");
	ck_assert_int_eq(sync(&from_disk), 1); // omru-profile wrote: re-read
	ck_assert_int_eq(from_disk, 1);
	ck_assert_int_eq(sync(&from_disk), 0); // unchanged since
	ck_assert_int_eq(from_disk, 0);
	ck_assert_int_eq(omru_store_batch_from_disk(nullptr), 0);
	omru_ctl_destroy(c);
	rm_dir(dir);
}
END_TEST

START_TEST(test_a_file_that_does_not_load_is_kept_and_nothing_is_saved)
{
	// It holds every user's rows and the site's imports: a bad line (or
	// an EIO, EMFILE) must not turn into an empty store that overwrites it.
	std::string dir = temp_dir(), path = dir + "/profile_store";
	write_file(path, "garbage\n");
	auto bad = load_store(path);
	ck_assert(!bad.ok());
	ck_assert_msg(bad.error().rfind(path + ":1: not an omru profile store", 0) == 0, "%s",
		      bad.error().c_str());
	std::vector<std::string> warnings;
	ProfileStore result;
	std::string e = merge_save(path, { StoreOp::add_row(7, row("m", 1, 9, 1)) }, {},
				   &result, &warnings);
	ck_assert_msg(e.find("the store is kept as it is and these 1 change(s) are not "
			     "saved") != std::string::npos, "%s", e.c_str());
	ck_assert_string_eq(read_file(path), "garbage\n");
	ck_assert_int_eq(access((path + ".corrupt").c_str(), F_OK), -1);
	ck_assert_int_eq(result.row_count(), 0);
	rm_dir(dir);
}
END_TEST

START_TEST(test_planted_lock_and_temp_files_are_never_written_through)
{
	// Someone who can write the state directory links the lock and the
	// next temp file to a file of theirs (as root, /etc/shadow): the
	// lock is refused, the temp file replaced, the target untouched.
	std::string dir = temp_dir(), path = dir + "/profile_store";
	write_file(dir + "/victim", "precious\n");
	ck_assert_int_eq(link((dir + "/victim").c_str(), (path + ".lock").c_str()), 0);
	std::string e = merge_save(path, { StoreOp::add_row(7, row("m", 1, 9, 1)) }, {},
				   nullptr, nullptr);
	ck_assert_msg(e.find("not a plain lock file") != std::string::npos, "%s", e.c_str());
	unlink((path + ".lock").c_str());
	std::string tmp = path + ".tmp." + std::to_string(getpid());
	ck_assert_int_eq(link((dir + "/victim").c_str(), tmp.c_str()), 0);
	ck_assert_string_eq(merge_save(path, { StoreOp::add_row(7, row("m", 1, 9, 1)) }, {},
				       nullptr, nullptr),
			    "");
	ck_assert_string_eq(read_file(dir + "/victim"), "precious\n");
	ck_assert(load_store(path).value().knows(7, "m"));
	rm_dir(dir);
}
END_TEST

START_TEST(test_one_user_flooding_rows_cannot_push_out_anothers)
{
	// Each user's lines are bounded on their own: a user reporting rows
	// for ever more models and counts loses its own oldest ones, never
	// another user's or the site's.
	StoreLimits l;
	l.lines_per_user = 10;
	l.site_lines = 4;
	ProfileStore s(l);
	s.apply(StoreOp::add_row(2, row("honest", 1, 10, 5)));
	s.apply(StoreOp::add_row(kSiteUid, row("honest", 2, 6, 5)));
	for (int m = 0; m < 40; m++)
		for (int g = 1; g <= 8; g++)
			s.apply(StoreOp::add_row(1, row("flood" + std::to_string(m), g, 10, 100 + m * 8 + g)));
	size_t lines = 0;
	for (const std::string &m : s.models(1))
		lines += s.rows(1, m).size();
	ck_assert_int_eq(lines, 10);
	ck_assert(s.knows(1, "flood39")); // the newest stay
	ck_assert(!s.knows(1, "flood0"));
	ck_assert(s.knows(2, "honest") && s.knows(kSiteUid, "honest"));
	// The site's own bound: its oldest imports go.
	for (int g = 1; g <= 6; g++)
		s.apply(StoreOp::add_row(kSiteUid, row("site" + std::to_string(g), 1, 5, 10 + g)));
	ck_assert_int_eq(s.models(kSiteUid).size(), 4);
	ck_assert(!s.knows(kSiteUid, "honest"));
}
END_TEST

START_TEST(test_a_full_store_stays_within_the_load_cap)
{
	// Lines at their longest (64-character model, 10-digit uid and job
	// id, 24-digit epoch time): each fits kMaxStoreLineBytes, so the
	// bounds' product (static_assert in store_file.hpp) holds in bytes.
	ProfileStore s;
	StoreRow r = row(std::string(64, 'm'), 65536, 1.2345678901234567e-4, INT64_MAX / 2);
	r.nodes = 65536;
	r.job_id = 4294967295u;
	ck_assert(s.apply(StoreOp::add_row(4294967294u, r)));
	ck_assert(s.apply(StoreOp::set_correction(4294967294u, r.model, 0.0123456789012345,
						  INT64_MAX / 2)));
	ck_assert(s.apply(StoreOp::set_loader_need(4294967294u, r.model, 256, INT64_MAX / 2)));
	BesideRow b;
	b.neighbour = std::string(64, 'n');
	b.slowdown = 1.2345678901234567;
	b.runs = kMaxBesideRuns;
	b.when = INT64_MAX / 2;
	b.job_id = 4294967295u;
	ck_assert(s.apply(StoreOp::add_beside(4294967294u, r.model, b)));
	std::string text = s.serialize();
	ck_assert(text.find("beside,") != std::string::npos);
	size_t start = text.find('\n', text.find('\n') + 1) + 1; // after the header
	for (size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1)
		ck_assert_int_le(nl + 1 - start, kMaxStoreLineBytes);
}
END_TEST

START_TEST(test_oversized_or_odd_files_are_refused)
{
	std::string dir = temp_dir(), path = dir + "/profile_store";
	{
		std::ofstream f(path);
		f << "# omru profile store v1\n";
		f << std::string(kMaxStoreBytes, '\n');
	}
	auto big = load_store(path);
	ck_assert(!big.ok());
	ck_assert_msg(big.error().find("larger than 48 MiB") != std::string::npos, "%s",
		      big.error().c_str());
	unlink(path.c_str());
	ck_assert_int_eq(mkdir(path.c_str(), 0700), 0);
	ck_assert(!load_store(path).ok());
	rmdir(path.c_str());
	ck_assert_int_eq(symlink("/etc/passwd", path.c_str()), 0);
	ck_assert(!load_store(path).ok()); // never follows a link
	rm_dir(dir);
}
END_TEST

// ---- where omru-profile finds it -----------------------------------------

START_TEST(test_state_save_location_is_read_as_slurm_reads_it)
{
	ck_assert_string_eq(state_save_location("ClusterName=x\n"), "");
	ck_assert_string_eq(state_save_location("StateSaveLocation=/a\n"
						"# StateSaveLocation=/commented\n"
						"SlurmctldHost=h statesavelocation=/b  # last wins\n"),
			    "/b");
	ck_assert_string_eq(state_save_location("  StateSaveLocation=/c"), "/c");
	ck_assert_string_eq(state_save_location("MyStateSaveLocation=/d\n"), "");
}
END_TEST

START_TEST(test_store_is_found_from_omru_conf_then_slurm_conf)
{
	std::string dir = temp_dir();
	const std::string slurm_conf = dir + "/slurm.conf";
	auto none = locate_store(std::nullopt, slurm_conf);
	ck_assert(!none.ok());
	ck_assert_msg(none.error().find("--store") != std::string::npos, "%s",
		      none.error().c_str());
	write_file(slurm_conf, "ClusterName=x\n");
	ck_assert_string_eq(locate_store(std::nullopt, slurm_conf).value().path,
			    "/var/spool/omru/profile_store");
	write_file(slurm_conf, "StateSaveLocation=/var/lib/slurm/slurmctld\n");
	ck_assert_string_eq(locate_store(std::nullopt, slurm_conf).value().path,
			    "/var/lib/slurm/slurmctld/omru/profile_store");
	write_file(dir + "/omru.conf", "StateDir=/srv/omru\nProfileFile=/p.csv\n");
	auto loc = locate_store(std::nullopt, slurm_conf);
	ck_assert_string_eq(loc.value().path, "/srv/omru/profile_store");
	ck_assert_int_eq(loc.value().profile_files.size(), 1);
	ck_assert_string_eq(locate_store(std::string("/x/s"), slurm_conf).value().path, "/x/s");
	write_file(dir + "/omru.conf", "StateDir=relative\n");
	auto bad = locate_store(std::nullopt, slurm_conf);
	ck_assert(!bad.ok());
	ck_assert_msg(bad.error().find("omru.conf:1") != std::string::npos, "%s",
		      bad.error().c_str());
	rm_dir(dir);
}
END_TEST

// ---- the views -----------------------------------------------------------

START_TEST(test_curve_is_the_users_rows_over_the_sites)
{
	std::string dir = temp_dir();
	auto site = site_of(dir, "model,gpus,epoch_s\nm,1,100\nm,2,60\nm,4,40\n");
	ProfileStore s;
	s.apply(StoreOp::add_row(1000, row("m", 2, 50, 5)));
	auto user = view_model(s, site, 1000, "m", Cluster(1, 4));
	ck_assert(user.has_value());
	ck_assert_int_eq(user->rows.size(), 4); // 1 of the user's, 3 of the file
	ck_assert_string_eq(user->rows[0].source, "measured");
	ck_assert_string_eq(user->rows[1].owner, "(file)");
	ck_assert_int_eq(user->curve.size(), 4);
	ck_assert(user->curve[1].epoch_s == 50); // the user's own count
	ck_assert(user->curve[1].confidence == Confidence::Measured);
	ck_assert(user->curve[2].confidence != Confidence::Measured);
	ck_assert(user->curve[1].speedup == 2);
	auto everyone = view_model(s, site, kSiteUid, "m", Cluster(1, 4));
	ck_assert(everyone->curve[1].epoch_s == 60);
	ck_assert(!view_model(s, site, 1000, "unknown", std::nullopt));
	rm_dir(dir);
}
END_TEST

START_TEST(test_a_correction_scales_the_site_rows_for_that_user_only)
{
	std::string dir = temp_dir();
	auto site = site_of(dir, "model,gpus,epoch_s\nm,1,100\nm,2,60\n");
	ProfileStore s;
	s.apply(StoreOp::set_correction(1000, "m", 1.5, 5));
	auto v = view_model(s, site, 1000, "m", Cluster(1, 2));
	ck_assert(v->correction == 1.5);
	ck_assert(v->curve[0].epoch_s == 150);
	ck_assert(view_model(s, site, 1001, "m", Cluster(1, 2))->curve[0].epoch_s == 100);
	rm_dir(dir);
}
END_TEST

START_TEST(test_default_curve_covers_the_largest_row)
{
	std::string dir = temp_dir();
	auto site = site_of(dir, "model,gpus,epoch_s,nodes\nm,1,100,\nm,12,10,2\n");
	auto v = view_model(ProfileStore(), site, kSiteUid, "m", std::nullopt);
	ck_assert_int_eq(v->cluster.nodes, 2);
	ck_assert_int_eq(v->cluster.gpus_per_node, 8);
	ck_assert_int_eq(v->curve.size(), 16);
	rm_dir(dir);
}
END_TEST

START_TEST(test_list_shows_each_owner_and_the_files)
{
	std::string dir = temp_dir();
	auto site = site_of(dir, "model,gpus,epoch_s\nf,1,100\nf,2,60\n");
	ProfileStore s;
	s.apply(StoreOp::add_row(1000, row("m", 2, 50, 5)));
	s.apply(StoreOp::add_row(1001, row("m", 1, 90, 7)));
	s.apply(StoreOp::add_row(kSiteUid, row("g", 4, 20, 9, 0, RowSource::Site)));
	s.apply(StoreOp::set_correction(1000, "m", 2, 6));
	Who all;
	auto lines = list_models(s, site, all);
	ck_assert_int_eq(lines.size(), 4);
	ck_assert_int_eq(lines[0].uid, 1000);
	ck_assert(lines[0].correction == 2);
	ck_assert_int_eq(lines[0].newest, 5);
	ck_assert_string_eq(lines[2].owner, "(site)");
	ck_assert_string_eq(lines[3].owner, "(file)");
	ck_assert_int_eq(lines[3].rows, 2);
	Who one;
	one.kind = Who::Kind::User;
	one.uid = 1001;
	lines = list_models(s, site, one);
	ck_assert_int_eq(lines.size(), 3);
	ck_assert_int_eq(lines[0].uid, 1001);
	Who site_only;
	site_only.kind = Who::Kind::Site;
	ck_assert_int_eq(list_models(s, site, site_only).size(), 2);
	std::ostringstream json;
	write_list(json, list_models(s, site, all), true);
	ck_assert_msg(json.str().find("\"uid\": 1000, \"model\": \"m\", \"rows\": 1, "
				      "\"gpus\": [2], \"sources\": [\"measured\"]") !=
			      std::string::npos,
		      "%s", json.str().c_str());
	rm_dir(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("profile_store");
	TCase *store = tcase_create("store");
	tcase_add_test(store, test_rows_come_back_sorted_and_a_newer_row_replaces_its_count);
	tcase_add_test(store, test_one_users_rows_are_not_anothers);
	tcase_add_test(store, test_invalid_rows_and_factors_are_ignored);
	tcase_add_test(store, test_oldest_row_goes_first_when_a_model_is_full);
	tcase_add_test(store, test_stalest_model_then_stalest_user_go_when_full);
	tcase_add_test(store, test_corrections_and_forgetting);
	tcase_add_test(store, test_loader_need_is_kept_per_user_and_model);
	tcase_add_test(store, test_a_loader_need_alone_is_no_row);
	tcase_add_test(store, test_invalid_loader_needs_are_ignored);
	tcase_add_test(store, test_forgetting_drops_the_loader_need);
	tcase_add_test(store, test_a_loader_need_counts_as_a_model_in_the_bounds);
	tcase_add_test(store, test_beside_is_a_running_mean_per_user_model_and_neighbour);
	tcase_add_test(store, test_beside_follows_a_change_within_a_few_jobs);
	tcase_add_test(store, test_beside_lines_count_in_the_bounds_and_go_oldest_first);
	tcase_add_test(store, test_solo_signals_are_a_running_mean_per_user_and_model);
	suite_add_tcase(s, store);
	TCase *text = tcase_create("text");
	tcase_add_test(text, test_text_reads_back_exactly);
	tcase_add_test(text, test_text_that_is_not_a_store_is_refused_with_its_line);
	tcase_add_test(text, test_loader_need_is_written_as_its_own_line_and_reads_back);
	tcase_add_test(text, test_a_v1_store_still_reads_and_is_written_as_v3);
	tcase_add_test(text, test_beside_reads_back_and_forgetting_a_model_drops_its_pairs);
	suite_add_tcase(s, text);
	TCase *file = tcase_create("file");
	tcase_add_test(file, test_missing_file_is_an_empty_store_and_a_save_reads_back);
	tcase_add_test(file, test_two_writers_merge_and_the_stamp_tells_who_wrote);
	tcase_add_test(file, test_controller_batch_tells_when_another_writer_changed_the_file);
	tcase_add_test(file, test_a_file_that_does_not_load_is_kept_and_nothing_is_saved);
	tcase_add_test(file, test_one_user_flooding_rows_cannot_push_out_anothers);
	tcase_add_test(file, test_planted_lock_and_temp_files_are_never_written_through);
	tcase_add_test(file, test_a_full_store_stays_within_the_load_cap);
	tcase_add_test(file, test_oversized_or_odd_files_are_refused);
	suite_add_tcase(s, file);
	TCase *where = tcase_create("location");
	tcase_add_test(where, test_state_save_location_is_read_as_slurm_reads_it);
	tcase_add_test(where, test_store_is_found_from_omru_conf_then_slurm_conf);
	suite_add_tcase(s, where);
	TCase *view = tcase_create("views");
	tcase_add_test(view, test_curve_is_the_users_rows_over_the_sites);
	tcase_add_test(view, test_a_correction_scales_the_site_rows_for_that_user_only);
	tcase_add_test(view, test_default_curve_covers_the_largest_row);
	tcase_add_test(view, test_list_shows_each_owner_and_the_files);
	suite_add_tcase(s, view);
	return run_suite(s);
}
