// partition_report.cpp - see partition_report.hpp.
#include "pipeline/partition_report.hpp"

#include <cmath>
#include <cstdio>

#include "sim/summary.hpp" // json_string, json_number

namespace omru {
namespace pipeline {

namespace {

std::string fmt(const char *f, double v)
{
	char buf[64];
	std::snprintf(buf, sizeof(buf), f, v);
	return buf;
}

// Three significant digits, and every digit of whole milliseconds.
std::string ms(double s)
{
	return fmt(s >= 0.1 ? "%.0f ms" : "%.3g ms", s * 1e3);
}

std::string mib(double bytes)
{
	return fmt("%.1f MiB", bytes / (1 << 20));
}

std::string gpu_name(const JobTopology &t, int pos)
{
	return "n" + std::to_string(t.gpu(pos).node) + ":" + std::to_string(t.gpu(pos).slot);
}

std::string layer_range(const LayerProfile &p, const StagePlan &st)
{
	const std::string &a = p.layers[static_cast<size_t>(st.first_layer)].name;
	const std::string &b = p.layers[static_cast<size_t>(st.end_layer - 1)].name;
	return st.end_layer - st.first_layer == 1 ? a : a + ".." + b;
}

std::string plan_json(const PipelinePlan &plan, const LayerProfile &p, const JobTopology &t)
{
	if (plan.stages.empty())
		return "null";
	std::string o = "{\"iteration_s\": " + json_number(plan.iteration_s) +
			", \"bottleneck_s\": " + json_number(plan.bottleneck_s) +
			", \"micro_batches\": " + std::to_string(plan.micro_batches) +
			", \"micro_batch\": " + json_number(plan.micro_batch) + ", \"stages\": [";
	for (size_t s = 0; s < plan.stages.size(); s++) {
		const StagePlan &st = plan.stages[s];
		o += s ? ", " : "";
		o += "{\"first_layer\": " + std::to_string(st.first_layer) +
		     ", \"end_layer\": " + std::to_string(st.end_layer) + ", \"layers\": [";
		for (int l = st.first_layer; l < st.end_layer; l++)
			o += (l > st.first_layer ? ", " : "") +
			     json_string(p.layers[static_cast<size_t>(l)].name);
		o += "], \"gpus\": [";
		for (size_t g = 0; g < st.gpus.size(); g++)
			o += (g ? ", " : "") + std::string("{\"node\": ") +
			     std::to_string(t.gpu(st.gpus[g]).node) +
			     ", \"slot\": " + std::to_string(t.gpu(st.gpus[g]).slot) + "}";
		o += "], \"recompute\": [";
		for (size_t i = 0; i < st.fit.recompute.size(); i++)
			o += (i ? ", " : "") +
			     json_string(p.layers[static_cast<size_t>(st.fit.recompute[i])].name);
		o += "], \"micro_batches_each\": " + std::to_string(st.micro_batches_each) +
		     ", \"fwd_s\": " + json_number(st.fit.fwd_s) +
		     ", \"bwd_s\": " + json_number(st.fit.bwd_s) +
		     ", \"allreduce_s\": " + json_number(st.allreduce_s) +
		     ", \"send_s\": " + json_number(st.send_s) +
		     ", \"mem_bytes\": " + fmt("%.0f", st.fit.mem_bytes) + "}";
	}
	return o + "]}";
}

} // namespace

std::string partition_text(const PartitionResult &r, const LayerProfile &profile,
			   const JobTopology &topo, const PartitionSettings &settings)
{
	const PipelinePlan &b = r.best;
	int nodes = topo.gpu(topo.size() - 1).node + 1;
	std::string o = "model: " + std::to_string(profile.layers.size()) + " layers, batch " +
			std::to_string(settings.global_batch) + ", " +
			std::to_string(topo.size()) + " GPUs on " + std::to_string(nodes) +
			(nodes == 1 ? " node" : " nodes") + "\n";
	o += std::string("plan: ") +
	     (b.is_data_parallel() ? "data parallel"
				   : "pipeline, " + std::to_string(b.stages.size()) + " stages") +
	     ", " + std::to_string(b.micro_batches) + " micro-batches of " +
	     fmt("%g", b.micro_batch) + " samples\n";
	for (size_t s = 0; s < b.stages.size(); s++) {
		const StagePlan &st = b.stages[s];
		o += "stage " + std::to_string(s) + ": " + layer_range(profile, st) + " on";
		for (int g : st.gpus)
			o += " " + gpu_name(topo, g);
		o += "\n  per micro-batch: forward " + ms(st.fit.fwd_s) + ", backward " +
		     ms(st.fit.bwd_s);
		if (st.send_s > 0)
			o += ", send " + ms(st.send_s);
		o += "; " + std::to_string(st.micro_batches_each) + " per replica";
		if (st.allreduce_s > 0)
			o += "; allreduce " + ms(st.allreduce_s);
		o += "\n  memory per GPU: " + mib(st.fit.mem_bytes);
		if (!st.fit.recompute.empty()) {
			o += ", recomputing";
			for (int l : st.fit.recompute)
				o += " " + profile.layers[static_cast<size_t>(l)].name;
		}
		o += "\n";
	}
	o += "iteration: " + ms(b.iteration_s) + " predicted";
	if (r.data_parallel.stages.empty())
		o += " (data parallel: " + r.data_parallel_why + ")\n";
	else
		o += " (data parallel: " + ms(r.data_parallel.iteration_s) + ", " +
		     fmt("%.2fx", r.data_parallel.iteration_s / b.iteration_s) + ")\n";
	return o;
}

std::string partition_json(const PartitionResult &r, const LayerProfile &profile,
			   const JobTopology &topo)
{
	return "{\"best\": " + plan_json(r.best, profile, topo) +
	       ", \"data_parallel\": " + plan_json(r.data_parallel, profile, topo) +
	       ", \"speedup\": " +
	       (r.data_parallel.stages.empty()
			? std::string("null")
			: json_number(r.data_parallel.iteration_s / r.best.iteration_s)) +
	       "}";
}

} // namespace pipeline
} // namespace omru
