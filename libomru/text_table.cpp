// text_table.cpp - see text_table.hpp.
#include "text_table.hpp"

#include <algorithm>
#include <cmath>
#include <ctime>

namespace omru {

void write_aligned(std::ostream &out, const std::vector<std::vector<std::string>> &rows)
{
	std::vector<size_t> width;
	for (const auto &row : rows) {
		if (width.size() < row.size())
			width.resize(row.size(), 0);
		for (size_t i = 0; i < row.size(); i++)
			width[i] = std::max(width[i], row[i].size());
	}
	for (const auto &row : rows) {
		std::string line;
		for (size_t i = 0; i < row.size(); i++) {
			line += row[i];
			if (i + 1 < row.size())
				line += std::string(width[i] - row[i].size() + 2, ' ');
		}
		line.erase(line.find_last_not_of(' ') + 1);
		out << line << "\n";
	}
}

std::string local_time_text(double epoch_s)
{
	if (!std::isfinite(epoch_s))
		return "";
	std::time_t t = static_cast<std::time_t>(epoch_s);
	std::tm tm{};
	char buf[32];
	if (!localtime_r(&t, &tm) ||
	    !std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm))
		return "";
	return buf;
}

} // namespace omru
