// csv_table.hpp - the CSV dialect of doc/sim-formats.md: UTF-8, a header row,
// '#' comment lines, unknown columns ignored, and every error naming the
// file, the line and the column.  No quoting: no field in the formats needs it.
#ifndef OMRU_MODEL_CSV_TABLE_HPP
#define OMRU_MODEL_CSV_TABLE_HPP

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace omru {

// A malformed input: what() is "FILE:LINE:COL: message" (1-based; COL is the
// character where the offending field starts).
class InputError : public std::runtime_error {
    public:
	InputError(const std::string &file, size_t line, size_t column,
		   const std::string &msg);
	InputError(const std::string &file, const std::string &msg);
};

// One data row: fields located by the header's column names.
class CsvRow {
    public:
	size_t line() const { return line_; }
	// The field of a required column (the header check guarantees it).
	std::string_view field(size_t col) const;
	bool has(size_t col) const { return col < fields_.size(); }
	// Errors point at the field's first character.
	[[noreturn]] void fail(size_t col, const std::string &msg) const;

	// Typed readers: the value, or an InputError naming the column.
	double positive_double(size_t col) const;
	double nonnegative_double(size_t col) const;
	double finite_double(size_t col) const; // any sign
	int positive_int(size_t col, int max) const;

	struct Source {
		std::string name;
		std::string text;
		std::vector<std::string> header;
	};

    private:
	friend class CsvTable;
	const Source *src_ = nullptr; // owned by the table, which outlives rows
	size_t line_ = 0;
	std::vector<std::string_view> fields_;
	std::vector<size_t> starts_; // 1-based column of each field
};

class CsvTable {
    public:
	// Reads the whole file; throws InputError when it cannot be read.
	static CsvTable read_file(const std::string &path);
	// For tests and stdin: parse text as if it came from `name`.
	// `implicit_header`: a first line that names none of these columns is
	// a row, and these are the columns, in this order (a file written
	// without its header line); empty: the first line is the header.
	static CsvTable parse(std::string name, std::string text,
			      const std::vector<std::string> &implicit_header = {});

	const std::string &name() const { return src_->name; }
	// Index of a column the format requires; InputError (line of the
	// header) when it is missing.
	size_t require(std::string_view column) const;
	std::optional<size_t> optional(std::string_view column) const;
	const std::string &column_name(size_t col) const
	{
		return src_->header[col];
	}
	const std::vector<CsvRow> &rows() const { return rows_; }

    private:
	// Heap-held so rows' views and pointers survive moving the table.
	std::shared_ptr<CsvRow::Source> src_;
	size_t header_line_ = 0;
	std::vector<CsvRow> rows_;
};

} // namespace omru

#endif
