// colocation_table.hpp - what is known of jobs slowing each other down on a
// shared node (doc/sim-formats.md, "Co-location pairs" and "Solo signals"):
//
//   pairs:   model_a,model_b,slowdown_a,slowdown_b[,samples]
//            slowdown_a: model_a's epoch time next to a job of model_b over
//            its time alone (and slowdown_b the other way round); a row is
//            order-free and a model may meet itself.  One of the two may
//            be empty: that side was not measured (omru-report
//            --colocation-out writes what jobs measured, often one side).
//   signals: model,gpu_util,mem_util
//            what a model uses alone: GPU utilisation and GPU
//            memory-controller utilisation, in percent (NVML's
//            utilization.gpu / utilization.memory).
//
// Only the text is read here; the predictor that prices a pair from these
// is profile/interference_model.hpp.  Every number is bounded where it
// enters: a slowdown is kept within [1, kMaxSlowdown] (below 1 is noise: a
// neighbour does not make a job faster), utilisations within [0, 100].
#ifndef OMRU_PROFILE_COLOCATION_TABLE_HPP
#define OMRU_PROFILE_COLOCATION_TABLE_HPP

#include <string>
#include <vector>

namespace omru {

class CsvTable;

// The most a job is slowed down by its neighbours, all of them together:
// beyond it a measurement says more about a broken node than about
// co-location, and the plan must not price a job as never ending.
constexpr double kMaxSlowdown = 4.0;
// Rows a file may hold: a site's table of every pair of a few hundred
// models fits.
constexpr size_t kMaxColocationRows = 100000;

struct ColocationPair {
	std::string a, b;
	double slowdown_a = 1, slowdown_b = 1; // within [1, kMaxSlowdown]
	double samples = 1;                    // the weight among rows of a pair
	bool has_a = true, has_b = true;       // that side was measured
};

struct SoloSignals {
	std::string model;
	double gpu_util = 0, mem_util = 0; // percent, [0, 100]
};

struct ColocationData {
	std::vector<ColocationPair> pairs;
	std::vector<SoloSignals> signals;
	bool empty() const { return pairs.empty() && signals.empty(); }
};

// Throw InputError (model/csv_table.hpp) naming the file, line and column
// of a missing column, a bad model name, a slowdown that is not a number in
// (0, 100] (or both empty), a utilisation outside [0, 100], a second signals row of one
// model, or more than kMaxColocationRows rows.
std::vector<ColocationPair> colocation_pairs_from_csv(const CsvTable &csv);
std::vector<SoloSignals> solo_signals_from_csv(const CsvTable &csv);

// Reads the files; an empty path is no file.  Throws InputError as above
// and when a file cannot be read.
ColocationData read_colocation(const std::string &pairs_path,
			       const std::string &signals_path);

} // namespace omru

#endif
