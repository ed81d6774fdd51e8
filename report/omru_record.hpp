// omru_record.hpp - what omru-report takes from a job's AdminComment record
// (libomru/model/admin_comment.hpp): the controller's plan at the start,
// the profile rows measured while running, the trainer's numbers at the
// end.  Any of them may be missing (a plain job, a job killed early).
#ifndef OMRU_REPORT_OMRU_RECORD_HPP
#define OMRU_REPORT_OMRU_RECORD_HPP

#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/admin_comment.hpp"

namespace omru {
namespace report {

struct OmruRecord {
	bool present = false; // an "omru:" record with fields that reads
	std::string error;    // why the record was ignored, "" when it was not
	// select/omru at the start.
	std::string model, profile, nodes, planned_start;
	int gpus = 0;
	double predicted_s = NAN;
	double epochs = NAN;
	std::vector<int> profiling; // counts the job was told to profile
	// spank_omru while running: how many profile rows it measured.
	size_t rows = 0;
	// spank_omru at the end (NaN: not there).
	double epoch_s = NAN, epochs_done = NAN, samples_s = NAN;
	double data_wait = NAN; // fraction of the time spent waiting for data
	double profile_s = NAN, real_s = NAN;
	int workers = 0;
	// select/omru at each resumed start of an elastic job.
	std::vector<CommentResize> resizes;
	// spank_omru while running: the trainer's last phase signal.
	std::optional<CommentPhase> phase;

	// Told to profile, or spent time profiling.
	bool profiled() const
	{
		return !profiling.empty() || (profile_s > 0);
	}
};

// Reads the record in `admin_comment`.  Text without "omru:" is not a
// record (present false, no error).  A record that does not parse is
// ignored whole (error says why).  A field whose value is malformed is
// left at its default, and a line saying so goes to `problems`.
OmruRecord read_omru_record(std::string_view admin_comment,
			    std::vector<std::string> &problems);

} // namespace report
} // namespace omru

#endif
