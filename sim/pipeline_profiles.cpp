// pipeline_profiles.cpp - see pipeline_profiles.hpp.
#include "sim/pipeline_profiles.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sys/stat.h>

#include "cli_args.hpp"
#include "model/csv_table.hpp"

namespace omru {

namespace {

bool is_file(const std::string &path)
{
	struct stat st;
	return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// "NAME:LINE:COL: message" as the InputError that prints it so.
[[noreturn]] void throw_profile_error(const std::string &path, const std::string &e)
{
	size_t colon = e.find(": ", e.compare(0, path.size(), path) ? 0 : path.size());
	if (colon == std::string::npos)
		throw InputError(path, e);
	throw InputError(e.substr(0, colon), e.substr(colon + 2));
}

} // namespace

ProfileTable with_pipeline_splits(const ProfileTable &p, const Cluster &c,
				  const GpuLinks *links, const std::string &dir,
				  const pipeline::PipelineGainSettings &s,
				  std::vector<std::string> *said)
{
	struct stat st;
	if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
		throw UsageError("--layer-profiles " + dir + ": not a directory");
	std::map<int, pipeline::LayerProfile> profiles;
	for (int m = 0; m < p.model_count(); m++) {
		const std::string &name = p.model_name(m);
		std::string path = dir + "/" + name + ".csv";
		if (name.find('/') != std::string::npos || !is_file(path))
			continue;
		Parsed<pipeline::LayerProfile> lp = pipeline::read_layer_profile(path);
		if (!lp.ok())
			throw_profile_error(path, lp.error());
		profiles.emplace(m, lp.value());
	}
	if (profiles.empty())
		throw UsageError("--layer-profiles " + dir +
				 ": no MODEL.csv for any model of the profiles");

	// One partition per (model, GPUs, nodes); a row without a node count
	// is the packed spread's.
	std::map<std::tuple<int, int, int>, pipeline::PipelineGain> gains;
	auto gain = [&](int m, int g, int nodes) -> const pipeline::PipelineGain * {
		auto prof = profiles.find(m);
		if (prof == profiles.end())
			return nullptr;
		int n = nodes > 0 ? nodes : c.min_nodes(g);
		auto key = std::make_tuple(m, g, n);
		auto it = gains.find(key);
		if (it == gains.end()) {
			Parsed<pipeline::PipelineGain> r = pipeline::pipeline_gain(
				prof->second, links, g, n, c.gpus_per_node, s);
			// Beyond the partitioner or the cluster: data parallel.
			it = gains.emplace(key, r.ok() ? r.value() : pipeline::PipelineGain{}).first;
		}
		return &it->second;
	};
	ProfileTable out = p.scaled([&](int m, int g, int nodes) {
		const pipeline::PipelineGain *pg = gain(m, g, nodes);
		return pg ? pg->factor : 1.0;
	});

	for (const auto &[m, prof] : profiles) {
		(void) prof;
		std::string where;
		double lo = 1, hi = 0;
		for (const auto &[key, pg] : gains) {
			if (std::get<0>(key) != m || pg.stages < 2)
				continue;
			char buf[96];
			std::snprintf(buf, sizeof(buf), "%s%dx%d %s", where.empty() ? "" : "; ",
				      std::get<1>(key), std::get<2>(key), pg.split.c_str());
			where += buf;
			lo = std::min(lo, pg.factor);
			hi = std::max(hi, pg.factor);
		}
		char buf[128];
		if (where.empty())
			std::snprintf(buf, sizeof(buf), "%s: data parallelism at every count",
				      p.model_name(m).c_str());
		else
			std::snprintf(buf, sizeof(buf), "%s: epoch x%.2f to x%.2f as pipelines (GPUs x nodes split): ",
				      p.model_name(m).c_str(), lo, hi);
		if (said)
			said->push_back(buf + where);
	}
	return out;
}

} // namespace omru
