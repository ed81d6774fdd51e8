// level_bitset.hpp - a set of small integers 0..n-1 that finds its lowest
// member, or the next one after a position, in O(log64 n): a bit per member
// and, above each level, a bit per non-empty 64-bit word of the level below
// (a van Emde Boas-like tree of 64-way nodes).  4,096 nodes take two
// levels, 262,144 three.  The free-GPU index keeps one per free count.
#ifndef OMRU_PLANNER_LEVEL_BITSET_HPP
#define OMRU_PLANNER_LEVEL_BITSET_HPP

#include <cstdint>
#include <vector>

namespace omru {
namespace planner {

class LevelBitset {
    public:
	explicit LevelBitset(int n = 0)
	{
		int words = (n + 63) / 64;
		do {
			words = words > 0 ? words : 1;
			level_.emplace_back(static_cast<size_t>(words), 0);
			words = (words + 63) / 64;
		} while (level_.back().size() > 1);
	}

	void insert(int i)
	{
		for (std::vector<uint64_t> &l : level_) {
			uint64_t &w = l[static_cast<size_t>(i) >> 6];
			bool had = w != 0;
			w |= uint64_t{ 1 } << (i & 63);
			if (had)
				return; // the levels above already know
			i >>= 6;
		}
	}

	void erase(int i)
	{
		for (std::vector<uint64_t> &l : level_) {
			uint64_t &w = l[static_cast<size_t>(i) >> 6];
			w &= ~(uint64_t{ 1 } << (i & 63));
			if (w != 0)
				return; // the word still has members
			i >>= 6;
		}
	}

	// RET the lowest member >= from, or -1.
	int next(int from) const
	{
		if (from < 0)
			from = 0;
		// Climb while the rest of the word at this level is empty.
		size_t lv = 0;
		uint64_t i = static_cast<uint64_t>(from);
		for (;;) {
			if (lv == level_.size())
				return -1;
			const std::vector<uint64_t> &l = level_[lv];
			size_t word = i >> 6;
			if (word >= l.size())
				return -1;
			uint64_t w = l[word] & (~uint64_t{ 0 } << (i & 63));
			if (w != 0) {
				i = (word << 6) | static_cast<uint64_t>(__builtin_ctzll(w));
				break;
			}
			// Next word at this level: look one level up from word + 1.
			i = word + 1;
			lv++;
		}
		// Descend: each level's bit names a non-empty word below.
		while (lv > 0) {
			lv--;
			uint64_t w = level_[lv][i];
			i = (i << 6) | static_cast<uint64_t>(__builtin_ctzll(w));
		}
		return static_cast<int>(i);
	}

	int first() const { return next(0); }

    private:
	std::vector<std::vector<uint64_t>> level_; // [0]: one bit per member
};

} // namespace planner
} // namespace omru

#endif
