// admin_comment.cpp - see admin_comment.hpp.
#include "model/admin_comment.hpp"
#include "model/report_bounds.hpp"
#include "model/decimal_text.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cmath>

namespace omru {
namespace {

constexpr std::string_view kTag = "omru:";

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::string_view trim(std::string_view s)
{
	while (!s.empty() && is_blank(s.front()))
		s.remove_prefix(1);
	while (!s.empty() && is_blank(s.back()))
		s.remove_suffix(1);
	return s;
}

bool valid_key(std::string_view k)
{
	if (k.empty() || k.size() > 32)
		return false;
	for (char c : k)
		if (!((c >= 'a' && c <= 'z') || c == '_'))
			return false;
	return true;
}

bool parse_int(std::string_view s, int lo, int hi, int &out)
{
	auto r = std::from_chars(s.data(), s.data() + s.size(), out);
	return r.ec == std::errc() && r.ptr == s.data() + s.size() && out >= lo &&
	       out <= hi;
}

// A plain decimal ("12.5", "1e+09"), as strictly as parse_int: strtod would
// also take blanks, '+', hex and, under a comma locale, stop at the '.'.
bool parse_seconds(std::string_view s, double &out)
{
	if (s.empty() || s.size() > 32)
		return false;
	auto r = std::from_chars(s.data(), s.data() + s.size(), out);
	return r.ec == std::errc() && r.ptr == s.data() + s.size() &&
	       bounds::epoch_s_ok(out);
}

// Splits on commas; an empty list or an empty item is not allowed.
std::vector<std::string_view> split_commas(std::string_view s)
{
	std::vector<std::string_view> out;
	for (size_t pos = 0;;) {
		size_t comma = s.find(',', pos);
		out.push_back(s.substr(pos, comma == std::string_view::npos
						    ? std::string_view::npos
						    : comma - pos));
		if (comma == std::string_view::npos)
			return out;
		pos = comma + 1;
	}
}

// Shortest text that reads back as v.  to_chars, not printf: a comma
// locale would write "20,5", and ',' separates the rows.
std::string shortest(double v)
{
	char buf[64];
	auto r = std::to_chars(buf, buf + sizeof(buf), v);
	return std::string(buf, r.ptr);
}

// The longest start of s of at most max bytes that does not end inside a
// UTF-8 character (an admin's prefix may be any text).
size_t utf8_cut(const std::string &s, size_t max)
{
	if (max >= s.size())
		return s.size();
	while (max > 0 && (static_cast<unsigned char>(s[max]) & 0xc0) == 0x80)
		max--;
	return max;
}

} // namespace

const std::string *AdminComment::get(std::string_view key) const
{
	for (const auto &f : fields)
		if (f.first == key)
			return &f.second;
	return nullptr;
}

void AdminComment::set(std::string_view key, std::string value)
{
	for (auto &f : fields)
		if (f.first == key) {
			f.second = std::move(value);
			return;
		}
	fields.emplace_back(std::string(key), std::move(value));
}

void AdminComment::erase(std::string_view key)
{
	for (auto it = fields.begin(); it != fields.end(); ++it)
		if (it->first == key) {
			fields.erase(it);
			return;
		}
}

void AdminComment::merge(const AdminComment &other)
{
	for (const auto &f : other.fields)
		set(f.first, f.second);
}

Parsed<AdminComment> parse_admin_comment(std::string_view text)
{
	AdminComment c;
	size_t tag = text.find(kTag);
	if (tag == std::string_view::npos) {
		c.prefix = std::string(trim(text));
		return c;
	}
	c.prefix = std::string(trim(text.substr(0, tag)));
	std::string_view rest = text.substr(tag + kTag.size());
	while (true) {
		rest = trim(rest);
		if (rest.empty())
			break;
		size_t end = 0;
		while (end < rest.size() && !is_blank(rest[end]))
			end++;
		std::string_view field = rest.substr(0, end);
		rest.remove_prefix(end);
		size_t eq = field.find('=');
		if (eq == std::string_view::npos || !valid_key(field.substr(0, eq)))
			return Parsed<AdminComment>::fail(
				"AdminComment field '" + std::string(field) +
				"' is not KEY=VALUE (KEY: a-z and _)");
		c.set(field.substr(0, eq), std::string(field.substr(eq + 1)));
	}
	return c;
}

std::string format_admin_comment(const AdminComment &c, size_t max_len)
{
	AdminComment cut = c;
	auto render = [](const AdminComment &x) {
		std::string out = x.prefix;
		if (x.fields.empty())
			return out;
		out += out.empty() ? "" : " ";
		out += kTag;
		for (const auto &f : x.fields)
			out += " " + f.first + "=" + f.second;
		return out;
	};
	std::string out = render(cut);
	if (out.size() > max_len && cut.get("rows")) {
		cut.erase("rows");
		out = render(cut);
	}
	while (out.size() > max_len && !cut.fields.empty()) {
		cut.fields.pop_back();
		out = render(cut);
	}
	if (out.size() > max_len) // a prefix alone longer than the bound
		out.resize(utf8_cut(out, max_len));
	return out;
}

Parsed<std::vector<CommentRow>> parse_comment_rows(std::string_view value)
{
	using R = Parsed<std::vector<CommentRow>>;
	std::vector<CommentRow> rows;
	for (std::string_view item : split_commas(value)) {
		if (rows.size() == kMaxCommentRows)
			return R::fail("more than " + std::to_string(kMaxCommentRows) +
				       " profile rows");
		size_t at = item.find('@'), colon = item.find(':');
		CommentRow r;
		if (at == std::string_view::npos || colon == std::string_view::npos ||
		    colon < at || !parse_int(item.substr(0, at), 1, 65536, r.gpus) ||
		    !parse_int(item.substr(at + 1, colon - at - 1), 0, r.gpus, r.nodes) ||
		    !parse_seconds(item.substr(colon + 1), r.epoch_s))
			return R::fail("profile row '" + std::string(item) +
				       "': expected GPUS@NODES:EPOCH_S (1 <= GPUS "
				       "<= 65536, 0 <= NODES <= GPUS, 1e-4 <= EPOCH_S "
				       "<= 1e7)");
		rows.push_back(r);
	}
	return rows;
}

std::string format_comment_rows(const std::vector<CommentRow> &rows)
{
	std::string out;
	for (const CommentRow &r : rows) {
		out += out.empty() ? "" : ",";
		out += std::to_string(r.gpus) + "@" + std::to_string(r.nodes) + ":" +
		       shortest(r.epoch_s);
	}
	return out;
}

Parsed<std::vector<CommentResize>> parse_comment_resizes(std::string_view value)
{
	using R = Parsed<std::vector<CommentResize>>;
	std::vector<CommentResize> out;
	auto whole_s = [](std::string_view s, double &v) {
		long long n = 0;
		auto r = std::from_chars(s.data(), s.data() + s.size(), n);
		v = static_cast<double>(n);
		return r.ec == std::errc() && r.ptr == s.data() + s.size() && n >= 0 &&
		       n <= 100000000000LL;
	};
	for (std::string_view item : split_commas(value)) {
		size_t c1 = item.find(':'), gt = item.find('>'), c2 = item.rfind(':');
		CommentResize r;
		if (out.size() == kMaxCommentResizes || c1 == std::string_view::npos ||
		    gt == std::string_view::npos || c2 == c1 || gt < c1 || c2 < gt ||
		    !whole_s(item.substr(0, c1), r.at_s) ||
		    !parse_int(item.substr(c1 + 1, gt - c1 - 1), 1, 65536, r.from) ||
		    !parse_int(item.substr(gt + 1, c2 - gt - 1), 1, 65536, r.to) ||
		    !whole_s(item.substr(c2 + 1), r.cost_s))
			return R::fail("resize '" + std::string(item) +
				       "': expected AT_S:FROM>TO:COST_S (whole seconds, "
				       "counts 1..65536), at most " +
				       std::to_string(kMaxCommentResizes));
		out.push_back(r);
	}
	return out;
}

std::string format_comment_resizes(const std::vector<CommentResize> &resizes)
{
	std::string out;
	size_t first = resizes.size() > kMaxCommentResizes ? resizes.size() - kMaxCommentResizes : 0;
	char buf[96];
	for (size_t i = first; i < resizes.size(); i++) {
		const CommentResize &r = resizes[i];
		std::snprintf(buf, sizeof(buf), "%s%.0f:%d>%d:%.0f", out.empty() ? "" : ",",
			      std::max(0.0, r.at_s), r.from, r.to, std::max(0.0, r.cost_s));
		out += buf;
	}
	return out;
}

Parsed<CommentPhase> parse_comment_phase(std::string_view value)
{
	using R = Parsed<CommentPhase>;
	auto number = [](std::string_view s, double lo, double hi, double &v) {
		if (s.empty() || s.size() > 32)
			return false;
		auto r = std::from_chars(s.data(), s.data() + s.size(), v);
		return r.ec == std::errc() && r.ptr == s.data() + s.size() &&
		       std::isfinite(v) && v >= lo && v <= hi;
	};
	size_t c1 = value.find(':'), c2 = value.rfind(':');
	CommentPhase p;
	if (c1 == std::string_view::npos || c2 == c1 ||
	    !number(value.substr(0, c1), 0, 1e15, p.steps) ||
	    p.steps != std::floor(p.steps) ||
	    !number(value.substr(c1 + 1, c2 - c1 - 1), -1e9, 1e9, p.first_drop) ||
	    !number(value.substr(c2 + 1), -1e9, 1e9, p.recent_drop))
		return R::fail("phase '" + std::string(value) +
			       "': expected STEPS:FIRST_DROP:RECENT_DROP (whole "
			       "steps >= 0, drops finite, |drop| <= 1e9)");
	return p;
}

std::string format_comment_phase(const CommentPhase &p)
{
	// Loss drops to 3 significant digits: the phase rule compares them
	// with a threshold like 0.5.
	return shortest(std::floor(std::max(0.0, p.steps))) + ":" +
	       significant(p.first_drop, 3) + ":" + significant(p.recent_drop, 3);
}

Parsed<std::vector<int>> parse_count_list(std::string_view value)
{
	using R = Parsed<std::vector<int>>;
	std::vector<int> out;
	for (std::string_view item : split_commas(value)) {
		int g = 0;
		if (out.size() == 32 || !parse_int(item, 1, 65536, g) ||
		    (!out.empty() && g <= out.back()))
			return R::fail("count list '" + std::string(value) +
				       "': expected ascending distinct counts "
				       "1..65536, at most 32");
		out.push_back(g);
	}
	return out;
}

std::string format_count_list(const std::vector<int> &counts)
{
	std::string out;
	for (int g : counts)
		out += (out.empty() ? "" : ",") + std::to_string(g);
	return out;
}

} // namespace omru
