// batch_pool.hpp - reusable batch buffers.  A loader that allocates a fresh
// B x 3 x S x S tensor for every batch pays the allocator (and, for large
// buffers, the kernel's page faults) on every step; this pool hands out
// tensors over buffers it keeps, and a tensor's buffer returns to the pool
// when the last reference to the tensor goes, wherever that happens (the
// training step, a dropped batch of an abandoned epoch, a test).
#ifndef OMRU_TRAINER_BATCH_POOL_HPP
#define OMRU_TRAINER_BATCH_POOL_HPP

#include <cstddef>
#include <memory>
#include <vector>

#include <torch/torch.h>

namespace omru {
namespace train {

class BufferPool {
    public:
	// Tensors of `shape` and `dtype`; at most `keep` free buffers are
	// kept (more returned ones are freed), so the pool's memory stays
	// bounded by what is in flight plus `keep`.
	BufferPool(std::vector<int64_t> shape, torch::ScalarType dtype, size_t keep);
	// A tensor over a pooled buffer; its contents are whatever the last
	// user left (callers overwrite every element).  Throws std::bad_alloc.
	torch::Tensor take();
	// Changes how many free buffers are kept (the loader's pool grew).
	void set_keep(size_t keep);
	// Buffers allocated so far (for tests and the loader's log).
	size_t allocated() const;

    private:
	struct State;
	std::shared_ptr<State> state_; // shared with every tensor's deleter
	std::vector<int64_t> shape_;
	torch::ScalarType dtype_;
};

} // namespace train
} // namespace omru

#endif
