// admin_comment.hpp - the job record slurm-omru keeps in a job's
// AdminComment, the one field a root plugin can fill that reaches sacct in
// Slurm 22.05.  Three writers share it, each owning its keys:
//   select/omru at job start  gpus nodes planned_start predicted_s profile
//                             model epochs range cpus_per_gpu profiling
//   spank_omru while running  rows (profile rows the job measured),
//                             phase (the loss's fall, training_phase.hpp),
//                             resumed_at (a resumed run trains again)
//   spank_omru at job end     epoch_s epochs_done samples_s data_wait
//                             workers profile_s real_s
//   spank_omru at step end    loader (the trainer's last loader report,
//                             W:X:F:R, loader/loader_entry.hpp)
//   select/omru at a resumed  resizes (every resize of an elastic job,
//   start                     controller/resize_book.hpp)
// An update replaces the whole string, so every writer reads the current
// line, merges its keys in and writes the result back (merge below).  The
// line is "omru: KEY=VALUE KEY=VALUE ..."; text an admin put before "omru:"
// is kept as it is.  Keys are [a-z_]+, values have no blanks.
#ifndef OMRU_MODEL_ADMIN_COMMENT_HPP
#define OMRU_MODEL_ADMIN_COMMENT_HPP

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "job_options.hpp" // Parsed

namespace omru {

// Slurm keeps AdminComment in full, but sacct output and scontrol lines are
// read by people: the record stays below this (format drops rows first).
constexpr size_t kMaxAdminComment = 1000;

struct AdminComment {
	std::string prefix; // whatever precedes "omru:", trimmed
	std::vector<std::pair<std::string, std::string>> fields; // in order

	// The value of `key`, or nullptr.
	const std::string *get(std::string_view key) const;
	// Replaces the value of `key` in place, or appends it.
	void set(std::string_view key, std::string value);
	void erase(std::string_view key);
	// Sets every field of `other` (its keys win); keeps this prefix.
	void merge(const AdminComment &other);
	bool empty() const { return prefix.empty() && fields.empty(); }
};

// Reads a whole AdminComment.  Text without "omru:" is all prefix.  A field
// that is not KEY=VALUE with a valid key is an error (the record was not
// written by us, or was cut): the caller keeps the text and ignores it.
Parsed<AdminComment> parse_admin_comment(std::string_view text);

// "PREFIX omru: k=v ..." ("omru: k=v ..." without prefix); an empty record
// gives "".  When longer than max_len, `rows` is dropped, then fields from
// the end, so the line always fits.
std::string format_admin_comment(const AdminComment &c,
				 size_t max_len = kMaxAdminComment);

// One measured profile row as the record carries it: GPUS@NODES:EPOCH_S.
struct CommentRow {
	int gpus = 0;
	int nodes = 0; // 0: not known (packed)
	double epoch_s = 0;
};

// "4@1:12.5,8@2:7.25": at most kMaxCommentRows rows, gpus 1..65536, nodes
// 0..gpus, epoch_s finite in (0, 1e9]; an error names the bad row.
constexpr size_t kMaxCommentRows = 32;
Parsed<std::vector<CommentRow>> parse_comment_rows(std::string_view value);
std::string format_comment_rows(const std::vector<CommentRow> &rows);

// One resize of an elastic job as the record carries it (`resizes`):
// AT_S:FROM>TO:COST_S - when the stop was asked (Unix seconds), the GPU
// counts, and the restart's cost (stop request to start again, seconds).
struct CommentResize {
	double at_s = 0;
	int from = 0, to = 0;
	double cost_s = 0;
};
// "1795521099:1>4:11,...": at most kMaxCommentResizes (the newest are
// kept), counts 1..65536, times whole seconds >= 0.
constexpr size_t kMaxCommentResizes = 8;
Parsed<std::vector<CommentResize>> parse_comment_resizes(std::string_view value);
std::string format_comment_resizes(const std::vector<CommentResize> &resizes);

// The training-phase signal a running job reports (`phase`):
// STEPS:FIRST:RECENT - global steps done, the fall of the mean loss from
// the first 100 steps to the next 100, and the same fall over the latest
// two windows of 100 (policy/training_phase.hpp reads it).  Drops may be
// negative (the loss rose); |drop| <= 1e9, steps 0..1e15.
struct CommentPhase {
	double steps = 0;
	double first_drop = 0;
	double recent_drop = 0;
};
Parsed<CommentPhase> parse_comment_phase(std::string_view value);
std::string format_comment_phase(const CommentPhase &p);

// A count list "1,2,4" (the `profiling` key): ascending, distinct, 1..65536,
// at most 32 entries.
Parsed<std::vector<int>> parse_count_list(std::string_view value);
std::string format_count_list(const std::vector<int> &counts);

} // namespace omru

#endif
