// plan_fixture.hpp - what the planner's unit tests (test_plan_nodes,
// test_plan_resources, test_plan_pools, test_reference) build their
// inputs from.
#ifndef OMRU_TEST_PLAN_FIXTURE_HPP
#define OMRU_TEST_PLAN_FIXTURE_HPP

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "planner/planner.hpp"

namespace omru_test {

// One kind of job: `g` GPUs only, 100 s per epoch on any span up to
// min(g, nodes).
inline omru::planner::SpeedCurve rigid(int g, int nodes)
{
	omru::planner::SpeedCurve cv;
	cv.gpus = { g };
	cv.epoch_s = { std::vector<double>(std::min(g, nodes) + 1, 100.0) };
	return cv;
}

// 1..4 GPUs, each count faster (400 s / g an epoch on any span up to
// min(g, nodes)).
inline omru::planner::SpeedCurve moldable(int nodes = 1)
{
	omru::planner::SpeedCurve cv;
	for (int g = 1; g <= 4; g++) {
		cv.gpus.push_back(g);
		cv.epoch_s.push_back(std::vector<double>(std::min(g, nodes) + 1, 400.0 / g));
	}
	return cv;
}

// `nodes` idle nodes of 4 GPUs, GPUs the only resource.
inline omru::planner::PlanInput gpu_cluster(int nodes)
{
	omru::planner::PlanInput in;
	in.nodes = nodes;
	in.gpus_per_node = 4;
	in.free_per_node.assign(nodes, 4);
	return in;
}

// `j` running on node 0 with `gpus` GPUs, `epochs` left at `epoch_s` each
// from time 0; resizable (GPU reuse may grow it) or not.
inline omru::planner::PlanJob running_on_node0(omru::planner::PlanJob j, int gpus,
						double epoch_s, double epochs,
						bool resizable)
{
	j.running = true;
	j.gpus = gpus;
	j.where = { { 0, gpus } };
	j.epoch_s = epoch_s;
	j.epochs_at_progress_start = epochs;
	j.resizable = resizable;
	return j;
}

// What check_plan_input says of `in`, "" if it accepts it.
inline std::string refusal(const omru::planner::PlanInput &in)
{
	try {
		omru::planner::check_plan_input(in);
	} catch (const std::invalid_argument &e) {
		return e.what();
	}
	return "";
}

} // namespace omru_test

#endif
