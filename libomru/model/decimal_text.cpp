// decimal_text.cpp - see decimal_text.hpp.
#include "model/decimal_text.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace omru {

std::string decimal_text(double v, int decimals)
{
	char buf[400]; // 1e308 in full, fixed
	auto r = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::fixed,
			       std::clamp(decimals, 0, 12));
	std::string s(buf, r.ptr);
	if (s.find('.') != std::string::npos) {
		s.erase(s.find_last_not_of('0') + 1);
		if (s.back() == '.')
			s.pop_back();
	}
	return s == "-0" ? "0" : s;
}

std::string significant(double v, int digits)
{
	if (!std::isfinite(v) || v == 0)
		return "0";
	digits = std::clamp(digits, 1, 15);
	const int exponent = static_cast<int>(std::floor(std::log10(std::fabs(v))));
	return decimal_text(v, digits - 1 - exponent);
}

} // namespace omru
