// report_svg.cpp - see report_svg.hpp.
//
// The Gantt charts (one per window: --baseline adds the baseline's above,
// on the same time scale) are omru-sim's own (write_gantt_svg), written to
// a string and nested as an <svg> element at the top of this document, so
// the two tools draw schedules the same way.  Below them: a legend of node names
// (the chart numbers nodes), then the scatter plot, drawn here:
// - a square plot, both axes from 0 to the same round maximum, so the
//   diagonal real = predicted runs corner to corner and a dot above it is
//   a job that ran longer than predicted;
// - one dot per completed job with a prediction, coloured by where its
//   profile came from (site, measured, estimated, default), with a <title>
//   tooltip giving the job, model, both times and the error.
#include "report_svg.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <string_view>

#include "model/decimal_text.hpp"
#include "report_text.hpp" // local_time_text
#include "sim/gantt_svg.hpp"
#include "sim/svg_text.hpp"

namespace omru {
namespace report {
namespace {

using svg::appendf;
using svg::num;
using svg::put_text;

constexpr double kWidth = 1400; // as the Gantt chart
constexpr double kPlotSide = 440;
constexpr double kPlotLeft = 80;
constexpr double kTitleFont = 14;
constexpr double kAxisFont = 10;

// "n2" before "n10": digit runs compare as numbers.
bool natural_less(const std::string &a, const std::string &b)
{
	size_t i = 0, j = 0;
	while (i < a.size() && j < b.size()) {
		if (std::isdigit(static_cast<unsigned char>(a[i])) &&
		    std::isdigit(static_cast<unsigned char>(b[j]))) {
			size_t i2 = i, j2 = j;
			while (i2 < a.size() && std::isdigit(static_cast<unsigned char>(a[i2])))
				i2++;
			while (j2 < b.size() && std::isdigit(static_cast<unsigned char>(b[j2])))
				j2++;
			std::string_view x(a.data() + i, i2 - i), y(b.data() + j, j2 - j);
			x.remove_prefix(std::min(x.find_first_not_of('0'), x.size()));
			y.remove_prefix(std::min(y.find_first_not_of('0'), y.size()));
			if (x.size() != y.size())
				return x.size() < y.size();
			if (x != y)
				return x < y;
			i = i2;
			j = j2;
			continue;
		}
		if (a[i] != b[j])
			return a[i] < b[j];
		i++;
		j++;
	}
	return a.size() - i < b.size() - j || (a.size() - i == b.size() - j && a < b);
}

bool drawn(const JobReport &r)
{
	return r.phase == JobPhase::Finished && r.job.gpus > 0 &&
	       !r.job.nodes.empty() && r.real_s >= 0;
}

// Smallest 1, 2 or 5 x 10^k that is at least raw (> 0).
double nice_step(double raw)
{
	const double p = std::pow(10.0, std::floor(std::log10(raw)));
	for (double m : { 1.0, 2.0, 5.0 })
		if (m * p >= raw * (1 - 1e-9))
			return m * p;
	return 10 * p;
}

const char *source_colour(const std::string &profile)
{
	if (profile == "site")
		return "#1b9e77";
	if (profile == "measured")
		return "#d95f02";
	if (profile == "estimated")
		return "#7570b3";
	if (profile == "default")
		return "#e7298a";
	return "#777777";
}

// "NAME: N jobs on K nodes, makespan X s, GPU utilization Y%".
std::string chart_title(const std::string &name, size_t jobs, int nodes,
			const WindowStats &stats)
{
	return name + ": " + std::to_string(jobs) + " job" + (jobs == 1 ? "" : "s") +
	       " on " + std::to_string(nodes) + " node" + (nodes == 1 ? "" : "s") +
	       ", makespan " + decimal_text(stats.makespan_s, 1) + " s, GPU utilization " +
	       (std::isnan(stats.gpu_utilization)
			? std::string("n/a")
			: decimal_text(stats.gpu_utilization * 100, 1) + "%");
}

// The Gantt charts' document (one chart per window, one time scale),
// without its XML declaration, and its height.
std::string gantt_element(const RealSchedules &rs, const std::vector<std::string> &titles,
			  double &height)
{
	std::vector<GanttChart> charts;
	for (size_t w = 0; w < rs.windows.size(); w++)
		charts.push_back({ titles[w], &rs.windows[w].schedule });
	std::ostringstream doc;
	write_gantt_svg(doc, rs.cluster, rs.workload, charts);
	std::string s = doc.str();
	if (s.compare(0, 5, "<?xml") == 0)
		s.erase(0, s.find('\n') + 1);
	height = 0;
	const size_t h = s.find("height=\"");
	if (h != std::string::npos && h < s.find('>'))
		height = std::atof(s.c_str() + h + 8);
	return s;
}

// "nodes: 0 n1, 1 n2, ..." under the chart, cut to the page width.
void draw_node_legend(std::string &out, const RealSchedules &rs, double y)
{
	std::string names;
	for (size_t n = 0; n < rs.node_names.size(); n++)
		names += (n ? ", " : "") + std::to_string(n) + " " + rs.node_names[n];
	appendf(out, "<text x=\"10\" y=\"%s\" font-size=\"11\" fill=\"#555\">nodes: ",
		num(y + 11).s);
	put_text(out, names, 220);
	out += "</text>\n";
}

struct Dot {
	const JobReport *job;
	double predicted_s, real_s;
};

// The scatter plot with its top edge at y; returns its bottom edge.
double draw_scatter(std::string &out, const std::vector<JobReport> &jobs,
		    const WindowStats &stats, double y)
{
	std::vector<Dot> dots;
	for (const JobReport &r : jobs)
		if (!std::isnan(r.error_pct))
			dots.push_back({ &r, r.record.predicted_s, r.real_s });

	appendf(out, "<text x=\"10\" y=\"%s\" font-size=\"%s\" font-weight=\"bold\">",
		num(y + kTitleFont).s, num(kTitleFont).s);
	std::string title = "predicted vs real runtime: " +
			    std::to_string(dots.size()) + " completed job" +
			    (dots.size() == 1 ? "" : "s") + " with a prediction";
	if (!dots.empty())
		title += "; |error| median " + decimal_text(stats.error_median_pct, 1) +
			 "%, p90 " + decimal_text(stats.error_p90_pct, 1) + "%";
	put_text(out, title);
	out += "</text>\n";

	const double top = y + kTitleFont + 14, left = kPlotLeft;
	const double bottom = top + kPlotSide, right = left + kPlotSide;
	double max_s = 0;
	for (const Dot &d : dots)
		max_s = std::max({ max_s, d.predicted_s, d.real_s });
	const double step = nice_step(std::max(max_s * 1.05, 1.0) / 5);
	const double axis_s = step * std::ceil(std::max(max_s * 1.05, 1.0) / step);
	auto px = [&](double s) { return left + kPlotSide * s / axis_s; };
	auto py = [&](double s) { return bottom - kPlotSide * s / axis_s; };

	appendf(out, "<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"#fff\" stroke=\"#888\"/>\n",
		num(left).s, num(top).s, num(kPlotSide).s, num(kPlotSide).s);
	// Grid and tick labels, the same on both axes.
	std::string grid, labels;
	const int decimals = step >= 1 ? 0 : static_cast<int>(std::ceil(-std::log10(step) - 1e-9));
	for (long i = 0; i * step <= axis_s * (1 + 1e-9); i++) {
		const double v = i * step;
		appendf(grid, "M%s %sV%sM%s %sH%s", num(px(v)).s, num(top).s,
			num(bottom).s, num(left).s, num(py(v)).s, num(right).s);
		const std::string t = decimal_text(v, decimals);
		appendf(labels, "<text x=\"%s\" y=\"%s\" text-anchor=\"middle\">%s</text>",
			num(px(v)).s, num(bottom + 4 + kAxisFont).s, t.c_str());
		appendf(labels, "<text x=\"%s\" y=\"%s\" text-anchor=\"end\">%s</text>\n",
			num(left - 4).s, num(py(v) + 0.35 * kAxisFont).s, t.c_str());
	}
	appendf(out, "<path stroke=\"#e2e2e2\" fill=\"none\" d=\"%s\"/>\n", grid.c_str());
	appendf(out, "<g font-size=\"%s\" fill=\"#333\">\n%s</g>\n",
		num(kAxisFont).s, labels.c_str());
	appendf(out, "<text x=\"%s\" y=\"%s\" font-size=\"11\" text-anchor=\"middle\" fill=\"#333\">predicted_s (select/omru at the start)</text>\n",
		num(left + kPlotSide / 2).s, num(bottom + 30).s);
	appendf(out, "<text x=\"%s\" y=\"%s\" font-size=\"11\" text-anchor=\"middle\" fill=\"#333\" transform=\"rotate(-90 %s %s)\">real runtime, s (End - Start)</text>\n",
		num(24).s, num(top + kPlotSide / 2).s, num(24).s,
		num(top + kPlotSide / 2).s);
	appendf(out, "<path stroke=\"#888\" stroke-dasharray=\"4 3\" d=\"M%s %sL%s %s\"/>\n",
		num(left).s, num(bottom).s, num(right).s, num(top).s);
	appendf(out, "<text x=\"%s\" y=\"%s\" font-size=\"10\" text-anchor=\"end\" fill=\"#777\">real = predicted</text>\n",
		num(right - 6).s, num(top + 14).s);

	out += "<g stroke=\"#fff\" stroke-width=\"0.8\">\n";
	for (const Dot &d : dots) {
		const JobReport &r = *d.job;
		appendf(out, "<circle cx=\"%s\" cy=\"%s\" r=\"4.5\" fill=\"%s\"><title>",
			num(px(d.predicted_s)).s, num(py(d.real_s)).s,
			source_colour(r.record.profile));
		put_text(out, r.job.id + " (" + (r.record.model.empty() ? "?" : r.record.model) +
				      ", " + std::to_string(r.job.gpus) + " GPUs, profile " +
				      (r.record.profile.empty() ? "?" : r.record.profile) + ")");
		appendf(out, ": predicted %s s, real %s s, error %s%s%%</title></circle>\n",
			decimal_text(d.predicted_s, 1).c_str(), decimal_text(d.real_s, 1).c_str(),
			r.error_pct >= 0 ? "+" : "", decimal_text(r.error_pct, 1).c_str());
	}
	out += "</g>\n";
	if (dots.empty())
		appendf(out, "<text x=\"%s\" y=\"%s\" font-size=\"12\" text-anchor=\"middle\" fill=\"#888\">no completed job with a prediction</text>\n",
			num(left + kPlotSide / 2).s, num(top + kPlotSide / 2).s);

	// Legend: the profile sources, right of the plot.
	double ly = top + 10;
	appendf(out, "<g font-size=\"11\" fill=\"#333\">\n");
	for (const char *src : { "site", "measured", "estimated", "default" }) {
		appendf(out, "<circle cx=\"%s\" cy=\"%s\" r=\"4.5\" fill=\"%s\"/><text x=\"%s\" y=\"%s\">profile %s</text>\n",
			num(right + 24).s, num(ly).s, source_colour(src),
			num(right + 34).s, num(ly + 4).s, src);
		ly += 18;
	}
	appendf(out, "<text x=\"%s\" y=\"%s\" fill=\"#777\">above the line: ran longer than predicted</text>\n",
		num(right + 18).s, num(ly + 10).s);
	out += "</g>\n";
	return bottom + 40;
}

// The drawn jobs of each window, in submit order.
std::vector<std::vector<const JobReport *>>
drawn_jobs(const std::vector<WindowJobs> &windows)
{
	std::vector<std::vector<const JobReport *>> out;
	for (const WindowJobs &w : windows) {
		std::vector<const JobReport *> shown;
		for (const JobReport &r : *w.jobs)
			if (drawn(r))
				shown.push_back(&r);
		std::stable_sort(shown.begin(), shown.end(),
				 [](const JobReport *a, const JobReport *b) {
					 return a->job.submit_s < b->job.submit_s;
				 });
		out.push_back(std::move(shown));
	}
	return out;
}

// The same workload run twice (or more): every window has as many drawn
// jobs, the k-th submitted of each named the same.  Then the k-th jobs
// share one colour and label (their name) across the charts.
bool same_workload(const std::vector<std::vector<const JobReport *>> &shown)
{
	if (shown.size() < 2)
		return false;
	for (const auto &w : shown) {
		if (w.size() != shown[0].size())
			return false;
		for (size_t k = 0; k < w.size(); k++)
			if (w[k]->job.name.empty() || w[k]->job.name != shown[0][k]->job.name)
				return false;
	}
	return true;
}

// The GPUs of each drawn job of one window on each of its nodes (node
// index, count).  sacct gives a job's total only.  Spread evenly (the
// first nodes one more when it does not divide), unless a node's GPUs are
// known (sinfo) and the jobs already running there at the job's start
// leave fewer free: then the rest goes to its other nodes with free GPUs
// (a 6-GPU job on two 4-GPU nodes, one of them half busy: 4 + 2, not
// 3 + 3).  What fits nowhere (the nodes had fewer GPUs than sacct says
// ran) goes round the job's nodes from the first.
std::vector<std::vector<std::pair<int, int>>>
split_gpus(const std::vector<const JobReport *> &jobs,
	   const std::map<std::string, int> &index, const std::vector<int> &cap)
{
	std::vector<std::vector<std::pair<int, int>>> out(jobs.size());
	std::vector<size_t> order(jobs.size());
	for (size_t i = 0; i < order.size(); i++)
		order[i] = i;
	std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
		return jobs[a]->job.start_s < jobs[b]->job.start_s;
	});
	struct Held {
		double end_s;
		int node, gpus;
	};
	std::vector<Held> running;
	for (size_t j : order) {
		const SacctJob &job = jobs[j]->job;
		running.erase(std::remove_if(running.begin(), running.end(),
					     [&](const Held &h) { return h.end_s <= job.start_s; }),
			      running.end());
		std::vector<int> nodes;
		for (const std::string &name : job.nodes)
			if (auto it = index.find(name); it != index.end())
				nodes.push_back(it->second);
		const int k = static_cast<int>(nodes.size());
		if (k == 0)
			continue;
		std::vector<int> share(k), room(k);
		for (int i = 0; i < k; i++) {
			share[i] = job.gpus / k + (i < job.gpus % k ? 1 : 0);
			int used = 0;
			for (const Held &h : running)
				used += h.node == nodes[i] ? h.gpus : 0;
			room[i] = cap[nodes[i]] > 0 ? std::max(0, cap[nodes[i]] - used) : share[i];
		}
		int over = 0;
		for (int i = 0; i < k; i++)
			if (share[i] > room[i]) {
				over += share[i] - room[i];
				share[i] = room[i];
			}
		for (int i = 0; i < k && over > 0; i++) {
			const int add = std::min(over, room[i] - share[i]);
			share[i] += add;
			over -= add;
		}
		for (int i = 0; over > 0; i = (i + 1) % k, over--)
			share[i]++; // more than the nodes have: the data says so
		for (int i = 0; i < k; i++) {
			if (share[i] == 0)
				continue;
			out[j].emplace_back(nodes[i], share[i]);
			running.push_back({ job.end_s, nodes[i], share[i] });
		}
	}
	return out;
}

} // namespace

RealSchedules real_schedules(const std::vector<WindowJobs> &windows,
			     const std::map<std::string, int> &sinfo_gpus)
{
	RealSchedules rs;
	const auto shown = drawn_jobs(windows);
	for (const auto &w : shown)
		for (const JobReport *r : w)
			rs.node_names.insert(rs.node_names.end(), r->job.nodes.begin(),
					     r->job.nodes.end());
	if (rs.node_names.empty())
		return rs;
	std::sort(rs.node_names.begin(), rs.node_names.end(), natural_less);
	rs.node_names.erase(std::unique(rs.node_names.begin(), rs.node_names.end()),
			    rs.node_names.end());
	if (rs.node_names.size() > static_cast<size_t>(kMaxClusterNodes))
		rs.node_names.resize(kMaxClusterNodes);
	std::map<std::string, int> index;
	for (size_t n = 0; n < rs.node_names.size(); n++)
		index[rs.node_names[n]] = static_cast<int>(n);

	// Each node's peak use in any window (a sweep per window where an end
	// comes before a start at the same time, as the chart's).
	struct Event {
		double t;
		int delta, node, gpus;
	};
	std::vector<int> peak(rs.node_names.size(), 0), cap(rs.node_names.size(), 0);
	for (size_t n = 0; n < cap.size(); n++)
		if (auto it = sinfo_gpus.find(rs.node_names[n]); it != sinfo_gpus.end())
			cap[n] = std::max(0, it->second);
	const bool shared = same_workload(shown);
	for (size_t w = 0; w < windows.size(); w++) {
		WindowSchedule ws;
		ws.t0_s = windows[w].stats->first_submit_s;
		for (const JobReport *r : shown[w])
			ws.t0_s = std::fmin(ws.t0_s, r->job.start_s);
		std::vector<Event> events;
		const auto split = split_gpus(shown[w], index, cap);
		for (size_t k = 0; k < shown[w].size(); k++) {
			const JobReport *r = shown[w][k];
			Segment seg;
			if (shared && w > 0) {
				seg.job = static_cast<int>(k);
			} else {
				Job job;
				job.id = shared ? r->job.name : r->job.id;
				job.submit_s = std::isnan(r->job.submit_s)
						       ? 0
						       : r->job.submit_s - ws.t0_s;
				job.gpus = job.gpus_min = job.gpus_max = r->job.gpus;
				seg.job = static_cast<int>(rs.workload.jobs.size());
				rs.workload.jobs.push_back(job);
			}
			seg.start_s = r->job.start_s - ws.t0_s;
			seg.end_s = r->job.end_s - ws.t0_s;
			seg.epochs = !std::isnan(r->record.epochs_done) ? r->record.epochs_done
				   : !std::isnan(r->record.epochs)      ? r->record.epochs
									: 0;
			for (const auto &[node, g] : split[k]) {
				seg.nodes.insert(seg.nodes.end(), g, node);
				events.push_back({ seg.start_s, +1, node, g });
				events.push_back({ seg.end_s, -1, node, g });
			}
			std::sort(seg.nodes.begin(), seg.nodes.end());
			ws.schedule.push_back(std::move(seg));
		}
		std::sort(events.begin(), events.end(), [](const Event &a, const Event &b) {
			return a.t < b.t || (a.t == b.t && a.delta < b.delta);
		});
		std::vector<int> use(rs.node_names.size(), 0);
		for (const Event &e : events) {
			use[e.node] += e.delta * e.gpus;
			peak[e.node] = std::max(peak[e.node], use[e.node]);
		}
		rs.windows.push_back(std::move(ws));
	}
	rs.workload.name = windows.size() == 1 && !rs.windows.empty()
				   ? "jobs since " + local_time_text(rs.windows[0].t0_s) + " (t = 0)"
				   : "each window from its first submission (t = 0)";
	for (size_t n = 0; n < peak.size(); n++)
		peak[n] = std::clamp(std::max(peak[n], cap[n]), 1, kMaxGpusPerNode);
	rs.cluster = make_cluster(peak);
	return rs;
}

namespace {

// The charts of the windows, the node legend and the scatter plot of the
// last window's predictions, as one document.
void write_svg(std::ostream &out, const std::vector<WindowJobs> &windows,
	       const std::vector<std::string> &names,
	       const std::map<std::string, int> &sinfo_gpus)
{
	const RealSchedules rs = real_schedules(windows, sinfo_gpus);
	std::string body;
	double y = 0;
	if (rs.cluster.nodes > 0) {
		std::vector<std::string> titles;
		for (size_t w = 0; w < rs.windows.size(); w++)
			titles.push_back(chart_title(names[w], rs.windows[w].schedule.size(),
						     rs.cluster.nodes, *windows[w].stats));
		double h = 0;
		body += gantt_element(rs, titles, h);
		y = h;
		draw_node_legend(body, rs, y);
		y += 11 + 16;
	} else {
		appendf(body, "<text x=\"10\" y=\"22\" font-size=\"%s\" font-weight=\"bold\">what ran: no finished job with GPUs and nodes to draw</text>\n",
			num(kTitleFont).s);
		y = 40;
	}
	y = draw_scatter(body, *windows.back().jobs, *windows.back().stats, y);
	const svg::Num height = num(std::ceil(y));
	std::string head;
	appendf(head, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%s\" height=\"%s\" viewBox=\"0 0 %s %s\" font-family=\"Helvetica,Arial,sans-serif\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n",
		num(kWidth).s, height.s, num(kWidth).s, height.s);
	out << head << body << "</svg>\n";
}

} // namespace

void write_report_svg(std::ostream &out, const std::vector<JobReport> &jobs,
		      const WindowStats &stats,
		      const std::map<std::string, int> &sinfo_gpus)
{
	write_svg(out, { { &jobs, &stats } }, { "what ran" }, sinfo_gpus);
}

void write_comparison_svg(std::ostream &out, const NamedWindow &base,
			  const std::string &name, const std::vector<JobReport> &jobs,
			  const WindowStats &stats,
			  const std::map<std::string, int> &sinfo_gpus)
{
	write_svg(out, { { &base.jobs, &base.stats }, { &jobs, &stats } }, { base.name, name },
		  sinfo_gpus);
}

} // namespace report
} // namespace omru
