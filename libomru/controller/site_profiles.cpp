// site_profiles.cpp - see site_profiles.hpp.
//
// Each file is validated on its own first (so errors name the file and
// line), then its rows join one CSV that becomes the merged table.
#include "controller/site_profiles.hpp"

#include <set>
#include <sys/stat.h>
#include <tuple>

#include "model/csv_table.hpp"

namespace omru {
namespace controller {

Parsed<SiteProfiles> load_site_profiles(const std::vector<std::string> &files)
{
	SiteProfiles out;
	std::string merged = "model,gpus,epoch_s,nodes\n";
	std::set<std::tuple<std::string, std::string, std::string>> seen;
	try {
		for (const std::string &f : files) {
			struct stat st;
			if (stat(f.c_str(), &st) == 0 &&
			    static_cast<size_t>(st.st_size) > kMaxProfileFileBytes)
				return Parsed<SiteProfiles>::fail(
					f + ": larger than " +
					std::to_string(kMaxProfileFileBytes >> 20) + " MiB");
			CsvTable csv = CsvTable::read_file(f);
			ProfileTable::from_csv(csv); // validates, FILE:LINE:COL
			size_t model = csv.require("model"), gpus = csv.require("gpus"),
			       epoch = csv.require("epoch_s");
			std::optional<size_t> nodes = csv.optional("nodes");
			size_t repeated = 0;
			for (const CsvRow &r : csv.rows()) {
				std::string n = nodes && r.has(*nodes)
							? std::string(r.field(*nodes))
							: std::string();
				auto key = std::make_tuple(std::string(r.field(model)),
							   std::string(r.field(gpus)), n);
				if (!seen.insert(key).second) {
					repeated++;
					continue;
				}
				if (++out.rows > kMaxProfileRows)
					return Parsed<SiteProfiles>::fail(
						f + ": more than " +
						std::to_string(kMaxProfileRows) +
						" profile rows in all");
				merged += std::get<0>(key) + "," + std::get<1>(key) + "," +
					  std::string(r.field(epoch)) + "," + n + "\n";
				out.row_list.push_back(SiteRow{
					std::get<0>(key), r.positive_int(gpus, kMaxProfileGpus),
					n.empty() ? 0 : r.positive_int(*nodes, kMaxProfileGpus),
					r.positive_double(epoch) });
			}
			if (repeated)
				out.warnings.push_back(
					f + ": " + std::to_string(repeated) +
					" row(s) repeat a model, GPU count and node "
					"count of an earlier ProfileFile; the earlier "
					"ones are used");
		}
		out.table = std::make_shared<ProfileTable>(
			ProfileTable::from_csv(CsvTable::parse("(site profiles)", merged)));
	} catch (const InputError &e) {
		return Parsed<SiteProfiles>::fail(e.what());
	}
	return out;
}

} // namespace controller
} // namespace omru
