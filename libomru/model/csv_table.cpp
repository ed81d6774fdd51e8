// csv_table.cpp - see csv_table.hpp.
#include "model/csv_table.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

namespace omru {

InputError::InputError(const std::string &file, size_t line, size_t column,
		       const std::string &msg)
	: std::runtime_error(file + ":" + std::to_string(line) + ":" +
			     std::to_string(column) + ": " + msg)
{
}

InputError::InputError(const std::string &file, const std::string &msg)
	: std::runtime_error(file + ": " + msg)
{
}

std::string_view CsvRow::field(size_t col) const
{
	return col < fields_.size() ? fields_[col] : std::string_view();
}

void CsvRow::fail(size_t col, const std::string &msg) const
{
	size_t at = col < starts_.size() ? starts_[col]
		    : starts_.empty()    ? 1
					 : starts_.back() + fields_.back().size();
	throw InputError(src_->name, line_, at,
			 "column '" + src_->header[col] + "': " + msg);
}

static std::string quoted(std::string_view s)
{
	return "'" + std::string(s) + "'";
}

static bool to_double(std::string_view s, double &out)
{
	if (s.empty())
		return false;
	auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
	return ec == std::errc() && end == s.data() + s.size() &&
	       std::isfinite(out);
}

double CsvRow::positive_double(size_t col) const
{
	double v;
	if (!to_double(field(col), v) || !(v > 0))
		fail(col, quoted(field(col)) + " is not a number > 0");
	return v;
}

double CsvRow::nonnegative_double(size_t col) const
{
	double v;
	if (!to_double(field(col), v) || v < 0)
		fail(col, quoted(field(col)) + " is not a number >= 0");
	return v;
}

double CsvRow::finite_double(size_t col) const
{
	double v;
	if (!to_double(field(col), v))
		fail(col, quoted(field(col)) + " is not a finite number");
	return v;
}

int CsvRow::positive_int(size_t col, int max) const
{
	std::string_view s = field(col);
	long v = 0;
	auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
	if (s.empty() || ec != std::errc() || end != s.data() + s.size() ||
	    v < 1 || v > max)
		fail(col, quoted(s) + " is not an integer in 1.." +
				  std::to_string(max));
	return static_cast<int>(v);
}

CsvTable CsvTable::read_file(const std::string &path)
{
	std::ifstream in(path, std::ios::binary);
	if (!in)
		throw InputError(path, std::string("cannot read: ") +
					       std::strerror(errno));
	std::ostringstream text;
	text << in.rdbuf();
	if (in.bad())
		throw InputError(path, "read error");
	return parse(path, text.str());
}

// Splits on ',' and trims spaces and a trailing '\r'; records where each
// field starts so errors can point at it.
static void split_fields(std::string_view line, std::vector<std::string_view> &f,
			 std::vector<size_t> &starts)
{
	size_t pos = 0;
	for (;;) {
		size_t comma = line.find(',', pos);
		size_t end = comma == std::string_view::npos ? line.size() : comma;
		size_t b = pos, e = end;
		while (b < e && (line[b] == ' ' || line[b] == '\t'))
			b++;
		while (e > b && (line[e - 1] == ' ' || line[e - 1] == '\t'))
			e--;
		f.push_back(line.substr(b, e - b));
		starts.push_back(b + 1);
		if (comma == std::string_view::npos)
			break;
		pos = comma + 1;
	}
}

CsvTable CsvTable::parse(std::string name, std::string text,
			 const std::vector<std::string> &implicit_header)
{
	CsvTable t;
	t.src_ = std::make_shared<CsvRow::Source>();
	t.src_->name = std::move(name);
	t.src_->text = std::move(text);
	std::string_view all(t.src_->text);
	std::vector<std::string> &header = t.src_->header;
	const std::string &fname = t.src_->name;
	size_t lineno = 0, pos = 0;
	bool have_header = false;
	while (pos < all.size()) {
		size_t nl = all.find('\n', pos);
		size_t end = nl == std::string_view::npos ? all.size() : nl;
		std::string_view line = all.substr(pos, end - pos);
		pos = end + 1;
		lineno++;
		if (!line.empty() && line.back() == '\r')
			line.remove_suffix(1);
		if (lineno == 1 && line.substr(0, 3) == "\xEF\xBB\xBF")
			line.remove_prefix(3); // UTF-8 byte order mark
		if (line.find_first_not_of(" \t") == std::string_view::npos ||
		    line[line.find_first_not_of(" \t")] == '#')
			continue;
		CsvRow row;
		row.src_ = t.src_.get();
		row.line_ = lineno;
		split_fields(line, row.fields_, row.starts_);
		auto names_a_column = [&](std::string_view f) {
			return std::find(implicit_header.begin(), implicit_header.end(), f) !=
			       implicit_header.end();
		};
		if (!have_header && !implicit_header.empty() &&
		    std::none_of(row.fields_.begin(), row.fields_.end(), names_a_column)) {
			have_header = true; // no header line: this is a row
			t.header_line_ = 0;
			header = implicit_header;
		}
		if (!have_header) {
			have_header = true;
			t.header_line_ = lineno;
			for (size_t i = 0; i < row.fields_.size(); i++) {
				std::string col(row.fields_[i]);
				for (size_t j = 0; j < header.size(); j++)
					if (header[j] == col && !col.empty())
						throw InputError(fname, lineno, row.starts_[i],
								 "column '" + col + "' appears twice in the header");
				header.push_back(col);
			}
			continue;
		}
		if (row.fields_.size() > header.size())
			throw InputError(fname, lineno,
					 row.starts_[header.size()],
					 "more fields than the header has columns (" +
						 std::to_string(header.size()) + ")");
		t.rows_.push_back(std::move(row));
	}
	if (!have_header)
		throw InputError(fname, "empty file: expected a header row");
	return t;
}

size_t CsvTable::require(std::string_view column) const
{
	if (auto i = optional(column))
		return *i;
	std::string have;
	for (const std::string &h : src_->header)
		have += (have.empty() ? "" : ",") + h;
	throw InputError(src_->name, header_line_, 1,
			 "header has no column '" + std::string(column) +
				 "' (header: " + have + ")");
}

std::optional<size_t> CsvTable::optional(std::string_view column) const
{
	for (size_t i = 0; i < src_->header.size(); i++)
		if (src_->header[i] == column)
			return i;
	return std::nullopt;
}

} // namespace omru
