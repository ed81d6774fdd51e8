// fuzz_sim_csv.cpp - the CSV formats of doc/sim-formats.md (profiles and
// workloads with their site-limit columns): a malformed file is an
// InputError naming where, never anything else.
#include "fuzz_input.hpp"
#include "model/csv_table.hpp"
#include "model/workload.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	std::string s(omru_fuzz::text(data, size));
	static const omru::ProfileTable profiles = omru::ProfileTable::from_csv(
		omru::CsvTable::parse("p.csv", "model,gpus,epoch_s\nm,1,10\nm,2,6\n"));
	try {
		(void) omru::ProfileTable::from_csv(omru::CsvTable::parse("p.csv", s));
	} catch (const omru::InputError &) {
	}
	try {
		omru::Workload w = omru::workload_from_csv(omru::CsvTable::parse("w.csv", s), profiles);
		try {
			omru::set_site_limits(w, 4, { { "a", 2 } }, { { "lic", 1 } });
		} catch (const std::invalid_argument &) {
		}
	} catch (const omru::InputError &) {
	}
	return 0;
}
