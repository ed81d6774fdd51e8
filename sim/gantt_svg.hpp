// gantt_svg.hpp - Gantt charts of schedules as one SVG: GPUs (grouped by
// node) down the side, time across, one colour per job.
#ifndef OMRU_SIM_GANTT_SVG_HPP
#define OMRU_SIM_GANTT_SVG_HPP

#include <ostream>
#include <string>
#include <vector>

#include "model/schedule.hpp"

namespace omru {

struct GanttChart {
	std::string title;          // e.g. "fifo: makespan 12345 s"
	const Schedule *schedule;   // segments with gpu_ids, or nodes only
};

// Writes one SVG document with the charts stacked top to bottom on a common
// time scale (the longest schedule fills the width).
void write_gantt_svg(std::ostream &out, const Cluster &c, const Workload &w,
		     const std::vector<GanttChart> &charts);

} // namespace omru

#endif
