// partitioner.cpp - see partitioner.hpp.
#include "pipeline/partitioner.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

namespace omru {
namespace pipeline {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

int ceil_div(int a, int b)
{
	return (a + b - 1) / b;
}

// "1.5 GiB", "300 MiB", "12 bytes": three digits in the largest unit.
std::string bytes_text(double bytes)
{
	static const char *unit[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
	int u = 0;
	while (u < 4 && bytes >= 1024) {
		bytes /= 1024;
		u++;
	}
	std::ostringstream o;
	o.precision(3);
	o << bytes << " " << unit[u];
	return o.str();
}

} // namespace

Parsed<std::vector<StageShape>> parse_stage_shapes(const std::string &text)
{
	using P = Parsed<std::vector<StageShape>>;
	std::vector<StageShape> out;
	std::stringstream in(text);
	for (std::string item; std::getline(in, item, ',');) {
		int end = 0, r = 0;
		char colon = 0, extra = 0;
		std::istringstream f(item);
		if (!(f >> end >> colon >> r) || colon != ':' || (f >> extra) || end < 1 ||
		    r < 1)
			return P::fail("'" + item + "' is not END:REPLICAS (whole numbers >= 1)");
		out.push_back(StageShape{end, r});
	}
	if (out.empty())
		return P::fail("no stage");
	return out;
}

Parsed<PipelinePlan> evaluate(StageCosts &costs, const std::vector<StageShape> &shape)
{
	using P = Parsed<PipelinePlan>;
	const int L = costs.layers(), M = costs.micro_batches(), S = static_cast<int>(shape.size());
	PipelinePlan plan;
	plan.micro_batches = M;
	plan.micro_batch = costs.micro_batch();
	int first = 0, pos = 0;
	for (int s = 0; s < S; s++) {
		const StageShape &sh = shape[static_cast<size_t>(s)];
		if (sh.end_layer <= first || sh.end_layer > L || sh.replicas < 1)
			return P::fail("stage " + std::to_string(s) + " is empty");
		if (pos + sh.replicas > costs.gpus())
			return P::fail("more replicas than GPUs");
		StagePlan st;
		st.first_layer = first;
		st.end_layer = sh.end_layer;
		for (int r = 0; r < sh.replicas; r++)
			st.gpus.push_back(pos + r);
		st.micro_batches_each = costs.per_replica(sh.replicas);
		st.fit = costs.fit(first, sh.end_layer, costs.in_flight(sh.replicas, S - s));
		if (!st.fit.fits)
			return P::fail("stage " + std::to_string(s) + " needs " +
				       bytes_text(st.fit.need_bytes) + " per GPU");
		first = sh.end_layer;
		pos += sh.replicas;
		plan.stages.push_back(st);
	}
	if (first != L)
		return P::fail("the stages do not cover every layer");
	if (costs.all_gpus() && pos != costs.gpus())
		return P::fail("the stages leave GPUs idle");
	double through = 0, steady = 0, bottleneck = 0;
	for (int s = 0; s < S; s++) {
		StagePlan &st = plan.stages[static_cast<size_t>(s)];
		int r = static_cast<int>(st.gpus.size());
		double t = st.fit.fwd_s + st.fit.bwd_s;
		st.allreduce_s = costs.allreduce_s(st.first_layer, st.end_layer, st.gpus[0], r);
		through += t;
		steady = std::max(steady, (st.micro_batches_each - 1) * t);
		bottleneck = std::max(bottleneck, st.micro_batches_each * t + st.allreduce_s);
		if (s + 1 < S) {
			int r2 = static_cast<int>(plan.stages[static_cast<size_t>(s + 1)].gpus.size());
			// The next stage's gpus are not filled yet: it starts after ours.
			st.send_s = costs.send_s(st.end_layer, st.gpus[0], r, r2);
			int sends = ceil_div(M, std::min(r, r2));
			through += st.send_s;
			steady = std::max(steady, (sends - 1) * st.send_s);
			bottleneck = std::max(bottleneck, sends * st.send_s);
		}
	}
	double pipe = through + steady, end = pipe, drained = 0;
	plan.iteration_s = pipe;
	for (const StagePlan &st : plan.stages) {
		plan.iteration_s = std::max(plan.iteration_s, end - drained + st.allreduce_s);
		drained += st.fit.bwd_s + st.send_s / 2;
	}
	plan.bottleneck_s = bottleneck;
	return plan;
}

std::vector<PipelinePlan> best_splits(StageCosts &costs, int max_stages)
{
	const int L = costs.layers(), G = costs.gpus(), M = costs.micro_batches();
	const int K = std::max(0, std::min({max_stages, L, G}));
	std::vector<PipelinePlan> out(static_cast<size_t>(std::max(0, max_stages)));
	if (K == 0)
		return out;
	// W[k][i][p][r] and the choice (j, r2) that reached it.
	auto at = [&](int k, int i, int p, int r) {
		return ((static_cast<size_t>(k) * static_cast<size_t>(L) + static_cast<size_t>(i)) *
				static_cast<size_t>(G) +
			static_cast<size_t>(p)) *
			       static_cast<size_t>(G + 1) +
		       static_cast<size_t>(r);
	};
	size_t cells = at(K + 1, 0, 0, 0);
	std::vector<double> W(cells, kInf);
	std::vector<int> next_j(cells, -1), next_r(cells, -1);
	for (int k = 1; k <= K; k++)
		for (int i = 0; i + k <= L; i++)
			for (int p = 0; p + k <= G; p++)
				for (int r = 1; p + r + (k - 1) <= G; r++) {
					if (k == 1 && costs.all_gpus() && p + r != G)
						continue; // the last stage takes the rest
					int n = costs.per_replica(r), w = costs.in_flight(r, k);
					double best = kInf;
					int bj = -1, br = -1;
					int j_lo = k == 1 ? L : i + 1, j_hi = k == 1 ? L : L - (k - 1);
					for (int j = j_lo; j <= j_hi; j++) {
						const StageFit &f = costs.fit(i, j, w);
						if (!f.fits)
							continue;
						double busy = n * (f.fwd_s + f.bwd_s) +
							      costs.allreduce_s(i, j, p, r);
						if (busy >= best)
							continue;
						if (k == 1) {
							best = busy;
							bj = j;
							continue;
						}
						for (int r2 = 1; p + r + r2 + (k - 2) <= G; r2++) {
							double sub = W[at(k - 1, j, p + r, r2)];
							if (sub >= best)
								continue;
							double link = ceil_div(M, std::min(r, r2)) *
								      costs.send_s(j, p, r, r2);
							double v = std::max({busy, link, sub});
							if (v < best) {
								best = v;
								bj = j;
								br = r2;
							}
						}
					}
					W[at(k, i, p, r)] = best;
					next_j[at(k, i, p, r)] = bj;
					next_r[at(k, i, p, r)] = br;
				}
	for (int S = 1; S <= K; S++) {
		double best = kInf;
		int br = -1;
		for (int r = 1; r + (S - 1) <= G; r++)
			if (W[at(S, 0, 0, r)] < best) {
				best = W[at(S, 0, 0, r)];
				br = r;
			}
		if (br < 0)
			continue;
		std::vector<StageShape> shape;
		int i = 0, p = 0, r = br;
		for (int k = S; k >= 1; k--) {
			size_t c = at(k, i, p, r);
			shape.push_back(StageShape{next_j[c], r});
			i = next_j[c];
			p += r;
			r = next_r[c];
		}
		Parsed<PipelinePlan> plan = evaluate(costs, shape);
		if (plan.ok())
			out[static_cast<size_t>(S - 1)] = plan.value();
	}
	return out;
}

Parsed<PartitionResult> partition(const LayerProfile &profile, const JobTopology &topo,
				  const PartitionSettings &settings)
{
	using P = Parsed<PartitionResult>;
	const int L = static_cast<int>(profile.layers.size()), G = topo.size();
	if (L < 1)
		return P::fail("the model has no layer");
	if (L > kMaxPipelineLayers)
		return P::fail("the model has " + std::to_string(L) + " layers; at most " +
			       std::to_string(kMaxPipelineLayers) +
			       " can be partitioned (profile blocks of layers instead)");
	if (G > kMaxPipelineGpus)
		return P::fail("the job has " + std::to_string(G) + " GPUs; at most " +
			       std::to_string(kMaxPipelineGpus) + " can be partitioned");
	if (settings.global_batch < 1)
		return P::fail("the global batch must be at least 1 sample");
	if (!std::isfinite(settings.mem_limit_bytes) || settings.mem_limit_bytes < 0)
		return P::fail("the memory limit must be a number >= 0 (0: none)");
	if (!std::isfinite(settings.param_copies) || settings.param_copies < 1)
		return P::fail("the parameter copies must be a number >= 1");
	PartitionResult res;
	bool any = false;
	int smallest = 1; // micro-batch count of the smallest micro-batch tried
	for (int M = 1; M <= std::min(settings.global_batch, kMaxMicroBatches); M++) {
		if (settings.global_batch % M)
			continue;
		smallest = M;
		StageCosts costs(profile, topo, settings, M);
		Parsed<PipelinePlan> dp = evaluate(costs, {StageShape{L, G}});
		if (dp.ok() && (res.data_parallel.stages.empty() ||
				dp.value().iteration_s < res.data_parallel.iteration_s))
			res.data_parallel = dp.value();
		for (const PipelinePlan &p : best_splits(costs, kMaxStages)) {
			if (p.stages.empty())
				continue;
			if (!any || p.iteration_s < res.best.iteration_s) {
				res.best = p;
				any = true;
			}
		}
	}
	if (res.data_parallel.stages.empty())
		res.data_parallel_why = "one replica of the whole model does not fit " +
					bytes_text(settings.mem_limit_bytes) + " per GPU";
	if (!any) {
		// The layer that needs most on its own, at the smallest micro-batch
		// and one in flight: no stage holding it can need less.
		StageCosts costs(profile, topo, settings, smallest);
		int worst = 0;
		for (int l = 1; l < L; l++)
			if (costs.fit(l, l + 1, 1).need_bytes > costs.fit(worst, worst + 1, 1).need_bytes)
				worst = l;
		const StageFit &f = costs.fit(worst, worst + 1, 1);
		std::string why = "no split of the model onto " + std::to_string(G) +
				  " GPUs fits " + bytes_text(settings.mem_limit_bytes) +
				  " per GPU, even recomputing every layer it can";
		double params = 0;
		for (const LayerCost &c : profile.layers)
			params += c.param_bytes;
		double spread = settings.param_copies * params / G;
		if (!f.fits)
			why += ": layer '" + profile.layers[static_cast<size_t>(worst)].name +
			       "' alone needs " + bytes_text(f.need_bytes);
		else if (spread > settings.mem_limit_bytes)
			why += ": the parameters alone need " + bytes_text(spread) +
			       " per GPU however they are spread";
		return P::fail(why);
	}
	// The data-parallel plan wins ties: it is the simpler way to run.
	if (!res.data_parallel.stages.empty() &&
	    res.data_parallel.iteration_s <= res.best.iteration_s)
		res.best = res.data_parallel;
	return res;
}

} // namespace pipeline
} // namespace omru
