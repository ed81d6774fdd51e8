// workload.cpp - see workload.hpp.
#include "model/workload.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <unordered_set>

#include "model/csv_table.hpp"

namespace omru {

bool Workload::offline() const
{
	return std::all_of(jobs.begin(), jobs.end(),
			   [](const Job &j) { return j.submit_s == 0; });
}

int Workload::index_of(const std::string &job_id) const
{
	for (size_t i = 0; i < jobs.size(); i++)
		if (jobs[i].id == job_id)
			return static_cast<int>(i);
	return -1;
}

bool Workload::has_site_limits() const
{
	for (const Job &j : jobs)
		if (!j.node_list.empty() || !j.need.none() || j.license >= 0 ||
		    (j.user >= 0 && static_cast<size_t>(j.user) < user_gpus_max.size() &&
		     user_gpus_max[j.user] >= 0))
			return true;
	return false;
}

bool Workload::needs_node_resources() const
{
	return std::any_of(jobs.begin(), jobs.end(),
			   [](const Job &j) { return !j.need.none(); });
}

namespace {

// CPUs and MB a job may ask per node or per GPU: far above any node, far
// below where sums of them lose precision.
constexpr double kMaxCpus = 1 << 20, kMaxMemMb = 1e12;
constexpr int kMaxNodeIndex = 1 << 16;

int intern(std::vector<std::string> &names, std::string_view name)
{
	auto it = std::find(names.begin(), names.end(), name);
	if (it != names.end())
		return static_cast<int>(it - names.begin());
	names.emplace_back(name);
	return static_cast<int>(names.size()) - 1;
}

bool valid_name(std::string_view s)
{
	return !s.empty() && s.size() <= 64 &&
	       std::all_of(s.begin(), s.end(), [](char c) {
		       return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			      (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
	       });
}

// The field of a name column (user, account), checked by valid_name.
std::string_view name(const CsvRow &r, size_t col, const char *what)
{
	std::string_view s = r.field(col);
	if (!valid_name(s))
		r.fail(col, std::string(what) + " wants a name of letters, digits, "
				"'_', '-' or '.', not '" + std::string(s) + "'");
	return s;
}

double bounded(const CsvRow &r, size_t col, double max, const char *what)
{
	double v = r.nonnegative_double(col);
	if (v > max)
		r.fail(col, std::string(what) + " " + std::string(r.field(col)) +
				    " is more than any node has");
	return v;
}

// node_list: node indices separated by ';' (0-based, as the schedule's).
std::vector<int> node_list(const CsvRow &r, size_t col)
{
	std::vector<int> nodes;
	std::string_view s = r.field(col);
	while (!s.empty()) {
		size_t end = s.find(';');
		std::string_view item = s.substr(0, end);
		int n = 0;
		if (item.empty() || item.size() > 5 ||
		    !std::all_of(item.begin(), item.end(),
				 [](char c) { return c >= '0' && c <= '9'; }))
			r.fail(col, "node_list wants node indices separated by ';', "
				    "not '" + std::string(r.field(col)) + "'");
		for (char c : item)
			n = n * 10 + (c - '0');
		if (n >= kMaxNodeIndex)
			r.fail(col, "node " + std::string(item) + " is beyond any cluster");
		nodes.push_back(n);
		s = end == std::string_view::npos ? std::string_view() : s.substr(end + 1);
	}
	std::sort(nodes.begin(), nodes.end());
	if (std::adjacent_find(nodes.begin(), nodes.end()) != nodes.end())
		r.fail(col, "node_list names a node twice");
	return nodes;
}

// license: NAME or NAME:COUNT (as sbatch -L).
void license(const CsvRow &r, size_t col, Workload &w, Job &j)
{
	std::string_view s = r.field(col);
	size_t colon = s.find(':');
	std::string_view name = s.substr(0, colon);
	int count = 1;
	if (colon != std::string_view::npos) {
		std::string_view c = s.substr(colon + 1);
		count = 0;
		if (c.empty() || c.size() > 6 ||
		    !std::all_of(c.begin(), c.end(),
				 [](char ch) { return ch >= '0' && ch <= '9'; }))
			count = -1;
		else
			for (char ch : c)
				count = count * 10 + (ch - '0');
	}
	if (!valid_name(name) || count < 1)
		r.fail(col, "license wants NAME or NAME:COUNT (COUNT >= 1), not '" +
				    std::string(s) + "'");
	j.license = intern(w.licenses, name);
	j.license_count = count;
}

} // namespace

Workload workload_from_csv(const CsvTable &csv, const ProfileTable &profiles)
{
	size_t c_id = csv.require("job_id"), c_submit = csv.require("submit_s"),
	       c_model = csv.require("model"), c_epochs = csv.require("epochs"),
	       c_gpus = csv.require("gpus");
	std::optional<size_t> c_min = csv.optional("gpus_min"),
			      c_max = csv.optional("gpus_max"),
			      c_elastic = csv.optional("elastic"),
			      c_late = csv.optional("late_after"),
			      c_user = csv.optional("user"),
			      c_nodes = csv.optional("node_list"),
			      c_cpg = csv.optional("cpus_per_gpu"),
			      c_mem = csv.optional("mem_mb"),
			      c_mpc = csv.optional("mem_per_cpu_mb"),
			      c_mpg = csv.optional("mem_per_gpu_mb"),
			      c_excl = csv.optional("exclusive"),
			      c_lic = csv.optional("license"),
			      c_prio = csv.optional("priority"),
			      c_account = csv.optional("account");
	auto given = [](const CsvRow &r, std::optional<size_t> c) {
		return c && r.has(*c) && !r.field(*c).empty();
	};
	Workload w;
	w.name = csv.name();
	std::unordered_set<std::string> seen;
	for (const CsvRow &r : csv.rows()) {
		Job j;
		j.line = r.line();
		j.id = std::string(r.field(c_id));
		if (j.id.empty())
			r.fail(c_id, "empty job_id");
		if (!seen.insert(j.id).second)
			r.fail(c_id, "job_id '" + j.id + "' appears twice");
		j.submit_s = r.nonnegative_double(c_submit);
		std::string model(r.field(c_model));
		j.model = profiles.model_id(model);
		if (j.model < 0)
			r.fail(c_model, "model '" + model +
						"' has no row in the profiles");
		j.epochs = r.positive_double(c_epochs);
		j.gpus = r.positive_int(c_gpus, kMaxProfileGpus);
		j.gpus_min = j.gpus_max = j.gpus;
		if (c_min && !r.field(*c_min).empty())
			j.gpus_min = r.positive_int(*c_min, kMaxProfileGpus);
		if (c_max && !r.field(*c_max).empty())
			j.gpus_max = r.positive_int(*c_max, kMaxProfileGpus);
		if (j.gpus < j.gpus_min)
			r.fail(c_min ? *c_min : c_gpus,
			       "gpus_min " + std::to_string(j.gpus_min) +
				       " is above gpus " + std::to_string(j.gpus));
		if (j.gpus > j.gpus_max)
			r.fail(c_max ? *c_max : c_gpus,
			       "gpus_max " + std::to_string(j.gpus_max) +
				       " is below gpus " + std::to_string(j.gpus));
		if (c_elastic && !r.field(*c_elastic).empty()) {
			std::string_view e = r.field(*c_elastic);
			if (e != "0" && e != "1")
				r.fail(*c_elastic, "elastic must be 1 or 0, not '" +
							   std::string(e) + "'");
			j.elastic = e == "1";
		}
		if (c_late && !r.field(*c_late).empty())
			j.late_after_epochs = r.nonnegative_double(*c_late);
		if (given(r, c_user))
			j.user = intern(w.users, name(r, *c_user, "user"));
		if (given(r, c_account))
			j.account = intern(w.accounts, name(r, *c_account, "account"));
		if (given(r, c_prio))
			j.priority = r.finite_double(*c_prio);
		if (given(r, c_nodes))
			j.node_list = node_list(r, *c_nodes);
		if (given(r, c_cpg))
			j.need.cpus_per_gpu = bounded(r, *c_cpg, kMaxCpus, "cpus_per_gpu");
		if (given(r, c_mem))
			j.need.mem_min = bounded(r, *c_mem, kMaxMemMb, "mem_mb");
		if (given(r, c_mpc))
			j.need.mem_per_cpu = bounded(r, *c_mpc, kMaxMemMb, "mem_per_cpu_mb");
		if (given(r, c_mpg))
			j.need.mem_per_gpu = bounded(r, *c_mpg, kMaxMemMb, "mem_per_gpu_mb");
		if (j.need.mem_per_cpu > 0 && j.need.cpus_per_gpu == 0)
			j.need.cpus_per_gpu = 1; // memory per CPU needs CPUs
		if (given(r, c_excl)) {
			std::string_view e = r.field(*c_excl);
			if (e != "0" && e != "1")
				r.fail(*c_excl, "exclusive must be 1 or 0, not '" +
							std::string(e) + "'");
			j.need.whole_node = e == "1";
		}
		if (given(r, c_lic))
			license(r, *c_lic, w, j);
		w.jobs.push_back(std::move(j));
	}
	std::stable_sort(w.jobs.begin(), w.jobs.end(),
			 [](const Job &a, const Job &b) {
				 return a.submit_s < b.submit_s;
			 });
	return w;
}

void set_site_limits(Workload &w, int nodes,
		     const std::vector<std::pair<std::string, int>> &user_gpus,
		     const std::vector<std::pair<std::string, int>> &licenses)
{
	w.user_gpus_max.assign(w.users.size(), -1);
	for (const auto &[user, gpus] : user_gpus) {
		auto it = std::find(w.users.begin(), w.users.end(), user);
		if (it != w.users.end()) // a user with no job: nothing to limit
			w.user_gpus_max[it - w.users.begin()] = gpus;
	}
	w.license_total.assign(w.licenses.size(), -1);
	for (const auto &[name, count] : licenses) {
		auto it = std::find(w.licenses.begin(), w.licenses.end(), name);
		if (it != w.licenses.end())
			w.license_total[it - w.licenses.begin()] = count;
	}
	for (const Job &j : w.jobs) {
		std::string where = "job " + j.id + " (line " + std::to_string(j.line) +
				    " of " + w.name + ")";
		if (!j.node_list.empty() && j.node_list.back() >= nodes)
			throw std::invalid_argument(
				where + ": node_list names node " +
				std::to_string(j.node_list.back()) + ", the cluster has " +
				std::to_string(nodes) + " (0-based)");
		if (j.user >= 0 && w.user_gpus_max[j.user] >= 0 &&
		    w.user_gpus_max[j.user] < j.gpus_min)
			throw std::invalid_argument(
				where + " needs at least " + std::to_string(j.gpus_min) +
				" GPUs, its user " + w.users[j.user] + " may hold " +
				std::to_string(w.user_gpus_max[j.user]));
		if (j.license >= 0 && w.license_total[j.license] < j.license_count)
			throw std::invalid_argument(
				where + " asks " + std::to_string(j.license_count) +
				" of license '" + w.licenses[j.license] + "', the site has " +
				(w.license_total[j.license] < 0
					 ? std::string("none (--licenses NAME=N)")
					 : std::to_string(w.license_total[j.license])));
	}
}

} // namespace omru
