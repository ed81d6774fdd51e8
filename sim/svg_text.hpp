// svg_text.hpp - text for hand-written SVG: printf into a string, compact
// coordinates, and XML character data that user-supplied names cannot break.
#ifndef OMRU_SIM_SVG_TEXT_HPP
#define OMRU_SIM_SVG_TEXT_HPP

#include <cstddef>
#include <string>

namespace omru {
namespace svg {

void appendf(std::string &out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

// A coordinate with one decimal, without a trailing ".0" or a "-0".
struct Num {
	char s[32];
};
Num num(double v);

// Characters (code points) in a UTF-8 string; malformed bytes count one each.
size_t text_chars(const std::string &s);

// Appends s as XML character data, cut to max_chars (with an ellipsis).
// Markup characters are escaped, and what XML 1.0 cannot carry (control
// characters, malformed UTF-8, U+FFFE and U+FFFF) becomes '?'.
void put_text(std::string &out, const std::string &s,
	      size_t max_chars = std::string::npos);

} // namespace svg
} // namespace omru

#endif
