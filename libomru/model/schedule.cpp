// schedule.cpp - see schedule.hpp.
#include "model/schedule.hpp"

#include <algorithm>
#include <charconv>
#include <numeric>

#include "model/csv_table.hpp"

namespace omru {

int Segment::distinct_nodes() const
{
	int n = 0;
	for (size_t i = 0; i < nodes.size(); i++)
		if (i == 0 || nodes[i] != nodes[i - 1])
			n++;
	return n;
}

std::string format_number(double v)
{
	char buf[64];
	auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
	return ec == std::errc() ? std::string(buf, end) : std::to_string(v);
}

void write_schedule_csv(std::ostream &out, const Schedule &s, const Workload &w)
{
	std::vector<size_t> order(s.size());
	std::iota(order.begin(), order.end(), 0);
	std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
		return s[a].start_s < s[b].start_s;
	});
	out << "job_id,start_s,end_s,gpus,nodes,epochs\n";
	for (size_t i : order) {
		const Segment &g = s[i];
		out << w.jobs[g.job].id << ',' << format_number(g.start_s) << ','
		    << format_number(g.end_s) << ',' << g.gpus() << ',';
		for (size_t k = 0; k < g.nodes.size(); k++)
			out << (k ? ";" : "") << g.nodes[k];
		out << ',' << format_number(g.epochs) << '\n';
	}
}

static std::vector<int> parse_node_list(const CsvRow &r, size_t col)
{
	std::vector<int> nodes;
	std::string_view s = r.field(col);
	size_t pos = 0;
	while (pos <= s.size()) {
		size_t semi = s.find(';', pos);
		size_t end = semi == std::string_view::npos ? s.size() : semi;
		std::string_view item = s.substr(pos, end - pos);
		int v = -1;
		auto [p, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
		if (item.empty() || ec != std::errc() ||
		    p != item.data() + item.size() || v < 0)
			r.fail(col, "'" + std::string(s) +
					    "' is not a ';'-separated list of node indices (0-based)");
		nodes.push_back(v);
		pos = end + 1;
	}
	std::sort(nodes.begin(), nodes.end());
	return nodes;
}

Schedule schedule_from_csv(const CsvTable &csv, const Workload &w)
{
	size_t c_id = csv.require("job_id"), c_start = csv.require("start_s"),
	       c_end = csv.require("end_s"), c_gpus = csv.require("gpus"),
	       c_nodes = csv.require("nodes"), c_epochs = csv.require("epochs");
	Schedule s;
	for (const CsvRow &r : csv.rows()) {
		Segment g;
		g.line = r.line();
		std::string id(r.field(c_id));
		g.job = w.index_of(id);
		if (g.job < 0)
			r.fail(c_id, "job '" + id + "' is not in the workload");
		g.start_s = r.nonnegative_double(c_start);
		g.end_s = r.nonnegative_double(c_end);
		if (g.end_s < g.start_s)
			r.fail(c_end, "end_s is before start_s");
		int gpus = r.positive_int(c_gpus, kMaxProfileGpus);
		g.nodes = parse_node_list(r, c_nodes);
		if (g.gpus() != gpus)
			r.fail(c_nodes, "lists " + std::to_string(g.gpus()) +
						" GPUs but gpus is " + std::to_string(gpus) +
						" (one node index per GPU)");
		g.epochs = r.nonnegative_double(c_epochs);
		s.push_back(std::move(g));
	}
	return s;
}

} // namespace omru
