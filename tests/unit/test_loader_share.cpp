// test_loader_share.cpp - omru-train's side of the node's loader shares:
// the share file is read strictly (a half-written or bad file keeps what
// the trainer has), the follower resizes a running loader within a second
// of the file changing, and the measurement windows give the model's
// inputs (samples/s, wait fraction, per-worker rate) in the report format
// spank_omru reads back.
#include "check_cxx.hpp"

#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "loader/loader_entry.hpp"
#include "trainer/loader_share.hpp"

using namespace omru;
using namespace omru::train;

namespace {

std::string temp_file(const char *name)
{
	char tmpl[] = "/tmp/omru-share-test.XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	return std::string(tmpl) + "/" + name;
}

void spit(const std::string &path, const std::string &text)
{
	std::ofstream(path) << text;
}

} // namespace

START_TEST(test_share_files_are_read_strictly)
{
	std::string f = temp_file("share");
	ck_assert(!read_share_file(f)); // missing
	spit(f, "3\n");
	ck_assert_int_eq(*read_share_file(f), 3);
	spit(f, "256");
	ck_assert_int_eq(*read_share_file(f), 256);
	for (const char *bad : { "", "0\n", "257\n", "-1\n", "2.5\n", "x\n", " 3\n", "1000\n" }) {
		spit(f, bad);
		ck_assert_msg(!read_share_file(f), "accepted '%s'", bad);
	}
}
END_TEST

START_TEST(test_the_follower_resizes_a_running_loader_within_a_second)
{
	auto data = std::make_shared<const CifarSet>(make_synthetic_cifar(256, 3));
	LoaderOptions o;
	o.batch_size = 16;
	o.workers = 2;
	DataLoader loader(data, o);
	std::string f = temp_file("share");
	spit(f, "2\n");
	ShareFollower follow(f, loader, std::chrono::milliseconds(50));
	spit(f, "5\n");
	auto t0 = std::chrono::steady_clock::now();
	while (loader.workers() != 5 &&
	       std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5))
		std::this_thread::sleep_for(std::chrono::milliseconds(10));
	ck_assert_int_eq(loader.workers(), 5);
	ck_assert(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(1));
	// A bad file changes nothing; the loader still hands out batches.
	spit(f, "lots\n");
	std::this_thread::sleep_for(std::chrono::milliseconds(200));
	ck_assert_int_eq(loader.workers(), 5);
	loader.start_epoch(0);
	ck_assert(loader.next().has_value());
}
END_TEST

START_TEST(test_windows_give_the_models_inputs)
{
	LoaderWindow w(2.0);
	LoaderCounters c;
	ck_assert(!w.step(16, 2, c, 10.0)); // the first step starts a window
	c = { 0.5, 3.0, 300 };
	ck_assert(!w.step(100, 2, c, 11.0)); // 1 s: too short
	c = { 1.0, 6.0, 600 };
	auto s = w.step(100, 2, c, 12.0);    // 2 s, 200 samples
	ck_assert(s.has_value());
	ck_assert_int_eq(s->workers, 2);
	ck_assert_double_eq_tol(s->samples_s, 100, 1e-12);
	ck_assert_double_eq_tol(s->wait_fraction, 0.5, 1e-12);
	ck_assert_double_eq_tol(s->worker_rate, 100, 1e-12);
	// What the trainer writes is what spank_omru accepts.
	std::string f = temp_file("report");
	ck_assert(write_loader_report(f, *s));
	std::ifstream in(f);
	std::string line;
	std::getline(in, line);
	auto back = parse_loader_report(line);
	ck_assert_msg(back.ok(), "%s", back.error().c_str());
	ck_assert_double_eq(back.value().samples_s, 100);
	// A new epoch resets the loader's counters: the window restarts.
	w.restart({ 0.1, 0.2, 20 }, 20.0);
	ck_assert(!w.step(50, 2, { 0.1, 0.2, 20 }, 21.0));
	// Workers that made nothing give no rate, hence no sample.
	ck_assert(!w.step(50, 2, { 0.1, 0.2, 20 }, 23.0));
	// The window after that one is measured from 23 s.
	auto t = w.step(90, 2, { 0.4, 1.2, 120 }, 26.0);
	ck_assert(t.has_value());
	ck_assert_double_eq_tol(t->samples_s, 30, 1e-12);
	ck_assert_double_eq_tol(t->worker_rate, 100, 1e-12);
	// Epochs shorter than a window add up; the time between them (the
	// epoch's allreduce, a checkpoint) is not counted.
	w.restart({ 0, 0, 0 }, 100.0);
	ck_assert(!w.step(40, 2, { 0.2, 0.5, 50 }, 101.0));
	w.restart({ 0, 0, 0 }, 105.0); // 4 s between epochs
	auto u = w.step(40, 2, { 0.3, 0.5, 50 }, 106.0);
	ck_assert(u.has_value());
	ck_assert_double_eq_tol(u->samples_s, 40, 1e-12); // 80 samples in 2 s
	ck_assert_double_eq_tol(u->wait_fraction, 0.25, 1e-12);
	ck_assert_double_eq_tol(u->worker_rate, 100, 1e-12);
	// At the end of training the rest of the window counts when it is
	// long enough to mean something.
	ck_assert(!w.finish(2)); // nothing since 106 s
	ck_assert(!w.step(10, 2, { 0.3, 0.6, 60 }, 106.2));
	ck_assert(!w.finish(2));  // 0.2 s < 0.5 s
	ck_assert(!w.step(10, 2, { 0.3, 0.7, 70 }, 106.6));
	auto v = w.finish(2);
	ck_assert(v.has_value());
	ck_assert_double_eq_tol(v->samples_s, 20 / 0.6, 1e-9);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("loader_share");
	TCase *t = tcase_create("share");
	tcase_set_timeout(t, 30);
	tcase_add_test(t, test_share_files_are_read_strictly);
	tcase_add_test(t, test_the_follower_resizes_a_running_loader_within_a_second);
	tcase_add_test(t, test_windows_give_the_models_inputs);
	suite_add_tcase(s, t);
	return run_suite(s);
}
