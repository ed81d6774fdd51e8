// tensor_memory.cpp - see tensor_memory.hpp.
#include "tensor_memory.hpp"

#include <atomic>
#include <mutex>
#include <stdexcept>
#include <unordered_map>

#include <c10/core/CPUAllocator.h>

namespace omru {
namespace train {
namespace {

std::atomic<int64_t> live{ 0 }, peak{ 0 };
thread_local bool counted_thread = false;

// Its pointers are their own contexts, as raw_allocate() (oneDNN's scratch
// buffers) requires; the sizes are kept aside for the free.
class CountingAllocator final : public c10::Allocator {
    public:
	explicit CountingAllocator(c10::Allocator *base)
	{
		base_ = base;
		base_free_ = base->raw_deleter();
		if (!base_free_)
			throw std::runtime_error("torch's CPU allocator has no raw deleter");
	}

	c10::DataPtr allocate(size_t n) const override
	{
		void *p = base_->raw_allocate(n);
		if (!counted_thread)
			return { p, p, base_free_, c10::Device(c10::kCPU) };
		{
			std::lock_guard<std::mutex> lock(mu_);
			sizes_[p] = n;
		}
		int64_t now = live += static_cast<int64_t>(n);
		for (int64_t was = peak.load(); now > was && !peak.compare_exchange_weak(was, now);)
			;
		return { p, p, &release, c10::Device(c10::kCPU) };
	}
	c10::DeleterFnPtr raw_deleter() const override { return &release; }

    private:
	static void release(void *p)
	{
		if (!p)
			return;
		size_t n = 0;
		{
			std::lock_guard<std::mutex> lock(mu_);
			auto it = sizes_.find(p);
			if (it != sizes_.end()) {
				n = it->second;
				sizes_.erase(it);
			}
		}
		live -= static_cast<int64_t>(n);
		base_free_(p);
	}

	static c10::Allocator *base_;
	static c10::DeleterFnPtr base_free_;
	static std::mutex mu_;
	static std::unordered_map<void *, size_t> sizes_;
};

c10::Allocator *CountingAllocator::base_ = nullptr;
c10::DeleterFnPtr CountingAllocator::base_free_ = nullptr;
std::mutex CountingAllocator::mu_;
std::unordered_map<void *, size_t> CountingAllocator::sizes_;

} // namespace

void count_cpu_tensor_memory()
{
	static CountingAllocator counting(c10::GetCPUAllocator());
	static std::once_flag once;
	std::call_once(once, [] { c10::SetCPUAllocator(&counting, /*priority=*/100); });
	counted_thread = true;
}

int64_t tensor_bytes_live()
{
	return live.load();
}

int64_t tensor_bytes_peak()
{
	return peak.load();
}

void reset_tensor_peak()
{
	peak.store(live.load());
}

} // namespace train
} // namespace omru
