// splitmix.hpp - splitmix64 (Steele, Lea, Flood 2014), the generator of
// the trainer's data path (synthetic images, epoch permutations,
// augmentation): tiny, fast, and its output is fixed by the algorithm,
// unlike std::*_distribution's, so data sets and orders are the same on
// every platform and library version.
#ifndef OMRU_TRAINER_SPLITMIX_HPP
#define OMRU_TRAINER_SPLITMIX_HPP

#include <cstdint>

namespace omru {
namespace train {

inline uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

struct SplitMix {
	uint64_t s;
	explicit SplitMix(uint64_t seed) : s(mix64(seed)) {}
	uint64_t next() { return mix64(s += 0x9e3779b97f4a7c15ULL); }
	// Uniform in 0..n-1 (multiply-shift; bias below n / 2^32).
	uint32_t below(uint32_t n)
	{
		return static_cast<uint32_t>((next() >> 32) * n >> 32);
	}
	// Uniform in [-1, 1), from 24 bits.
	float sym()
	{
		return static_cast<float>(next() >> 40) * (2.0f / 16777216.0f) -
		       1.0f;
	}
};

} // namespace train
} // namespace omru

#endif
