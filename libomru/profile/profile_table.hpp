// profile_table.hpp - measured epoch times per model, GPU count and node span
// (doc/sim-formats.md, Profiles).  It is the simulator's ground truth: lookups
// never invent a row.  Estimates for unmeasured counts belong to a speed
// model, not here.
#ifndef OMRU_PROFILE_PROFILE_TABLE_HPP
#define OMRU_PROFILE_PROFILE_TABLE_HPP

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/cluster.hpp"

namespace omru {

class CsvTable;

constexpr int kMaxProfileGpus = 65536;

// [A-Za-z0-9._+-]+: a model name as sim-formats.md and --omru-model allow.
bool valid_model_name(std::string_view s);

class ProfileTable {
    public:
	// Reads model,gpus,epoch_s[,nodes]; InputError on a malformed row or a
	// duplicate (model, gpus, nodes).
	static ProfileTable from_csv(const CsvTable &csv);

	// Model id for a name, or -1 when the table has no row for it.
	int model_id(const std::string &name) const;
	const std::string &model_name(int model) const { return names_[model]; }
	int model_count() const { return static_cast<int>(names_.size()); }

	// Truth: seconds per epoch of `model` on `gpus` GPUs spread over
	// `nodes` nodes: the row (gpus, nodes), else the row (gpus) without a
	// node count, else nothing (the job cannot run on that spread).
	std::optional<double> epoch_s(int model, int gpus, int nodes) const;
	// The same for the packed spread on cluster `c` (fewest nodes).
	std::optional<double> packed_epoch_s(int model, int gpus,
					     const Cluster &c) const
	{
		return epoch_s(model, gpus, c.min_nodes(gpus));
	}
	// Distinct GPU counts with at least one row, ascending.
	const std::vector<int> &counts(int model) const
	{
		return models_[model].counts;
	}
	// Smallest epoch time over every spread of `gpus` that fits `c`.
	std::optional<double> best_epoch_s(int model, int gpus,
					   const Cluster &c) const;

	// Every row's epoch time times factor(model, gpus, nodes) (nodes 0:
	// a row without a node count); a factor that is not finite and > 0
	// leaves the row as it is.  For what changes how a model trains
	// (pipeline_gain.hpp); the rows stay the same rows.
	template <typename Factor> ProfileTable scaled(Factor factor) const
	{
		ProfileTable t = *this;
		for (size_t m = 0; m < t.models_.size(); m++)
			for (size_t g = 0; g < t.models_[m].by_gpus.size(); g++)
				for (Row &r : t.models_[m].by_gpus[g]) {
					double f = factor(static_cast<int>(m), static_cast<int>(g),
							  r.nodes);
					if (f > 0 && f < 1e300)
						r.epoch_s *= f;
				}
		return t;
	}

    private:
	struct Row {
		int nodes; // 0: no node count given
		double epoch_s;
	};
	struct Model {
		std::vector<std::vector<Row>> by_gpus; // index: GPU count
		std::vector<int> counts;
	};
	std::vector<std::string> names_;
	std::unordered_map<std::string, int> ids_;
	std::vector<Model> models_;
};

} // namespace omru

#endif
