// c_api_pipeline.cpp - omru/omru_pipeline.h over the partitioner.
#include "omru/omru_pipeline.h"

#include <sstream>

#include "c_boundary.hpp"
#include "pipeline/partition_report.hpp"

using namespace omru;
using namespace omru::pipeline;

extern "C" int omru_partition_json(const omru_partition_request_t *req, char *out,
				   size_t outlen, char *err, size_t errlen)
{
	return guarded(err, errlen, [&] {
		if (!req || !req->layers_csv || !out) {
			put(err, errlen, "no request");
			return OMRU_EINVAL;
		}
		Parsed<LayerProfile> prof = parse_layer_profile(
			"layer profile", std::string(req->layers_csv, req->layers_len));
		if (!prof.ok())
			return fail_with(prof, err, errlen);
		Parsed<GpuLinks> links = Parsed<GpuLinks>::fail("");
		bool has_links = req->links && *req->links;
		if (has_links) {
			std::vector<std::string> lines;
			std::istringstream in(req->links);
			for (std::string line; std::getline(in, line);)
				if (!line.empty())
					lines.push_back(line);
			links = GpuLinks::parse_gres_links(lines);
			if (!links.ok())
				return fail_with(links, err, errlen);
		}
		LinkSpeeds speeds;
		if (req->nvlink_gbps != 0)
			speeds.nvlink_gbps = req->nvlink_gbps;
		if (req->pcie_gbps != 0)
			speeds.pcie_gbps = req->pcie_gbps;
		if (req->network_gbps != 0)
			speeds.network_gbps = req->network_gbps;
		if (req->latency_s >= 0)
			speeds.latency_s = req->latency_s;
		Parsed<JobTopology> topo = JobTopology::uniform(
			has_links ? &links.value() : nullptr, req->nodes, req->gpus_per_node, speeds);
		if (!topo.ok())
			return fail_with(topo, err, errlen);
		PartitionSettings s;
		s.global_batch = req->global_batch;
		s.mem_limit_bytes = req->mem_limit_bytes;
		if (req->param_copies != 0)
			s.param_copies = req->param_copies;
		Parsed<PartitionResult> r = partition(prof.value(), topo.value(), s);
		if (!r.ok())
			return fail_with(r, err, errlen);
		std::string json = partition_json(r.value(), prof.value(), topo.value());
		if (json.size() >= outlen) {
			put(err, errlen, "the plan needs " + std::to_string(json.size() + 1) +
						 " bytes of output");
			return OMRU_EINVAL;
		}
		put(out, outlen, json);
		return OMRU_OK;
	});
}
