// gantt_svg.cpp - see gantt_svg.hpp.
//
// Draws each schedule as a Gantt chart: one lane per GPU down the side
// (grouped by node, zebra-banded, with a separator between nodes), time
// across, one rectangle per segment and contiguous run of GPU slots.  The
// charts are stacked in one standalone SVG and share one time scale (the
// longest schedule fills the plot width), so policies compare by eye.
//
// Layout choices:
// - A fixed 1400 px width, and lanes of 1-12 px chosen so that one chart's
//   GPUs take about 720 px: a 16x4 chart stays on screen, a 256x4 one
//   shrinks to 1 px lanes and drops the slot numbers and node separators.
// - Node labels thin out (every 2nd, 5th, 10th... node) when nodes are too
//   short to label each one; no text is smaller than 9 px.
// - Job colours step the hue by the golden angle and cycle lightness and
//   saturation, so neighbouring job indices differ; the colour depends on
//   the job index only, so a job looks the same in every chart.  A darker
//   outline of the same hue separates adjacent segments.
// - Segments read from a CSV have no GPU ids: a sweep in start order gives
//   each the lowest free slots on its nodes (greedy interval colouring,
//   which never runs out on a valid schedule).  What does not fit (an over-
//   full node, a GPU used twice at once, a bad id) goes on a red overflow
//   row below the chart instead of hiding or crashing.
// - Every segment carries a <title> tooltip; its job id is written inside
//   it only where the text (about 0.6 x font size per character) fits.
// - Coordinates have one decimal, colours and repeated attributes sit on
//   groups, and the text is built in one string: 1000 segments take about
//   2 ms and 200 kB.
#include "gantt_svg.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "gantt_slots.hpp"
#include "model/cluster.hpp"
#include "model/decimal_text.hpp"
#include "svg_text.hpp"

namespace omru {
namespace {

using svg::appendf;
using svg::num;
using svg::Num;
using svg::put_text;
using svg::text_chars;

constexpr double kWidth = 1400;       // whole document
constexpr double kRightMargin = 28;   // room for the last tick label
constexpr double kTargetPlotH = 720;  // GPU lanes of one chart
constexpr double kMaxLane = 12;
constexpr double kMinLane = 1;
constexpr double kTitleFont = 14;
constexpr double kAxisFont = 10;      // tick and node labels
constexpr double kSlotFont = 9;
constexpr double kJobFont = 9;
constexpr double kCharWidth = 0.6;    // text width per char / font
constexpr double kMinTickSpacing = 80; // px between ticks, at least

double text_width(size_t chars, double font)
{
	return chars * kCharWidth * font;
}

int digits(long v)
{
	int n = 1;
	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

// ---- colours ----

struct Rgb {
	double r, g, b; // 0..1
};

Rgb hsl_to_rgb(double h, double s, double l)
{
	const double c = (1 - std::fabs(2 * l - 1)) * s;
	const double hp = h / 60;
	const double x = c * (1 - std::fabs(std::fmod(hp, 2) - 1));
	double r = 0, g = 0, b = 0;
	if (hp < 1)
		r = c, g = x;
	else if (hp < 2)
		r = x, g = c;
	else if (hp < 3)
		g = c, b = x;
	else if (hp < 4)
		g = x, b = c;
	else if (hp < 5)
		r = x, b = c;
	else
		r = c, b = x;
	const double m = l - c / 2;
	return { r + m, g + m, b + m };
}

struct Hex {
	char s[8];
};

Hex hex(Rgb c)
{
	Hex h;
	auto byte = [](double v) {
		return static_cast<int>(std::lround(std::clamp(v, 0.0, 1.0) * 255));
	};
	std::snprintf(h.s, sizeof(h.s), "#%02x%02x%02x", byte(c.r), byte(c.g),
		      byte(c.b));
	return h;
}

struct JobColour {
	Hex fill, outline;
	bool dark; // wants white text
};

JobColour job_colour(int job)
{
	static const double kLight[] = { 0.58, 0.75, 0.44 };
	static const double kSat[] = { 0.70, 0.50, 0.88 };
	const unsigned j = job < 0 ? 0 : static_cast<unsigned>(job);
	const double hue = std::fmod(j * 137.50776405, 360.0);
	const Rgb c = hsl_to_rgb(hue, kSat[(j / 3) % 3], kLight[j % 3]);
	const Rgb d = { c.r * 0.55, c.g * 0.55, c.b * 0.55 };
	const double luma = 0.299 * c.r + 0.587 * c.g + 0.114 * c.b;
	return { hex(c), hex(d), luma < 0.5 };
}

// ---- time axis ----

struct TimeUnit {
	double seconds;
	const char *suffix;
};

TimeUnit time_unit(double span_s)
{
	if (span_s < 1200)
		return { 1, "s" };
	if (span_s < 3 * 3600)
		return { 60, "min" };
	if (span_s < 4 * 86400)
		return { 3600, "h" };
	return { 86400, "d" };
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

// ---- drawing ----

struct Layout {
	int nodes, g;           // g = GPUs per node
	double lane, gap;       // lane height, gap between nodes
	double node_h;          // lanes of a node plus the gap
	double left, plot_w;    // plot area, x
	double span_s;          // time at the right edge
	bool slot_labels;
	int node_label_every;
	const Cluster *cluster = nullptr; // nodes smaller than g: fewer labels

	double x(double t) const
	{
		return left + plot_w * std::clamp(t, 0.0, span_s) / span_s;
	}
	double row_y(double top, int row) const
	{
		return top + (row / g) * node_h + (row % g) * lane;
	}
	double lanes_h() const
	{
		return nodes > 0 ? nodes * node_h - gap : lane;
	}
};

// Label every node, or every 2nd, 5th, 10th... when nodes are too short.
int label_every(double node_h)
{
	for (int m = 1;; m *= 10)
		for (int k : { 1, 2, 5 })
			if (k * m * node_h >= kAxisFont + 3)
				return k * m;
}

Layout make_layout(const Cluster &c, const std::vector<GanttChart> &charts)
{
	Layout L;
	L.nodes = std::max(0, c.nodes);
	L.g = std::max(1, c.gpus_per_node);
	L.cluster = &c;
	const int total = std::max(1, L.nodes * L.g);
	L.lane = std::floor(10 * kTargetPlotH / total) / 10;
	L.lane = std::clamp(L.lane, kMinLane, kMaxLane);
	L.gap = L.lane >= 4 ? 2 : 0;
	L.node_h = L.g * L.lane + L.gap;
	L.slot_labels = L.g > 1 && L.lane >= kSlotFont;
	L.node_label_every = label_every(L.node_h);

	const int name_chars = std::max(5 + digits(std::max(0, L.nodes - 1)), 8);
	double left = 10 + text_width(name_chars, kAxisFont) + 6;
	if (L.slot_labels)
		left += text_width(digits(L.g - 1), kSlotFont) + 4;
	L.left = std::ceil(left);
	L.plot_w = kWidth - L.left - kRightMargin;

	L.span_s = 0;
	for (const GanttChart &ch : charts)
		if (ch.schedule)
			for (const Segment &seg : *ch.schedule)
				if (std::isfinite(seg.end_s))
					L.span_s = std::max(L.span_s, seg.end_s);
	if (!(L.span_s > 0))
		L.span_s = 1;
	return L;
}

// "0-3, 7" for the distinct nodes of a segment.
std::string node_ranges(std::vector<int> nodes)
{
	std::sort(nodes.begin(), nodes.end());
	nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
	std::string out;
	for (size_t i = 0; i < nodes.size();) {
		size_t j = i;
		while (j + 1 < nodes.size() && nodes[j + 1] == nodes[j] + 1)
			j++;
		if (!out.empty())
			out += ", ";
		out += std::to_string(nodes[i]);
		if (j > i)
			out += (j == i + 1 ? ", " : "-") + std::to_string(nodes[j]);
		i = j + 1;
	}
	return out;
}

const std::string &job_id(const Workload &w, int job)
{
	static const std::string unknown = "?";
	return job >= 0 && static_cast<size_t>(job) < w.jobs.size() ?
		       w.jobs[job].id : unknown;
}

// "<title>id: 10-250.5 s, 4 GPUs on nodes 0-1, 12.5 epochs</title>"
void put_tooltip(std::string &out, const Workload &w, const Segment &seg,
		 int overflow)
{
	out += "<title>";
	put_text(out, job_id(w, seg.job));
	const int n = seg.gpus();
	const std::string nodes = node_ranges(seg.nodes);
	appendf(out, ": %s-%s s, %d GPU%s on node%s %s, %s epochs",
		decimal_text(seg.start_s, 1).c_str(), decimal_text(seg.end_s, 1).c_str(),
		n, n == 1 ? "" : "s",
		nodes.find_first_of(",-") == std::string::npos ? "" : "s",
		nodes.empty() ? "(none)" : nodes.c_str(),
		decimal_text(seg.epochs, 3).c_str());
	if (overflow)
		appendf(out, "; %d GPU%s on the overflow row (no free lane)",
			overflow, overflow == 1 ? "" : "s");
	out += "</title>";
}

// The job id, centred in the tallest rectangle of the segment if it fits.
void put_job_label(std::string &labels, const std::string &id,
		   const JobColour &col, double x, double y, double w, double h)
{
	const size_t chars = text_chars(id);
	for (double font : { 10.0, kJobFont }) {
		if (h < font + 1 || text_width(chars, font) + 4 > w)
			continue;
		appendf(labels, "<text x=\"%s\" y=\"%s\"", num(x + w / 2).s,
			num(y + h / 2 + 0.35 * font).s);
		if (font != kJobFont)
			appendf(labels, " font-size=\"%s\"", num(font).s);
		if (col.dark)
			labels += " fill=\"#fff\"";
		labels += ">";
		put_text(labels, id);
		labels += "</text>\n";
		return;
	}
}

void draw_segments(std::string &out, const Layout &L, double top,
		   double overflow_y, double overflow_h, const Workload &w,
		   const Schedule &s, const std::vector<Placed> &placed)
{
	std::string labels;
	const bool outline = L.lane >= 3;
	out += "<g stroke-width=\"0.5\">\n";
	for (const Placed &p : placed) {
		const Segment &seg = s[p.seg];
		const JobColour col = job_colour(seg.job);
		const double x0 = std::round(L.x(seg.start_s) * 10) / 10;
		const double x1 = std::round(L.x(seg.end_s) * 10) / 10;
		const double wd = std::max(x1 - x0, 0.5);
		if (!p.rows.empty()) {
			appendf(out, "<g fill=\"%s\"", col.fill.s);
			if (outline)
				appendf(out, " stroke=\"%s\"", col.outline.s);
			out += ">";
			put_tooltip(out, w, seg, p.overflow);
			double best_h = 0, best_y = 0;
			for (size_t i = 0; i < p.rows.size();) {
				// A run of consecutive slots on one node.
				size_t j = i;
				while (j + 1 < p.rows.size() &&
				       p.rows[j + 1] == p.rows[j] + 1 &&
				       p.rows[j + 1] / L.g == p.rows[i] / L.g)
					j++;
				const double y = L.row_y(top, p.rows[i]);
				const double h = (j - i + 1) * L.lane;
				appendf(out, "<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\"/>",
					num(x0).s, num(y).s, num(wd).s, num(h).s);
				if (h > best_h)
					best_h = h, best_y = y;
				i = j + 1;
			}
			out += "</g>\n";
			put_job_label(labels, job_id(w, seg.job), col, x0, best_y,
				      wd, best_h);
		}
		if (p.overflow) {
			out += "<g fill=\"#e02020\" fill-opacity=\"0.6\" stroke=\"#900\">";
			put_tooltip(out, w, seg, p.overflow);
			appendf(out, "<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\"/></g>\n",
				num(x0).s, num(overflow_y).s, num(wd).s,
				num(overflow_h).s);
		}
	}
	out += "</g>\n";
	if (!labels.empty()) {
		appendf(out, "<g font-size=\"%s\" text-anchor=\"middle\" pointer-events=\"none\">\n",
			num(kJobFont).s);
		out += labels;
		out += "</g>\n";
	}
}

// Node bands, separators, labels and slot numbers left of the plot.
void draw_lanes(std::string &out, const Layout &L, double top)
{
	const double right = L.left + L.plot_w;
	if (L.node_h >= 3 && L.nodes > 1) {
		out += "<g fill=\"#f2f2f2\">";
		for (int n = 1; n < L.nodes; n += 2)
			appendf(out, "<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\"/>",
				num(L.left).s, num(top + n * L.node_h).s,
				num(L.plot_w).s, num(L.node_h - L.gap).s);
		out += "</g>\n";
	}
	if (L.node_h >= 6 && L.nodes > 1) {
		// Across the labels too, so each node's label and slots group.
		appendf(out, "<path stroke=\"%s\" stroke-width=\"%s\" d=\"",
			L.gap > 0 ? "#999" : "#bbb", L.gap > 0 ? "1" : "0.5");
		for (int n = 1; n < L.nodes; n++)
			appendf(out, "M%s %sH%s", num(10).s,
				num(top + n * L.node_h - L.gap / 2).s,
				num(right).s);
		out += "\"/>\n";
	}

	const double name_x = L.left - 6 -
		(L.slot_labels ? text_width(digits(L.g - 1), kSlotFont) + 4 : 0);
	appendf(out, "<g font-size=\"%s\" text-anchor=\"end\" fill=\"#333\">\n",
		num(kAxisFont).s);
	for (int n = 0; n < L.nodes; n += L.node_label_every)
		appendf(out, "<text x=\"%s\" y=\"%s\">node %d</text>\n",
			num(name_x).s,
			num(top + n * L.node_h + (L.node_h - L.gap) / 2 +
			    0.35 * kAxisFont).s, n);
	out += "</g>\n";
	if (L.slot_labels) {
		appendf(out, "<g font-size=\"%s\" text-anchor=\"end\" fill=\"#777\">",
			num(kSlotFont).s);
		for (int n = 0; n < L.nodes; n++)
			for (int slot = 0; slot < L.g && slot < L.cluster->gpus_of(n); slot++)
				appendf(out, "<text x=\"%s\" y=\"%s\">%d</text>",
					num(L.left - 4).s,
					num(L.row_y(top, n * L.g + slot) +
					    L.lane / 2 + 0.35 * kSlotFont).s,
					slot);
		out += "</g>\n";
	}
}

// Grid lines over [top, bottom] and tick labels under it.
void draw_time_axis(std::string &out, const Layout &L, double top,
		    double bottom)
{
	const TimeUnit u = time_unit(L.span_s);
	const double span_u = L.span_s / u.seconds;
	// As many ticks as fit kMinTickSpacing apart: 12-16 on 1400 px.
	const double step =
		nice_step(span_u / std::max(1.0, std::floor(L.plot_w / kMinTickSpacing)));
	const int decimals = step >= 1 ? 0 : static_cast<int>(std::ceil(-std::log10(step) - 1e-9));
	const long ticks = static_cast<long>(std::floor(span_u / step + 1e-9));

	std::string grid, marks, labels;
	for (long i = 0; i <= ticks; i++) {
		const double x = L.x(i * step * u.seconds);
		appendf(grid, "M%s %sV%s", num(x).s, num(top).s, num(bottom).s);
		appendf(marks, "M%s %sv4", num(x).s, num(bottom).s);
		std::string text = i == 0 ? "0" :
			decimal_text(i * step, decimals) + u.suffix;
		const double half = text_width(text.size(), kAxisFont) / 2;
		const char *anchor = x + half > kWidth - 2 ? " text-anchor=\"end\"" : "";
		appendf(labels, "<text x=\"%s\" y=\"%s\"%s>%s</text>\n",
			num(*anchor ? std::min(x, kWidth - 2) : x).s,
			num(bottom + 6 + kAxisFont).s, anchor, text.c_str());
	}
	appendf(out, "<path stroke=\"#e2e2e2\" d=\"%s\"/>\n", grid.c_str());
	appendf(out, "<path stroke=\"#666\" d=\"%s\"/>\n", marks.c_str());
	appendf(out, "<g font-size=\"%s\" text-anchor=\"middle\" fill=\"#333\">\n",
		num(kAxisFont).s);
	out += labels;
	out += "</g>\n";
}

// One chart whose top edge is at y; returns its bottom edge.
double draw_chart(std::string &out, const Cluster &c, const Layout &L,
		  const Workload &w, const GanttChart &ch, double y)
{
	static const Schedule kEmpty;
	const Schedule &s = ch.schedule ? *ch.schedule : kEmpty;
	const std::vector<Placed> placed = place_segments(c, s);
	bool overflow = false;
	for (const Placed &p : placed)
		overflow = overflow || p.overflow > 0;

	appendf(out, "<text x=\"10\" y=\"%s\" font-size=\"%s\" font-weight=\"bold\">",
		num(y + kTitleFont).s, num(kTitleFont).s);
	put_text(out, ch.title,
		 static_cast<size_t>((kWidth - 20) / (0.65 * kTitleFont)));
	out += "</text>\n";

	const double top = y + kTitleFont + 10;
	const double lanes_bottom = top + L.lanes_h();
	const double overflow_h = std::max(L.lane, 6.0);
	const double overflow_y = lanes_bottom + 4;
	const double bottom = overflow ? overflow_y + overflow_h : lanes_bottom;

	appendf(out, "<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"#fff\"/>\n",
		num(L.left).s, num(top).s, num(L.plot_w).s, num(bottom - top).s);
	draw_lanes(out, L, top);
	draw_time_axis(out, L, top, bottom);
	if (overflow)
		appendf(out, "<text x=\"%s\" y=\"%s\" font-size=\"%s\" text-anchor=\"end\" fill=\"#c00\">overflow</text>\n",
			num(L.left - 6).s,
			num(overflow_y + overflow_h / 2 + 0.35 * kAxisFont).s,
			num(kAxisFont).s);
	draw_segments(out, L, top, overflow_y, overflow_h, w, s, placed);
	if (placed.empty())
		appendf(out, "<text x=\"%s\" y=\"%s\" font-size=\"12\" text-anchor=\"middle\" fill=\"#888\">no segments</text>\n",
			num(L.left + L.plot_w / 2).s,
			num((top + bottom) / 2 + 4).s);
	appendf(out, "<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"none\" stroke=\"#888\"/>\n",
		num(L.left).s, num(top).s, num(L.plot_w).s,
		num(lanes_bottom - top).s);
	return bottom + 6 + kAxisFont + 4;
}

} // namespace

void write_gantt_svg(std::ostream &out, const Cluster &c, const Workload &w,
		     const std::vector<GanttChart> &charts)
{
	const Layout L = make_layout(c, charts);
	std::string body;
	body.reserve(4096 + 200 * w.jobs.size());

	double y = 8;
	appendf(body, "<text x=\"10\" y=\"%s\" font-size=\"11\" fill=\"#555\">",
		num(y + 11).s);
	put_text(body, w.name, 80);
	appendf(body, " on %s: %d GPU%s, %zu job%s; time from 0 s</text>\n",
		format_cluster(c).c_str(), c.total_gpus(),
		c.total_gpus() == 1 ? "" : "s", w.jobs.size(),
		w.jobs.size() == 1 ? "" : "s");
	y += 11 + 14;
	for (const GanttChart &ch : charts)
		y = draw_chart(body, c, L, w, ch, y) + 16;
	if (charts.empty()) {
		appendf(body, "<text x=\"10\" y=\"%s\" font-size=\"12\" fill=\"#888\">no charts</text>\n",
			num(y + 12).s);
		y += 12 + 16;
	}
	const Num height = num(std::ceil(y - 8));

	std::string head;
	appendf(head, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%s\" height=\"%s\" viewBox=\"0 0 %s %s\" font-family=\"Helvetica,Arial,sans-serif\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n",
		num(kWidth).s, height.s, num(kWidth).s, height.s);
	out << head << body << "</svg>\n";
}

} // namespace omru
