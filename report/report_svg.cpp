// report_svg.cpp - see report_svg.hpp.
//
// The Gantt chart is omru-sim's own (write_gantt_svg), written to a string
// and nested as an <svg> element at the top of this document, so the two
// tools draw schedules the same way.  Below it: a legend of node names
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
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string_view>

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

std::string trimmed(double v, int decimals)
{
	char buf[64];
	std::snprintf(buf, sizeof(buf), "%.*f", decimals, v);
	std::string s = buf;
	if (s.find('.') != std::string::npos) {
		s.erase(s.find_last_not_of('0') + 1);
		if (s.back() == '.')
			s.pop_back();
	}
	return s == "-0" ? "0" : s;
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

// The Gantt chart's document, without its XML declaration, and its height.
std::string gantt_element(const RealSchedule &rs, const WindowStats &stats,
			  double &height)
{
	std::string title = "what ran: " + std::to_string(rs.schedule.size()) +
			    " job" + (rs.schedule.size() == 1 ? "" : "s") + " on " +
			    std::to_string(rs.cluster.nodes) + " node" +
			    (rs.cluster.nodes == 1 ? "" : "s") + ", makespan " +
			    trimmed(stats.makespan_s, 1) + " s, GPU utilization " +
			    (std::isnan(stats.gpu_utilization)
				     ? std::string("n/a")
				     : trimmed(stats.gpu_utilization * 100, 1) + "%");
	std::ostringstream doc;
	write_gantt_svg(doc, rs.cluster, rs.workload, { { title, &rs.schedule } });
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
void draw_node_legend(std::string &out, const RealSchedule &rs, double y)
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
		title += "; |error| median " + trimmed(stats.error_median_pct, 1) +
			 "%, p90 " + trimmed(stats.error_p90_pct, 1) + "%";
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
		const std::string t = trimmed(v, decimals);
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
			trimmed(d.predicted_s, 1).c_str(), trimmed(d.real_s, 1).c_str(),
			r.error_pct >= 0 ? "+" : "", trimmed(r.error_pct, 1).c_str());
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

} // namespace

RealSchedule real_schedule(const std::vector<JobReport> &jobs,
			   const WindowStats &stats,
			   const std::map<std::string, int> &sinfo_gpus)
{
	RealSchedule rs;
	std::vector<const JobReport *> shown;
	for (const JobReport &r : jobs)
		if (drawn(r))
			shown.push_back(&r);
	if (shown.empty())
		return rs;
	rs.t0_s = stats.first_submit_s;
	for (const JobReport *r : shown)
		rs.t0_s = std::fmin(rs.t0_s, r->job.start_s);

	for (const JobReport *r : shown)
		rs.node_names.insert(rs.node_names.end(), r->job.nodes.begin(),
				     r->job.nodes.end());
	std::sort(rs.node_names.begin(), rs.node_names.end(), natural_less);
	rs.node_names.erase(std::unique(rs.node_names.begin(), rs.node_names.end()),
			    rs.node_names.end());
	if (rs.node_names.size() > static_cast<size_t>(kMaxClusterNodes))
		rs.node_names.resize(kMaxClusterNodes);
	std::map<std::string, int> index;
	for (size_t n = 0; n < rs.node_names.size(); n++)
		index[rs.node_names[n]] = static_cast<int>(n);

	// GPUs per node of each job, and each node's peak use (a sweep where
	// an end comes before a start at the same time, as the chart's).
	struct Event {
		double t;
		int delta, node, gpus;
	};
	std::vector<Event> events;
	rs.workload.name = "jobs since " + local_time_text(rs.t0_s) + " (t = 0)";
	for (const JobReport *r : shown) {
		Job job;
		job.id = r->job.id;
		job.submit_s = std::isnan(r->job.submit_s) ? 0 : r->job.submit_s - rs.t0_s;
		job.gpus = job.gpus_min = job.gpus_max = r->job.gpus;
		Segment seg;
		seg.job = static_cast<int>(rs.workload.jobs.size());
		seg.start_s = r->job.start_s - rs.t0_s;
		seg.end_s = r->job.end_s - rs.t0_s;
		seg.epochs = !std::isnan(r->record.epochs_done) ? r->record.epochs_done
			   : !std::isnan(r->record.epochs)      ? r->record.epochs
								: 0;
		const int k = static_cast<int>(r->job.nodes.size());
		for (int i = 0; i < k; i++) {
			auto it = index.find(r->job.nodes[i]);
			const int g = r->job.gpus / k + (i < r->job.gpus % k ? 1 : 0);
			if (it == index.end() || g == 0)
				continue;
			seg.nodes.insert(seg.nodes.end(), g, it->second);
			events.push_back({ seg.start_s, +1, it->second, g });
			events.push_back({ seg.end_s, -1, it->second, g });
		}
		std::sort(seg.nodes.begin(), seg.nodes.end());
		rs.workload.jobs.push_back(job);
		rs.schedule.push_back(std::move(seg));
	}
	std::sort(events.begin(), events.end(), [](const Event &a, const Event &b) {
		return a.t < b.t || (a.t == b.t && a.delta < b.delta);
	});
	std::vector<int> use(rs.node_names.size(), 0), peak(rs.node_names.size(), 0);
	for (const Event &e : events) {
		use[e.node] += e.delta * e.gpus;
		peak[e.node] = std::max(peak[e.node], use[e.node]);
	}
	for (size_t n = 0; n < peak.size(); n++) {
		auto it = sinfo_gpus.find(rs.node_names[n]);
		if (it != sinfo_gpus.end())
			peak[n] = std::max(peak[n], it->second);
		peak[n] = std::clamp(peak[n], 1, kMaxGpusPerNode);
	}
	rs.cluster = make_cluster(peak);
	return rs;
}

void write_report_svg(std::ostream &out, const std::vector<JobReport> &jobs,
		      const WindowStats &stats,
		      const std::map<std::string, int> &sinfo_gpus)
{
	const RealSchedule rs = real_schedule(jobs, stats, sinfo_gpus);
	std::string body;
	double y = 0;
	if (rs.cluster.nodes > 0) {
		double h = 0;
		body += gantt_element(rs, stats, h);
		y = h;
		draw_node_legend(body, rs, y);
		y += 11 + 16;
	} else {
		appendf(body, "<text x=\"10\" y=\"22\" font-size=\"%s\" font-weight=\"bold\">what ran: no finished job with GPUs and nodes to draw</text>\n",
			num(kTitleFont).s);
		y = 40;
	}
	y = draw_scatter(body, jobs, stats, y);
	const svg::Num height = num(std::ceil(y));
	std::string head;
	appendf(head, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%s\" height=\"%s\" viewBox=\"0 0 %s %s\" font-family=\"Helvetica,Arial,sans-serif\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n",
		num(kWidth).s, height.s, num(kWidth).s, height.s);
	out << head << body << "</svg>\n";
}

} // namespace report
} // namespace omru
