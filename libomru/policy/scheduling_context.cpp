// scheduling_context.cpp - quantities derived from JobProgress at "now".
#include "policy/scheduling_context.hpp"

#include <algorithm>

namespace omru {

double SchedulingContext::remaining_epochs(int job) const
{
	const JobProgress &p = progress(job);
	double left = workload().jobs[job].epochs - p.epochs_done;
	if (p.state == JobProgress::State::Running && now_s() > p.progress_start_s)
		left -= (now_s() - p.progress_start_s) / p.epoch_s;
	return std::max(0.0, left);
}

double SchedulingContext::attained_gpu_seconds(int job) const
{
	const JobProgress &p = progress(job);
	double s = p.gpu_seconds;
	if (p.state == JobProgress::State::Running)
		s += p.gpus * (now_s() - p.segment_start_s);
	return s;
}

bool SchedulingContext::in_restart_overhead(int job) const
{
	const JobProgress &p = progress(job);
	return p.state == JobProgress::State::Running &&
	       now_s() < p.progress_start_s;
}

int SchedulingContext::free_gpus() const
{
	int n = 0;
	for (int f : free_gpus_per_node())
		n += f;
	return n;
}

} // namespace omru
