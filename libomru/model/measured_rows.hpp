// measured_rows.hpp - what a running job measured, read on its node by
// spank_omru (root) from files the job's user wrote, so everything here
// treats its input as hostile: sizes are bounded, every number is checked,
// and only rows that describe this job can pass.
//  - profile rows: the spec's profile format (doc/sim-formats.md,
//    model,gpus,epoch_s[,nodes]) as omru-train --profile-out or any other
//    trainer writes them to $OMRU_PROFILE_OUT;
//  - the epoch metrics: omru-train's JSON lines ($OMRU_METRICS_FILE).
#ifndef OMRU_MODEL_MEASURED_ROWS_HPP
#define OMRU_MODEL_MEASURED_ROWS_HPP

#include <string>
#include <string_view>
#include <vector>

#include "job_options.hpp"         // Parsed
#include "model/admin_comment.hpp" // CommentRow

namespace omru {

// Bigger files are not read (a job cannot make root read gigabytes).
constexpr size_t kMaxMeasuredFileBytes = 64 * 1024;

// The rows of `model` in a profile CSV whose counts the job could measure
// (gpus <= max_gpus, nodes <= max_nodes).  A later row for the same
// (gpus, nodes) replaces an earlier one; at most kMaxCommentRows, ascending
// by gpus then nodes.  Errors: a malformed file (FILE:LINE:COL), a row of
// another model, a count above what the job had.
Parsed<std::vector<CommentRow>> measured_rows(std::string_view csv,
					      const std::string &name,
					      const std::string &model,
					      int max_gpus, int max_nodes);

// The end-of-job summary fields from the last epoch line of omru-train's
// metrics (JSON, one object per line): epoch_s, epochs_done, samples_s,
// data_wait, workers, and profile_s (from the line that has it).  Lines that are not such objects are skipped; no
// usable line gives an empty list.
std::vector<std::pair<std::string, std::string>>
metrics_summary(std::string_view jsonl);

} // namespace omru

#endif
