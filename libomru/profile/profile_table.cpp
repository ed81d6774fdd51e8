// profile_table.cpp - see profile_table.hpp.
#include "profile/profile_table.hpp"

#include <algorithm>
#include <cctype>

#include "model/csv_table.hpp"

namespace omru {

bool valid_model_name(std::string_view s)
{
	if (s.empty())
		return false;
	for (char c : s)
		if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' ||
		      c == '_' || c == '+' || c == '-'))
			return false;
	return true;
}

ProfileTable ProfileTable::from_csv(const CsvTable &csv)
{
	size_t c_model = csv.require("model"), c_gpus = csv.require("gpus"),
	       c_epoch = csv.require("epoch_s");
	std::optional<size_t> c_nodes = csv.optional("nodes");
	ProfileTable t;
	for (const CsvRow &r : csv.rows()) {
		std::string name(r.field(c_model));
		if (!valid_model_name(name))
			r.fail(c_model, "'" + name +
						"' is not a model name ([A-Za-z0-9._+-]+)");
		int gpus = r.positive_int(c_gpus, kMaxProfileGpus);
		double epoch_s = r.positive_double(c_epoch);
		int nodes = 0;
		if (c_nodes && !r.field(*c_nodes).empty()) {
			nodes = r.positive_int(*c_nodes, kMaxClusterNodes);
			if (nodes > gpus)
				r.fail(*c_nodes, std::to_string(gpus) +
							 " GPUs cannot span " +
							 std::to_string(nodes) + " nodes");
		}
		auto [it, added] = t.ids_.emplace(name, t.model_count());
		if (added) {
			t.names_.push_back(name);
			t.models_.emplace_back();
		}
		Model &m = t.models_[it->second];
		if (m.by_gpus.size() <= static_cast<size_t>(gpus))
			m.by_gpus.resize(gpus + 1);
		for (const Row &old : m.by_gpus[gpus])
			if (old.nodes == nodes)
				r.fail(c_gpus, "a second row for model " + name +
						       " on " + std::to_string(gpus) +
						       " GPUs" +
						       (nodes ? " over " + std::to_string(nodes) + " nodes" : ""));
		if (m.by_gpus[gpus].empty())
			m.counts.push_back(gpus);
		m.by_gpus[gpus].push_back({ nodes, epoch_s });
	}
	for (Model &m : t.models_)
		std::sort(m.counts.begin(), m.counts.end());
	return t;
}

int ProfileTable::model_id(const std::string &name) const
{
	auto it = ids_.find(name);
	return it == ids_.end() ? -1 : it->second;
}

std::optional<double> ProfileTable::epoch_s(int model, int gpus, int nodes) const
{
	const Model &m = models_[model];
	if (gpus < 1 || static_cast<size_t>(gpus) >= m.by_gpus.size())
		return std::nullopt;
	std::optional<double> any;
	for (const Row &r : m.by_gpus[gpus]) {
		if (r.nodes == nodes)
			return r.epoch_s;
		if (r.nodes == 0)
			any = r.epoch_s;
	}
	return any;
}

std::optional<double> ProfileTable::best_epoch_s(int model, int gpus,
						 const Cluster &c) const
{
	std::optional<double> best;
	if (gpus > c.total_gpus())
		return best;
	int max_nodes = std::min(gpus, c.nodes);
	for (int k = c.min_nodes(gpus); k <= max_nodes; k++)
		if (auto e = epoch_s(model, gpus, k); e && (!best || *e < *best))
			best = e;
	return best;
}

} // namespace omru
