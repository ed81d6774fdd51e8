// text_table.hpp - what the command-line tools (omru-report, omru-profile)
// print for people: columns aligned two blanks apart, and times as sacct
// writes them.
#ifndef OMRU_TEXT_TABLE_HPP
#define OMRU_TEXT_TABLE_HPP

#include <ostream>
#include <string>
#include <vector>

namespace omru {

// Each row on a line, every column as wide as its widest cell plus two
// blanks, no trailing blanks.  Rows may be shorter than the first.
void write_aligned(std::ostream &out, const std::vector<std::vector<std::string>> &rows);

// "2026-11-22T12:00:00" in local time (sacct's standard format); "" for
// NaN or a time localtime cannot show.
std::string local_time_text(double epoch_s);

} // namespace omru

#endif
