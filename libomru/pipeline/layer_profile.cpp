// layer_profile.cpp - see layer_profile.hpp.
#include "pipeline/layer_profile.hpp"

#include <algorithm>
#include <map>

#include "model/csv_table.hpp"

namespace omru {
namespace pipeline {

namespace {

struct Sample {
	double batch, fwd_s, bwd_s, out_bytes, stash_bytes, param_bytes;
	size_t line;
};

// Least squares of t = a + c*b over the samples; a < 0 (noise at small
// batches) is clipped to a proportional line through the mean.
LinearTime fit(const std::vector<Sample> &s, double Sample::*t)
{
	double n = static_cast<double>(s.size()), sb = 0, st = 0, sbb = 0, sbt = 0;
	for (const Sample &x : s) {
		sb += x.batch;
		st += x.*t;
		sbb += x.batch * x.batch;
		sbt += x.batch * x.*t;
	}
	double den = n * sbb - sb * sb;
	LinearTime r;
	if (s.size() >= 2 && den > 0) {
		r.per_sample_s = (n * sbt - sb * st) / den;
		r.fixed_s = (st - r.per_sample_s * sb) / n;
	}
	if (s.size() < 2 || den <= 0 || r.fixed_s < 0 || r.per_sample_s < 0) {
		r.fixed_s = 0;
		r.per_sample_s = st / sb;
	}
	return r;
}

LayerProfile from_table(const CsvTable &t)
{
	const std::string &name = t.name();
	{
		size_t c_layer = t.require("layer"), c_batch = t.require("batch"),
		       c_fwd = t.require("fwd_ms"), c_bwd = t.require("bwd_ms"),
		       c_out = t.require("out_bytes"), c_stash = t.require("stash_bytes"),
		       c_param = t.require("param_bytes");
		std::vector<std::string> order;
		std::map<std::string, std::vector<Sample>> by_layer;
		for (const CsvRow &row : t.rows()) {
			std::string layer(row.field(c_layer));
			if (layer.empty())
				row.fail(c_layer, "the layer name is empty");
			Sample s;
			s.batch = row.positive_int(c_batch, kMaxProfiledBatch);
			s.fwd_s = row.nonnegative_double(c_fwd) / 1e3;
			s.bwd_s = row.nonnegative_double(c_bwd) / 1e3;
			s.out_bytes = row.nonnegative_double(c_out);
			s.stash_bytes = row.nonnegative_double(c_stash);
			s.param_bytes = row.nonnegative_double(c_param);
			s.line = row.line();
			auto &v = by_layer[layer];
			if (v.empty()) {
				if (order.size() >= static_cast<size_t>(kMaxLayers))
					row.fail(c_layer, "more than " +
								  std::to_string(kMaxLayers) +
								  " layers");
				order.push_back(layer);
			} else if (order.back() != layer) {
				row.fail(c_layer, "layer '" + layer +
							  "' again after other layers (a layer's "
							  "rows must be together)");
			}
			for (const Sample &o : v) {
				if (o.batch == s.batch)
					row.fail(c_batch, "layer '" + layer + "' batch " +
								  std::to_string(static_cast<int>(s.batch)) +
								  " twice");
				if (o.param_bytes != s.param_bytes)
					row.fail(c_param, "layer '" + layer +
								  "' has other param_bytes on line " +
								  std::to_string(o.line));
			}
			v.push_back(s);
		}
		if (order.empty())
			throw InputError(name, "no layer");
		LayerProfile p;
		for (const std::string &layer : order) {
			const std::vector<Sample> &v = by_layer[layer];
			const Sample &big = *std::max_element(
				v.begin(), v.end(),
				[](const Sample &a, const Sample &b) { return a.batch < b.batch; });
			LayerCost c;
			c.name = layer;
			double ft = 0, bt = 0;
			for (const Sample &s : v) {
				ft += s.fwd_s;
				bt += s.bwd_s;
			}
			if (ft + bt <= 0)
				throw InputError(name, big.line, 1,
						 "layer '" + layer + "' takes no time");
			c.fwd = ft > 0 ? fit(v, &Sample::fwd_s) : LinearTime{};
			c.bwd = bt > 0 ? fit(v, &Sample::bwd_s) : LinearTime{};
			c.out_bytes_per_sample = big.out_bytes / big.batch;
			c.stash_bytes_per_sample = big.stash_bytes / big.batch;
			c.param_bytes = big.param_bytes;
			p.layers.push_back(c);
		}
		return p;
	}
}

} // namespace

Parsed<LayerProfile> parse_layer_profile(const std::string &name,
					 const std::string &text)
{
	try {
		return from_table(CsvTable::parse(name, text));
	} catch (const InputError &e) {
		return Parsed<LayerProfile>::fail(e.what());
	}
}

Parsed<LayerProfile> read_layer_profile(const std::string &path)
{
	try {
		return from_table(CsvTable::read_file(path));
	} catch (const InputError &e) {
		return Parsed<LayerProfile>::fail(e.what());
	}
}

} // namespace pipeline
} // namespace omru
