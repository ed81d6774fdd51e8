// report_svg.hpp - omru-report's SVG: Gantt charts of what really ran
// (omru-sim's chart, sim/gantt_svg.hpp, over the nodes the jobs used),
// one per window of jobs on one time scale, stacked with a scatter plot
// of predicted against real runtime (of the last window).
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

// A window of jobs as the chart needs it.
struct WindowJobs {
	const std::vector<JobReport> *jobs;
	const WindowStats *stats;
};

// One window's finished jobs as segments, times from its t0_s.
struct WindowSchedule {
	Schedule schedule; // one segment per drawn job, in submit order
	double t0_s = 0;   // time 0: the window's first Submit
};

// The finished jobs with GPUs and nodes of each window as a schedule on
// one cluster: the nodes any of them used.  sacct gives a job's GPU total
// and its nodes, not the GPUs on each: they are spread evenly (the first
// nodes take one more when it does not divide).  A node has as many GPUs
// as sinfo says, or at least as many as the jobs of one window used at
// one time (at most kMaxGpusPerNode).  When every window has the same
// jobs by name in submit order (the same workload run under two
// schedulers), the k-th jobs are one workload job (one colour, labelled
// by name); else each window's jobs are their own, labelled by id.
struct RealSchedules {
	Cluster cluster;                     // nodes == 0: nothing to draw
	std::vector<std::string> node_names; // node order, natural sort
	Workload workload;                   // the drawn jobs
	std::vector<WindowSchedule> windows; // as given
};

RealSchedules real_schedules(const std::vector<WindowJobs> &windows,
			     const std::map<std::string, int> &sinfo_gpus);

// Writes the whole document: one window's chart.
void write_report_svg(std::ostream &out, const std::vector<JobReport> &jobs,
		      const WindowStats &stats,
		      const std::map<std::string, int> &sinfo_gpus);

// Writes the whole document: the baseline's chart above this window's
// (omru-report --baseline), the scatter plot of this window's jobs.
void write_comparison_svg(std::ostream &out, const NamedWindow &base,
			  const std::string &name, const std::vector<JobReport> &jobs,
			  const WindowStats &stats,
			  const std::map<std::string, int> &sinfo_gpus);

} // namespace report
} // namespace omru

#endif
