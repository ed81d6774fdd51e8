// workload.cpp - see workload.hpp.
#include "model/workload.hpp"

#include <algorithm>
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

Workload workload_from_csv(const CsvTable &csv, const ProfileTable &profiles)
{
	size_t c_id = csv.require("job_id"), c_submit = csv.require("submit_s"),
	       c_model = csv.require("model"), c_epochs = csv.require("epochs"),
	       c_gpus = csv.require("gpus");
	std::optional<size_t> c_min = csv.optional("gpus_min"),
			      c_max = csv.optional("gpus_max"),
			      c_elastic = csv.optional("elastic"),
			      c_late = csv.optional("late_after");
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
		w.jobs.push_back(std::move(j));
	}
	std::stable_sort(w.jobs.begin(), w.jobs.end(),
			 [](const Job &a, const Job &b) {
				 return a.submit_s < b.submit_s;
			 });
	return w;
}

} // namespace omru
