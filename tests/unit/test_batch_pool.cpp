// test_batch_pool.cpp - batch buffers are reused once their tensors are
// gone, the pool's free buffers stay bounded, a tensor outliving its pool
// is still valid, and the loader over a pool hands out distinct batches
// without allocating a buffer per batch.
#include "check_cxx.hpp"

#include <algorithm>
#include <vector>

#include "trainer/batch_pool.hpp"
#include "trainer/data_loader.hpp"

using namespace omru::train;

START_TEST(test_a_returned_buffer_is_reused)
{
	BufferPool pool({ 4, 3, 8, 8 }, torch::kFloat32, 2);
	void *first = nullptr;
	{
		torch::Tensor t = pool.take();
		ck_assert_int_eq(t.dim(), 4);
		ck_assert_int_eq(t.size(3), 8);
		ck_assert(t.scalar_type() == torch::kFloat32);
		first = t.data_ptr();
		t.fill_(1.5f);
	}
	torch::Tensor again = pool.take();
	ck_assert_ptr_eq(again.data_ptr(), first);
	ck_assert_int_eq(static_cast<int>(pool.allocated()), 1);
	// Buffers are 64-byte aligned (vectorised fills and copies).
	ck_assert_int_eq(reinterpret_cast<uintptr_t>(again.data_ptr()) % 64, 0);
}
END_TEST

START_TEST(test_live_tensors_get_distinct_buffers_and_the_free_list_is_bounded)
{
	BufferPool pool({ 16 }, torch::kInt64, 2);
	std::vector<torch::Tensor> live;
	for (int i = 0; i < 5; i++) {
		live.push_back(pool.take());
		live.back().fill_(i);
	}
	ck_assert_int_eq(static_cast<int>(pool.allocated()), 5);
	for (int i = 0; i < 5; i++)
		ck_assert_int_eq(live[i][0].item<int64_t>(), i); // no sharing
	live.clear(); // 2 kept, 3 freed
	for (int i = 0; i < 2; i++)
		live.push_back(pool.take());
	ck_assert_int_eq(static_cast<int>(pool.allocated()), 5);
	live.push_back(pool.take()); // the free list was only 2 long
	ck_assert_int_eq(static_cast<int>(pool.allocated()), 6);
}
END_TEST

START_TEST(test_a_tensor_may_outlive_its_pool)
{
	torch::Tensor t;
	{
		BufferPool pool({ 1024 }, torch::kFloat32, 4);
		t = pool.take();
		t.fill_(2.0f);
	}
	ck_assert(t.sum().item<float>() == 2048.0f);
}
END_TEST

START_TEST(test_the_loader_reuses_buffers_across_an_epoch)
{
	auto data = std::make_shared<const CifarSet>(make_synthetic_cifar(1024, 5));
	LoaderOptions o;
	o.batch_size = 8;
	o.workers = 2;
	o.prefetch = 2;
	DataLoader loader(data, o);
	loader.start_epoch(0);
	std::vector<void *> seen;
	size_t batches = 0;
	while (std::optional<Batch> b = loader.next()) {
		ck_assert_int_eq(b->images.size(0), 8);
		seen.push_back(b->images.data_ptr());
		batches++;
	}
	ck_assert_int_eq(static_cast<int>(batches), 128);
	std::sort(seen.begin(), seen.end());
	seen.erase(std::unique(seen.begin(), seen.end()), seen.end());
	// In flight at once: prefetch + workers + the one the consumer holds.
	ck_assert_msg(seen.size() <= 8, "%zu distinct buffers for 128 batches", seen.size());
	LoaderCounters c = loader.counters();
	ck_assert(c.images >= 128 * 8);
	ck_assert(c.busy_s > 0);
	loader.reset_wait();
	ck_assert_int_eq(static_cast<int>(loader.counters().images), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("batch_pool");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_a_returned_buffer_is_reused);
	tcase_add_test(tc, test_live_tensors_get_distinct_buffers_and_the_free_list_is_bounded);
	tcase_add_test(tc, test_a_tensor_may_outlive_its_pool);
	tcase_add_test(tc, test_the_loader_reuses_buffers_across_an_epoch);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
