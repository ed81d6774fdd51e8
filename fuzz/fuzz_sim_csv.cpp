// fuzz_sim_csv.cpp - the CSV formats of doc/sim-formats.md (profiles,
// workloads with their site-limit columns, co-location pairs and solo
// signals, and the predictor fitted from whatever reads): a malformed file
// is an InputError naming where, never anything else, and every slowdown
// the predictor answers is within [1, kMaxSlowdown].
#include "fuzz_input.hpp"
#include "model/csv_table.hpp"
#include "model/workload.hpp"
#include "profile/interference_model.hpp"

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
	omru::ColocationData d;
	try {
		d.pairs = omru::colocation_pairs_from_csv(omru::CsvTable::parse("c.csv", s));
	} catch (const omru::InputError &) {
	}
	try {
		d.signals = omru::solo_signals_from_csv(omru::CsvTable::parse("s.csv", s));
	} catch (const omru::InputError &) {
	}
	if (d.pairs.size() + d.signals.size() < 64) {
		omru::InterferenceModel m(d);
		for (const auto &row : m.matrix(m.models()))
			for (double f : row)
				if (!(f >= 1 && f <= omru::kMaxSlowdown))
					__builtin_trap();
		(void) omru::held_out_error(d);
	}
	return 0;
}
