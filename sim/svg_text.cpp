// svg_text.cpp - see svg_text.hpp.
#include "svg_text.hpp"

#include <charconv>
#include <cmath>
#include <cstdarg>
#include <cstdio>

namespace omru {
namespace svg {

void appendf(std::string &out, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	int n = std::vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (static_cast<size_t>(n) < sizeof(buf)) {
		out.append(buf, n);
		return;
	}
	std::string big(n + 1, '\0');
	va_start(ap, fmt);
	std::vsnprintf(&big[0], big.size(), fmt, ap);
	va_end(ap);
	out.append(big, 0, n);
}

Num num(double v)
{
	Num r;
	const double tenths = std::round(v * 10);
	// Layout values are finite and small; anything else is a bug, drawn at 0.
	long long n = std::fabs(tenths) < 1e15 ? static_cast<long long>(tenths) : 0;
	char *p = r.s;
	if (n < 0) {
		*p++ = '-';
		n = -n;
	}
	p = std::to_chars(p, r.s + sizeof(r.s) - 3, n / 10).ptr;
	if (n % 10) {
		*p++ = '.';
		*p++ = static_cast<char>('0' + n % 10);
	}
	*p = '\0';
	return r;
}

// Decodes one UTF-8 character at s[i]: its code point and *len bytes, or -1
// and 1 byte when the bytes are malformed.
static long decode_utf8(const std::string &s, size_t i, size_t *len)
{
	static const long kMin[] = { 0, 0x80, 0x800, 0x10000 }; // no overlongs
	const unsigned char c = s[i];
	*len = 1;
	if (c < 0x80)
		return c;
	const int extra = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : 1;
	if (c < 0xc2 || c > 0xf4 || i + extra >= s.size())
		return -1;
	long cp = c & (0x3f >> extra);
	for (int k = 1; k <= extra; k++) {
		const unsigned char d = s[i + k];
		if ((d & 0xc0) != 0x80)
			return -1;
		cp = cp << 6 | (d & 0x3f);
	}
	if (cp < kMin[extra] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return -1;
	*len = extra + 1;
	return cp;
}

size_t text_chars(const std::string &s)
{
	size_t n = 0;
	for (unsigned char c : s)
		if ((c & 0xc0) != 0x80)
			n++;
	return n;
}

// Appends s as XML character data, cut to max_chars (with an ellipsis).
// Ids and titles come from user files: markup characters are escaped, and
// what XML 1.0 cannot carry (control characters, malformed UTF-8, U+FFFE
// and U+FFFF) becomes '?'.
void put_text(std::string &out, const std::string &s, size_t max_chars)
{
	const bool cut = text_chars(s) > max_chars;
	size_t chars = 0;
	for (size_t i = 0; i < s.size();) {
		if (cut && chars + 1 >= max_chars) {
			out += "\xe2\x80\xa6"; // U+2026 horizontal ellipsis
			return;
		}
		size_t len;
		long cp = decode_utf8(s, i, &len);
		chars++;
		if (cp == '&')
			out += "&amp;";
		else if (cp == '<')
			out += "&lt;";
		else if (cp == '>')
			out += "&gt;";
		else if (cp < 0 || (cp < 0x20 && cp != '\t' && cp != '\n' &&
				    cp != '\r') || cp == 0xfffe || cp == 0xffff)
			out += '?';
		else
			out.append(s, i, len);
		i += len;
	}
}

} // namespace svg
} // namespace omru
