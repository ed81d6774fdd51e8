// report_svg.hpp - omru-report's SVG: a Gantt chart of what really ran
// (omru-sim's chart, sim/gantt_svg.hpp, over the nodes the jobs used)
// stacked with a scatter plot of predicted against real runtime.
#ifndef OMRU_REPORT_REPORT_SVG_HPP
#define OMRU_REPORT_REPORT_SVG_HPP

#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "model/cluster.hpp"
#include "model/schedule.hpp"
#include "report_stats.hpp"

namespace omru {
namespace report {

// The finished jobs with GPUs and nodes as a schedule on a cluster of the
// nodes they used.  sacct gives a job's GPU total and its nodes, not the
// GPUs on each: they are spread evenly (the first nodes take one more
// when it does not divide).  A node has as many GPUs as sinfo says, or at
// least as many as its jobs used at one time (at most kMaxGpusPerNode).
struct RealSchedule {
	Cluster cluster;                     // nodes == 0: nothing to draw
	std::vector<std::string> node_names; // node order, natural sort
	Workload workload;                   // the drawn jobs
	Schedule schedule;                   // one segment per drawn job
	double t0_s = 0;                     // time 0: the first Submit
};

RealSchedule real_schedule(const std::vector<JobReport> &jobs,
			   const WindowStats &stats,
			   const std::map<std::string, int> &sinfo_gpus);

// Writes the whole document.
void write_report_svg(std::ostream &out, const std::vector<JobReport> &jobs,
		      const WindowStats &stats,
		      const std::map<std::string, int> &sinfo_gpus);

} // namespace report
} // namespace omru

#endif
