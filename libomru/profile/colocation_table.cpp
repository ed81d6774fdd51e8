// colocation_table.cpp - see colocation_table.hpp.
#include "profile/colocation_table.hpp"

#include <algorithm>
#include <set>

#include "model/csv_table.hpp"
#include "profile/profile_table.hpp" // valid_model_name

namespace omru {
namespace {

constexpr double kMaxSlowdownField = 100; // refused beyond: not a slowdown
constexpr double kMaxSamples = 1e9;

std::string model_field(const CsvRow &r, size_t col)
{
	std::string name(r.field(col));
	if (!valid_model_name(name))
		r.fail(col, "'" + name + "' is not a model name ([A-Za-z0-9._+-]+)");
	return name;
}

double slowdown_field(const CsvRow &r, size_t col)
{
	double v = r.positive_double(col);
	if (v > kMaxSlowdownField)
		r.fail(col, "a slowdown of " + std::string(r.field(col)) +
				    " is not a measurement (at most 100)");
	return std::clamp(v, 1.0, kMaxSlowdown);
}

double percent_field(const CsvRow &r, size_t col)
{
	double v = r.nonnegative_double(col);
	if (v > 100)
		r.fail(col, std::string(r.field(col)) + " is not a percentage");
	return v;
}

void check_size(const CsvTable &csv)
{
	if (csv.rows().size() > kMaxColocationRows)
		csv.rows()[kMaxColocationRows].fail(
			0, "more than " + std::to_string(kMaxColocationRows) + " rows");
}

} // namespace

std::vector<ColocationPair> colocation_pairs_from_csv(const CsvTable &csv)
{
	size_t c_a = csv.require("model_a"), c_b = csv.require("model_b"),
	       c_sa = csv.require("slowdown_a"), c_sb = csv.require("slowdown_b");
	std::optional<size_t> c_n = csv.optional("samples");
	check_size(csv);
	std::vector<ColocationPair> out;
	for (const CsvRow &r : csv.rows()) {
		ColocationPair p;
		p.a = model_field(r, c_a);
		p.b = model_field(r, c_b);
		p.has_a = !r.field(c_sa).empty();
		p.has_b = !r.field(c_sb).empty();
		if (!p.has_a && !p.has_b)
			r.fail(c_sa, "neither slowdown is given");
		if (p.has_a)
			p.slowdown_a = slowdown_field(r, c_sa);
		if (p.has_b)
			p.slowdown_b = slowdown_field(r, c_sb);
		if (c_n && r.has(*c_n) && !r.field(*c_n).empty()) {
			p.samples = r.positive_double(*c_n);
			if (p.samples > kMaxSamples)
				r.fail(*c_n, "more samples than any table holds");
		}
		out.push_back(std::move(p));
	}
	return out;
}

std::vector<SoloSignals> solo_signals_from_csv(const CsvTable &csv)
{
	size_t c_model = csv.require("model"), c_gpu = csv.require("gpu_util"),
	       c_mem = csv.require("mem_util");
	check_size(csv);
	std::vector<SoloSignals> out;
	std::set<std::string> seen;
	for (const CsvRow &r : csv.rows()) {
		SoloSignals s;
		s.model = model_field(r, c_model);
		if (!seen.insert(s.model).second)
			r.fail(c_model, "a second row for model " + s.model);
		s.gpu_util = percent_field(r, c_gpu);
		s.mem_util = percent_field(r, c_mem);
		out.push_back(std::move(s));
	}
	return out;
}

ColocationData read_colocation(const std::string &pairs_path,
			       const std::string &signals_path)
{
	ColocationData d;
	if (!pairs_path.empty())
		d.pairs = colocation_pairs_from_csv(CsvTable::read_file(pairs_path));
	if (!signals_path.empty())
		d.signals = solo_signals_from_csv(CsvTable::read_file(signals_path));
	return d;
}

} // namespace omru
