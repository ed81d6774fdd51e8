// batch_pool.cpp - see batch_pool.hpp.  The deleter of every tensor holds
// the pool's state by shared pointer: a batch may outlive the loader (the
// trainer keeps the last one, a test keeps several), and its buffer must
// then still have somewhere valid to go.
#include "trainer/batch_pool.hpp"

#include <cstdlib>
#include <mutex>
#include <new>

namespace omru {
namespace train {

struct BufferPool::State {
	size_t bytes = 0;
	size_t keep = 0;
	std::mutex mu;
	std::vector<void *> free_list;
	size_t allocated = 0;

	~State()
	{
		for (void *p : free_list)
			std::free(p);
	}

	void give(void *p)
	{
		{
			std::lock_guard<std::mutex> lk(mu);
			if (free_list.size() < keep) {
				free_list.push_back(p);
				return;
			}
		}
		std::free(p);
	}
};

BufferPool::BufferPool(std::vector<int64_t> shape, torch::ScalarType dtype, size_t keep)
	: state_(std::make_shared<State>()), shape_(std::move(shape)), dtype_(dtype)
{
	size_t n = 1;
	for (int64_t d : shape_)
		n *= static_cast<size_t>(d);
	// 64-byte aligned, rounded up to whole lines (aligned_alloc's rule).
	state_->bytes = (n * c10::elementSize(dtype_) + 63) / 64 * 64;
	if (state_->bytes == 0)
		state_->bytes = 64;
	state_->keep = keep;
}

torch::Tensor BufferPool::take()
{
	void *p = nullptr;
	{
		std::lock_guard<std::mutex> lk(state_->mu);
		if (!state_->free_list.empty()) {
			p = state_->free_list.back();
			state_->free_list.pop_back();
		} else {
			state_->allocated++;
		}
	}
	if (!p) {
		p = std::aligned_alloc(64, state_->bytes);
		if (!p)
			throw std::bad_alloc();
	}
	std::shared_ptr<State> st = state_;
	return torch::from_blob(
		p, shape_, [st](void *q) { st->give(q); },
		torch::TensorOptions().dtype(dtype_));
}

void BufferPool::set_keep(size_t keep)
{
	std::vector<void *> surplus;
	{
		std::lock_guard<std::mutex> lk(state_->mu);
		state_->keep = keep;
		while (state_->free_list.size() > keep) {
			surplus.push_back(state_->free_list.back());
			state_->free_list.pop_back();
		}
	}
	for (void *p : surplus)
		std::free(p);
}

size_t BufferPool::allocated() const
{
	std::lock_guard<std::mutex> lk(state_->mu);
	return state_->allocated;
}

} // namespace train
} // namespace omru
