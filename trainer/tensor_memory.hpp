// tensor_memory.hpp - how many bytes torch's CPU tensors hold, now and at
// most: a wrapper around torch's CPU allocator (c10 keeps the allocator of
// the highest priority), for the layer profile's stash bytes and the
// pipeline's peak memory per stage.  Exact for the CPU tensors of the
// threads that ask; GPU memory is not seen.  Once installed it stays (an atomic add and a map entry per
// allocation).
#ifndef OMRU_TRAINER_TENSOR_MEMORY_HPP
#define OMRU_TRAINER_TENSOR_MEMORY_HPP

#include <cstdint>

namespace omru {
namespace train {

// Installs the counting allocator (once) and counts the tensors the
// calling thread allocates from now on; other threads' (a data loader's
// batches, made ahead of time) are not counted.
void count_cpu_tensor_memory();
int64_t tensor_bytes_live();
int64_t tensor_bytes_peak();
// The peak from now: the bytes live now.
void reset_tensor_peak();

} // namespace train
} // namespace omru

#endif
