// pipeline_gains.cpp - see pipeline_gains.hpp.
#include "controller/pipeline_gains.hpp"

#include "controller/site_profiles.hpp" // kMaxProfileFileBytes
#include "pipeline/partitioner.hpp"   // kMaxPipelineGpus

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <sys/stat.h>

namespace omru {
namespace controller {

PipelineGains::PipelineGains(std::map<std::string, pipeline::LayerProfile> profiles,
			     pipeline::PipelineGainSettings s)
	: s_(s)
{
	for (auto &kv : profiles)
		profiles_.emplace(kv.first, std::make_shared<const pipeline::LayerProfile>(
						    std::move(kv.second)));
}

static bool same_links(const GpuLinks *a, const GpuLinks *b)
{
	if (!a || !b)
		return !a && !b;
	if (a->size() != b->size())
		return false;
	for (int i = 0; i < a->size(); i++)
		for (int j = 0; j < a->size(); j++)
			if (a->strength(i, j) != b->strength(i, j))
				return false;
	return true;
}

void PipelineGains::see_cluster(const GpuLinks *links, int nodes, int gpus_per_node)
{
	if (!same_links(links, links_.get())) {
		links_ = links ? std::make_shared<const GpuLinks>(*links) : nullptr;
		generation_++;
		cache_.clear();
		wanted_.clear();
		taken_.clear();
		shape_ = { 0, 0 };
	}
	if (shape_ == std::make_pair(nodes, gpus_per_node) || nodes < 1 || gpus_per_node < 1)
		return;
	shape_ = { nodes, gpus_per_node };
	int most = std::min(nodes * gpus_per_node, pipeline::kMaxPipelineGpus);
	for (const auto &kv : profiles_)
		for (int g = 2; g <= most; g++)
			(void) gain(kv.first, g, (g + gpus_per_node - 1) / gpus_per_node,
				    gpus_per_node);
}

const pipeline::PipelineGain &PipelineGains::gain(const std::string &model, int gpus,
						  int nodes, int gpus_per_node)
{
	if (gpus < 2 || gpus > pipeline::kMaxPipelineGpus || !profiles_.count(model))
		return none_;
	GainKey key{ model, gpus, nodes, gpus_per_node };
	auto it = cache_.find(key);
	if (it != cache_.end())
		return it->second;
	if (!taken_.count(key))
		wanted_.insert(key);
	return none_;
}

std::vector<GainWork> PipelineGains::take_wanted(size_t max)
{
	std::vector<GainWork> out;
	while (!wanted_.empty() && out.size() < max) {
		GainWork w;
		w.key = *wanted_.begin();
		wanted_.erase(wanted_.begin());
		w.profile = profiles_.at(std::get<0>(w.key));
		// The links are a node's: a node of another size has none here.
		if (links_ && links_->size() == std::get<3>(w.key))
			w.links = links_;
		w.settings = s_;
		w.generation = generation_;
		taken_.insert(w.key);
		out.push_back(std::move(w));
	}
	return out;
}

size_t PipelineGains::install(const std::vector<GainWork> &done)
{
	size_t n = 0;
	for (const GainWork &w : done) {
		if (w.generation != generation_)
			continue;
		taken_.erase(w.key);
		cache_[w.key] = w.result;
		n++;
	}
	return n;
}

void compute(std::vector<GainWork> &work)
{
	for (GainWork &w : work) {
		Parsed<pipeline::PipelineGain> g = pipeline::pipeline_gain(
			*w.profile, w.links.get(), std::get<1>(w.key), std::get<2>(w.key),
			std::get<3>(w.key), w.settings);
		// Not a spread: data parallel.
		w.result = g.ok() ? g.value() : pipeline::PipelineGain{};
	}
}

Parsed<std::map<std::string, pipeline::LayerProfile>>
load_layer_profiles(const std::string &dir)
{
	using P = Parsed<std::map<std::string, pipeline::LayerProfile>>;
	DIR *d = opendir(dir.c_str());
	if (!d)
		return P::fail(dir + ": cannot read the layer profiles: " + std::strerror(errno));
	std::map<std::string, pipeline::LayerProfile> out;
	std::string error;
	int files = 0;
	while (struct dirent *e = readdir(d)) {
		std::string name = e->d_name;
		if (name.size() <= 4 || name.compare(name.size() - 4, 4, ".csv") != 0 ||
		    name[0] == '.')
			continue;
		std::string path = dir + "/" + name;
		struct stat st;
		if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		if (static_cast<size_t>(st.st_size) > kMaxProfileFileBytes) {
			error = path + ": larger than 16 MiB";
			break;
		}
		if (++files > kMaxLayerProfiles) {
			error = dir + ": more than " + std::to_string(kMaxLayerProfiles) +
				" layer profiles";
			break;
		}
		Parsed<pipeline::LayerProfile> lp = pipeline::read_layer_profile(path);
		if (!lp.ok()) {
			error = lp.error();
			break;
		}
		out.emplace(name.substr(0, name.size() - 4), lp.value());
	}
	closedir(d);
	if (!error.empty())
		return P::fail(error);
	return out;
}

} // namespace controller
} // namespace omru
