// fuzz_input.hpp - what every libFuzzer target of fuzz/ shares: the input as
// text and as lines, and a check that stops the run when a property fails
// (scripts/fuzz.sh builds and runs them; doc/report-bounds.md says why).
#ifndef OMRU_FUZZ_INPUT_HPP
#define OMRU_FUZZ_INPUT_HPP

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace omru_fuzz {

inline std::string_view text(const uint8_t *data, size_t size)
{
	return { reinterpret_cast<const char *>(data), size };
}

inline std::vector<std::string> lines(std::string_view s)
{
	std::vector<std::string> out;
	for (size_t pos = 0; pos <= s.size();) {
		size_t nl = s.find('\n', pos);
		out.emplace_back(s.substr(pos, nl == std::string_view::npos ? std::string_view::npos
									    : nl - pos));
		if (nl == std::string_view::npos)
			break;
		pos = nl + 1;
	}
	return out;
}

// A property every input must keep (a round trip, a bound): abort, which
// libFuzzer reports with the input that broke it.
inline void require(bool ok, const char *what)
{
	if (!ok) {
		std::fprintf(stderr, "fuzz property failed: %s\n", what);
		std::abort();
	}
}

} // namespace omru_fuzz

#endif
