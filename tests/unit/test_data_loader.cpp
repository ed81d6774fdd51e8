// test_data_loader.cpp - the loader hands out every sample of its rank's
// shard once per epoch, in order, whatever the number of workers and
// however it is resized; its preprocessing is the standard CIFAR-10 one;
// it shuts down cleanly and counts the time the consumer waits; any
// SampleSet (another image side, a sample that fails) goes through it.
#include "check_cxx.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "trainer/data_loader.hpp"

using namespace omru::train;

// 512 records: with batch 48 an epoch is cut to 480 (10 batches, or 5 per
// rank for two ranks), so the dropped tail is exercised too.
static std::shared_ptr<const CifarSet> data512()
{
	static auto set = std::make_shared<const CifarSet>(make_synthetic_cifar(512, 11));
	return set;
}

static LoaderOptions options(size_t batch, int workers, bool augment = false)
{
	LoaderOptions o;
	o.batch_size = batch;
	o.workers = workers;
	o.prefetch = 2;
	o.augment = augment;
	o.seed = 5;
	return o;
}

// The records of one epoch, in the order the loader hands them out.
static std::vector<uint32_t> epoch_records(DataLoader &l, int epoch)
{
	l.start_epoch(epoch);
	std::vector<uint32_t> out;
	while (auto b = l.next())
		out.insert(out.end(), b->indices.begin(), b->indices.end());
	return out;
}

static std::vector<uint32_t> epoch_records(LoaderOptions o, int epoch)
{
	DataLoader l(data512(), o);
	return epoch_records(l, epoch);
}

static bool all_distinct(const std::vector<uint32_t> &v)
{
	return std::set<uint32_t>(v.begin(), v.end()).size() == v.size();
}

START_TEST(test_one_epoch_yields_every_sample_of_the_shard_once_in_order)
{
	DataLoader l(data512(), options(48, 2));
	ck_assert_int_eq(l.batches_per_epoch(), 10);
	l.start_epoch(0);
	std::vector<uint32_t> seen;
	for (size_t k = 0; k < 10; k++) {
		std::optional<Batch> b = l.next();
		ck_assert(b.has_value());
		ck_assert_int_eq(b->number, k);
		ck_assert_int_eq(b->indices.size(), 48);
		ck_assert(b->images.sizes() == torch::IntArrayRef({ 48, 3, 32, 32 }));
		ck_assert(b->images.dtype() == torch::kFloat32);
		ck_assert(b->labels.sizes() == torch::IntArrayRef({ 48 }));
		ck_assert(b->labels.dtype() == torch::kInt64);
		for (size_t i = 0; i < 48; i++)
			ck_assert_int_eq(b->labels[i].item<int64_t>(),
					 data512()->labels[b->indices[i]]);
		seen.insert(seen.end(), b->indices.begin(), b->indices.end());
	}
	ck_assert(!l.next().has_value());
	ck_assert(!l.next().has_value()); // and stays at the end
	ck_assert_int_eq(seen.size(), 480);
	ck_assert(all_distinct(seen));
	for (uint32_t r : seen)
		ck_assert_int_lt(r, 512);
}
END_TEST

START_TEST(test_next_before_the_first_epoch_returns_nothing)
{
	DataLoader l(data512(), options(48, 1));
	ck_assert(!l.next().has_value());
}
END_TEST

START_TEST(test_ranks_take_every_world_th_sample_of_the_same_permutation)
{
	LoaderOptions o = options(48, 2);
	std::vector<uint32_t> all = epoch_records(o, 3); // 480: the whole cut
	o.world = 2;
	o.rank = 0;
	std::vector<uint32_t> r0 = epoch_records(o, 3);
	o.rank = 1;
	std::vector<uint32_t> r1 = epoch_records(o, 3);
	// 512 / (2 x 48) = 5 batches each: 2 x 5 x 48 = 480 samples.
	ck_assert_int_eq(r0.size(), 240);
	ck_assert_int_eq(r1.size(), 240);
	for (size_t i = 0; i < 240; i++) {
		ck_assert_int_eq(r0[i], all[2 * i]);
		ck_assert_int_eq(r1[i], all[2 * i + 1]);
	}
	std::vector<uint32_t> both = r0;
	both.insert(both.end(), r1.begin(), r1.end());
	ck_assert(all_distinct(both)); // disjoint shards
}
END_TEST

// A run stopped after k steps on one world size resumes the epoch on
// another: the samples left are those the uninterrupted epoch had left, in
// the same permutation, cut to whole global batches of the new world.
START_TEST(test_a_resumed_epoch_goes_on_where_the_stopped_one_was)
{
	LoaderOptions o = options(16, 2);
	std::vector<uint32_t> all = epoch_records(o, 2); // 512 / 16 = 32 batches
	ck_assert_int_eq(all.size(), 512);
	// 3 steps on 4 ranks took 3 x 4 x 16 = 192 samples; resume on 2.
	const size_t skip = 192;
	std::vector<uint32_t> rest;
	o.world = 2;
	for (int r = 0; r < 2; r++) {
		o.rank = r;
		DataLoader l(data512(), o);
		l.start_epoch(2, skip);
		ck_assert_int_eq(l.batches_this_epoch(), (512 - skip) / 32);
		ck_assert_int_eq(l.batches_per_epoch(), 512 / 32);
		std::vector<uint32_t> got;
		while (auto b = l.next())
			got.insert(got.end(), b->indices.begin(), b->indices.end());
		for (size_t i = 0; i < got.size(); i++)
			ck_assert_int_eq(got[i], all[skip + r + 2 * i]);
		rest.insert(rest.end(), got.begin(), got.end());
		// The next epoch is whole again.
		l.start_epoch(3);
		ck_assert_int_eq(l.batches_this_epoch(), 512 / 32);
	}
	ck_assert_int_eq(rest.size(), 512 - skip);
	std::vector<uint32_t> expect(all.begin() + skip, all.end());
	std::sort(rest.begin(), rest.end());
	std::sort(expect.begin(), expect.end());
	ck_assert(rest == expect);
	// Past the end: nothing left this epoch.
	DataLoader l(data512(), o);
	l.start_epoch(2, 600);
	ck_assert_int_eq(l.batches_this_epoch(), 0);
	ck_assert(!l.next().has_value());
}
END_TEST

START_TEST(test_same_seed_and_epoch_give_the_same_order_another_epoch_another)
{
	LoaderOptions o = options(48, 2);
	std::vector<uint32_t> e0 = epoch_records(o, 0);
	ck_assert(epoch_records(o, 0) == e0);
	std::vector<uint32_t> e1 = epoch_records(o, 1);
	ck_assert(e1 != e0);
	o.seed = 6;
	ck_assert(epoch_records(o, 0) != e0);
}
END_TEST

START_TEST(test_restarting_an_epoch_midway_starts_it_over)
{
	std::vector<uint32_t> want = epoch_records(options(16, 3), 2);
	DataLoader l(data512(), options(16, 3));
	l.start_epoch(7);
	for (int i = 0; i < 3; i++)
		ck_assert(l.next().has_value());
	// Abandons epoch 7 with batches queued and in flight.
	ck_assert(epoch_records(l, 2) == want);
}
END_TEST

START_TEST(test_resizing_the_pool_mid_epoch_loses_and_repeats_no_sample)
{
	std::vector<uint32_t> want = epoch_records(options(16, 1), 4);
	DataLoader l(data512(), options(16, 1)); // 32 batches
	l.start_epoch(4);
	std::vector<uint32_t> got;
	auto take = [&](int n) {
		for (int i = 0; i < n; i++) {
			std::optional<Batch> b = l.next();
			ck_assert(b.has_value());
			ck_assert_int_eq(b->number, got.size() / 16);
			got.insert(got.end(), b->indices.begin(), b->indices.end());
		}
	};
	take(5);
	l.set_workers(4);
	ck_assert_int_eq(l.workers(), 4);
	take(5);
	l.set_workers(2);
	take(5);
	l.set_workers(1);
	l.set_workers(3);
	take(17);
	ck_assert(!l.next().has_value());
	ck_assert_int_eq(l.workers(), 3);
	ck_assert(got == want);
}
END_TEST

START_TEST(test_preprocess_without_augmentation_normalises_each_channel)
{
	std::vector<uint8_t> img(kCifarImageBytes, 0);
	img[0] = 255;           // R (0, 0)
	img[1024] = 0;          // G (0, 0)
	img[2048] = 128;        // B (0, 0)
	img[5 * 32 + 3] = 200;  // R (3, 5)
	std::vector<float> out(kCifarImageBytes);
	preprocess_image(img.data(), out.data(), false, 0, 0, false);
	// (v / 255 - mean) / std, worked out by hand.
	ck_assert_float_eq_tol(out[0], 2.0591093f, 1e-5f);
	ck_assert_float_eq_tol(out[1024], -1.9802875f, 1e-5f);
	ck_assert_float_eq_tol(out[2048], 0.2120061f, 1e-5f);
	ck_assert_float_eq_tol(out[5 * 32 + 3], 1.1858855f, 1e-5f);
	ck_assert_float_eq_tol(out[1], -1.9894737f, 1e-5f); // R 0
	ck_assert_float_eq_tol(out[2049], -1.7068043f, 1e-5f); // B 0
}
END_TEST

// A black image with one white red pixel at (x 5, y 7).
static std::vector<float> augmented_dot(int dx, int dy, bool flip)
{
	std::vector<uint8_t> img(kCifarImageBytes, 0);
	img[7 * 32 + 5] = 255;
	std::vector<float> out(kCifarImageBytes);
	preprocess_image(img.data(), out.data(), true, dx, dy, flip);
	return out;
}

// Where the white pixel of the red plane ended up, as y * 32 + x.
static int white_at(const std::vector<float> &out)
{
	int at = -1;
	for (int i = 0; i < 1024; i++)
		if (out[i] > 2.0f) {
			ck_assert_int_eq(at, -1); // exactly one
			at = i;
		}
	return at;
}

START_TEST(test_augmentation_moves_and_flips_a_known_pixel)
{
	// Output (x, y) shows padded (dx + x, dy + y) = source (dx + x - 4,
	// dy + y - 4): source (5, 7) lands at (9 - dx, 11 - dy).
	ck_assert_int_eq(white_at(augmented_dot(4, 4, false)), 7 * 32 + 5);
	ck_assert_int_eq(white_at(augmented_dot(2, 6, false)), 5 * 32 + 7);
	ck_assert_int_eq(white_at(augmented_dot(8, 0, false)), 11 * 32 + 1);
	// Flipped: x becomes 31 - x after the crop.
	ck_assert_int_eq(white_at(augmented_dot(2, 6, true)), 5 * 32 + 24);
	ck_assert_int_eq(white_at(augmented_dot(4, 4, true)), 7 * 32 + 26);
}
END_TEST

START_TEST(test_augmentation_pads_with_black)
{
	std::vector<uint8_t> img(kCifarImageBytes, 255);
	std::vector<float> out(kCifarImageBytes);
	// Crop at (0, 8): the four left columns and four bottom rows are
	// padding, the rest white.
	preprocess_image(img.data(), out.data(), true, 0, 8, false);
	const float black[3] = { -1.9894737f, -1.9802875f, -1.7068042f };
	for (int c = 0; c < 3; c++)
		for (int y = 0; y < 32; y++)
			for (int x = 0; x < 32; x++) {
				float v = out[(c * 32 + y) * 32 + x];
				bool pad = x < 4 || y >= 28;
				ck_assert_msg(pad ? std::abs(v - black[c]) < 1e-5 : v > 1.5f,
					      "channel %d (%d, %d): %f", c, x, y, v);
			}
}
END_TEST

START_TEST(test_batches_hold_the_preprocessed_records)
{
	DataLoader l(data512(), options(48, 2));
	l.start_epoch(0);
	std::optional<Batch> b = l.next();
	std::vector<float> want(kCifarImageBytes);
	for (size_t i = 0; i < 48; i++) {
		preprocess_image(data512()->image(b->indices[i]), want.data(), false, 0, 0,
				 false);
		ck_assert(std::equal(want.begin(), want.end(),
				     b->images[i].data_ptr<float>()));
	}
}
END_TEST

START_TEST(test_augmented_samples_are_crops_and_flips_of_their_records)
{
	DataLoader l(data512(), options(48, 2, true));
	l.start_epoch(0);
	std::optional<Batch> b = l.next();
	std::vector<float> cand(kCifarImageBytes);
	std::set<int> used; // distinct (dx, dy, flip) seen
	for (size_t i = 0; i < 48; i++) {
		const float *got = b->images[i].data_ptr<float>();
		int match = -1;
		for (int k = 0; k < 9 * 9 * 2 && match < 0; k++) {
			preprocess_image(data512()->image(b->indices[i]), cand.data(), true,
					 k % 9, k / 9 % 9, k / 81);
			if (std::equal(cand.begin(), cand.end(), got))
				match = k;
		}
		ck_assert_msg(match >= 0, "sample %zu is no crop of its record", i);
		used.insert(match);
	}
	// 48 draws from 162 choices: many distinct ones, flips among them.
	ck_assert_int_gt(used.size(), 20);
	ck_assert_int_ge(*used.rbegin(), 81);
}
END_TEST

START_TEST(test_output_is_identical_for_one_and_four_workers)
{
	DataLoader one(data512(), options(16, 1, true));
	DataLoader four(data512(), options(16, 4, true));
	one.start_epoch(9);
	four.start_epoch(9);
	size_t n = 0;
	while (auto a = one.next()) {
		std::optional<Batch> b = four.next();
		ck_assert(b.has_value());
		ck_assert(a->indices == b->indices);
		ck_assert(torch::equal(a->images, b->images));
		ck_assert(torch::equal(a->labels, b->labels));
		n++;
	}
	ck_assert(!four.next().has_value());
	ck_assert_int_eq(n, 32);
}
END_TEST

START_TEST(test_destroying_a_loader_mid_epoch_with_a_full_queue_joins_its_workers)
{
	// A deadlock here shows as the test case's timeout.
	for (int round = 0; round < 20; round++) {
		auto l = std::make_unique<DataLoader>(data512(), options(16, 4, true));
		l->start_epoch(round);
		ck_assert(l->next().has_value());
		if (round % 2)
			std::this_thread::sleep_for(std::chrono::milliseconds(20)); // fills up
		l.reset();
	}
}
END_TEST

START_TEST(test_shrinking_and_destroying_right_away_joins_every_thread)
{
	for (int round = 0; round < 20; round++) {
		DataLoader l(data512(), options(16, 8, true));
		l.start_epoch(0);
		l.set_workers(1);
		l.set_workers(8);
		l.set_workers(2);
		ck_assert(l.next().has_value());
	}
}
END_TEST

START_TEST(test_wait_seconds_grows_when_the_consumer_outpaces_one_worker)
{
	LoaderOptions o = options(64, 1, true);
	o.prefetch = 1;
	DataLoader l(data512(), o);
	ck_assert(l.wait_seconds() == 0);
	// No work between batches: the consumer waits for nearly every one
	// (a few epochs, in case a loaded machine stalls it instead).
	for (int epoch = 0; epoch < 5; epoch++)
		epoch_records(l, epoch);
	ck_assert(l.wait_seconds() > 0);
	l.reset_wait();
	ck_assert(l.wait_seconds() == 0);
}
END_TEST

static std::string construct_error(std::shared_ptr<const CifarSet> data, LoaderOptions o)
{
	try {
		DataLoader l(data, o);
	} catch (const std::invalid_argument &e) {
		return e.what();
	}
	return "(no error)";
}

START_TEST(test_bad_options_are_rejected)
{
	LoaderOptions o = options(48, 2);
	o.batch_size = 0;
	ck_assert_string_eq(construct_error(data512(), o),
			    "data loader: batch_size must be >= 1");
	o = options(48, 0);
	ck_assert_string_eq(construct_error(data512(), o),
			    "data loader: workers 0 is not in 1..256");
	o = options(48, 257);
	ck_assert_string_eq(construct_error(data512(), o),
			    "data loader: workers 257 is not in 1..256");
	o = options(48, 2);
	o.prefetch = 0;
	ck_assert_string_eq(construct_error(data512(), o),
			    "data loader: prefetch must be >= 1");
	o = options(48, 2);
	o.world = 2;
	o.rank = 2;
	ck_assert_string_eq(construct_error(data512(), o),
			    "data loader: rank 2 is not in 0..1");
	o = options(300, 2);
	o.world = 2;
	ck_assert_string_eq(construct_error(data512(), o),
			    "data loader: 512 records are fewer than one global batch of 600");
	ck_assert_string_eq(construct_error(nullptr, options(48, 2)),
			    "CIFAR samples: no data set, or an inconsistent one");
	try {
		DataLoader none(std::shared_ptr<const SampleSet>(), options(48, 2));
		ck_abort_msg("a loader without a set was made");
	} catch (const std::invalid_argument &e) {
		ck_assert_string_eq(e.what(), "data loader: no data set, or an empty one");
	}

	DataLoader l(data512(), options(48, 2));
	try {
		l.set_workers(0);
		ck_abort_msg("set_workers(0) accepted");
	} catch (const std::invalid_argument &) {
	}
	ck_assert_int_eq(l.workers(), 2);
}
END_TEST

// Sample i is the constant i (every float), side 40, label i % 3; the
// record `bad` throws as a corrupt file would.
struct ConstantSet final : SampleSet {
	size_t n, bad;
	ConstantSet(size_t n_, size_t bad_) : n(n_), bad(bad_) {}
	size_t size() const override { return n; }
	int classes() const override { return 3; }
	int side() const override { return 40; }
	int label(size_t i) const override { return static_cast<int>(i % 3); }
	void load(size_t i, bool, SplitMix &, float *dst) const override
	{
		if (i == bad)
			throw std::runtime_error("record " + std::to_string(i) + ": corrupt");
		std::fill(dst, dst + 3 * 40 * 40, static_cast<float>(i));
	}
	std::string describe() const override { return "constants"; }
};

START_TEST(test_any_sample_set_fills_batches_of_its_side)
{
	auto set = std::make_shared<const ConstantSet>(64, 1000);
	DataLoader l(set, options(8, 3));
	l.start_epoch(2);
	size_t seen = 0;
	while (std::optional<Batch> b = l.next()) {
		ck_assert_int_eq(b->images.size(2), 40);
		ck_assert_int_eq(b->images.size(3), 40);
		for (size_t i = 0; i < 8; i++) {
			uint32_t r = b->indices[i];
			ck_assert_int_eq(b->labels[i].item<int64_t>(), r % 3);
			torch::Tensor img = b->images[i];
			ck_assert(img.min().item<float>() == static_cast<float>(r));
			ck_assert(img.max().item<float>() == static_cast<float>(r));
		}
		seen += 8;
	}
	ck_assert_int_eq(static_cast<int>(seen), 64);
	LoaderCounters c = l.counters();
	ck_assert_int_eq(static_cast<int>(c.images), 64);
	ck_assert(c.busy_s > 0);
}
END_TEST

START_TEST(test_a_sample_that_fails_fails_the_epoch_with_its_message)
{
	auto set = std::make_shared<const ConstantSet>(64, 17);
	DataLoader l(set, options(8, 2));
	l.start_epoch(0);
	try {
		while (l.next()) {
		}
		ck_abort_msg("the corrupt record went unnoticed");
	} catch (const std::runtime_error &e) {
		ck_assert_msg(std::string(e.what()).find("record 17: corrupt") != std::string::npos,
			      "%s", e.what());
	}
}
END_TEST

int main(void)
{
	// The workers fill buffers themselves; keep torch's own pool (used
	// by torch::equal) from competing with them.
	torch::set_num_threads(1);
	Suite *s = suite_create("data_loader");
	TCase *tc = tcase_create("loader");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_one_epoch_yields_every_sample_of_the_shard_once_in_order);
	tcase_add_test(tc, test_next_before_the_first_epoch_returns_nothing);
	tcase_add_test(tc, test_ranks_take_every_world_th_sample_of_the_same_permutation);
	tcase_add_test(tc, test_same_seed_and_epoch_give_the_same_order_another_epoch_another);
	tcase_add_test(tc, test_a_resumed_epoch_goes_on_where_the_stopped_one_was);
	tcase_add_test(tc, test_restarting_an_epoch_midway_starts_it_over);
	tcase_add_test(tc, test_resizing_the_pool_mid_epoch_loses_and_repeats_no_sample);
	tcase_add_test(tc, test_preprocess_without_augmentation_normalises_each_channel);
	tcase_add_test(tc, test_augmentation_moves_and_flips_a_known_pixel);
	tcase_add_test(tc, test_augmentation_pads_with_black);
	tcase_add_test(tc, test_batches_hold_the_preprocessed_records);
	tcase_add_test(tc, test_augmented_samples_are_crops_and_flips_of_their_records);
	tcase_add_test(tc, test_output_is_identical_for_one_and_four_workers);
	tcase_add_test(tc, test_destroying_a_loader_mid_epoch_with_a_full_queue_joins_its_workers);
	tcase_add_test(tc, test_shrinking_and_destroying_right_away_joins_every_thread);
	tcase_add_test(tc, test_wait_seconds_grows_when_the_consumer_outpaces_one_worker);
	tcase_add_test(tc, test_bad_options_are_rejected);
	tcase_add_test(tc, test_any_sample_set_fills_batches_of_its_side);
	tcase_add_test(tc, test_a_sample_that_fails_fails_the_epoch_with_its_message);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
