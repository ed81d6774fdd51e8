// pipeline_gains.cpp - see pipeline_gains.hpp.
#include "controller/pipeline_gains.hpp"

#include "controller/site_profiles.hpp" // kMaxProfileFileBytes

#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <sys/stat.h>

namespace omru {
namespace controller {

const pipeline::PipelineGain &PipelineGains::gain(const std::string &model, int gpus,
						  int nodes, int gpus_per_node)
{
	auto prof = profiles_.find(model);
	if (prof == profiles_.end())
		return none_;
	auto key = std::make_tuple(model, gpus, nodes, gpus_per_node);
	auto it = cache_.find(key);
	if (it == cache_.end()) {
		Parsed<pipeline::PipelineGain> g =
			pipeline::pipeline_gain(prof->second, nullptr, gpus, nodes, gpus_per_node, s_);
		// Not a spread or beyond the partitioner: data parallel.
		it = cache_.emplace(key, g.ok() ? g.value() : pipeline::PipelineGain{}).first;
	}
	return it->second;
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
