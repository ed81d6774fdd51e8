// pipeline_split.cpp - see pipeline_split.hpp.
#include "pipeline_split.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace omru {
namespace train {

namespace {

int whole(const std::string &s, const std::string &what)
{
	size_t used = 0;
	int v = 0;
	try {
		v = std::stoi(s, &used);
	} catch (const std::exception &) {
		used = 0;
	}
	if (used == 0 || used != s.size() || v < 1)
		throw std::invalid_argument("--pipeline: " + what + " '" + s +
					    "' is not a whole number >= 1");
	return v;
}

std::vector<std::string> split(const std::string &s, char sep)
{
	std::vector<std::string> out;
	std::stringstream in(s);
	for (std::string item; std::getline(in, item, sep);)
		out.push_back(item);
	return out;
}

} // namespace

int PipelineSplit::stage_of(int rank) const
{
	for (size_t s = 0; s < stages.size(); s++)
		if (rank >= stages[s].first_rank && rank < stages[s].first_rank + stages[s].replicas)
			return static_cast<int>(s);
	return -1;
}

PipelineSplit parse_pipeline_split(const std::string &spec, const std::string &recompute,
				   const std::vector<std::string> &block_names, int world,
				   int micro_batches)
{
	const int blocks = static_cast<int>(block_names.size());
	PipelineSplit p;
	int first = 0, rank = 0;
	for (const std::string &item : split(spec, ',')) {
		size_t colon = item.find(':');
		if (colon == std::string::npos)
			throw std::invalid_argument("--pipeline: '" + item +
						    "' is not END:REPLICAS");
		PipelineStage st;
		st.first_block = first;
		st.end_block = whole(item.substr(0, colon), "END");
		st.first_rank = rank;
		st.replicas = whole(item.substr(colon + 1), "REPLICAS");
		if (st.end_block <= first || st.end_block > blocks)
			throw std::invalid_argument(
				"--pipeline: stage " + std::to_string(p.stages.size()) + " ends at block " +
				std::to_string(st.end_block) + "; it must end after block " +
				std::to_string(first) + " and at most at " + std::to_string(blocks) +
				" (the model's blocks)");
		first = st.end_block;
		rank += st.replicas;
		p.stages.push_back(st);
	}
	if (p.stages.empty() || first != blocks)
		throw std::invalid_argument("--pipeline: the stages end at block " +
					    std::to_string(first) + ", not at the model's last (" +
					    std::to_string(blocks) + ")");
	if (rank != world)
		throw std::invalid_argument("--pipeline: the replicas add up to " +
					    std::to_string(rank) + " processes; the job has " +
					    std::to_string(world));
	int r0 = p.stages[0].replicas;
	if (micro_batches < r0 || micro_batches % r0 != 0)
		throw std::invalid_argument("--micro-batches " + std::to_string(micro_batches) +
					    ": must be a multiple of the first stage's " +
					    std::to_string(r0) + " replicas");
	p.micro_batches = micro_batches;
	p.recompute.assign(static_cast<size_t>(blocks), false);
	if (!recompute.empty())
		for (const std::string &name : split(recompute, ',')) {
			auto it = std::find(block_names.begin(), block_names.end(), name);
			if (it == block_names.end())
				throw std::invalid_argument("--recompute: the model has no block '" +
							    name + "'");
			p.recompute[static_cast<size_t>(it - block_names.begin())] = true;
		}
	return p;
}

} // namespace train
} // namespace omru
