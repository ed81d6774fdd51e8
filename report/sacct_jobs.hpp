// sacct_jobs.hpp - the jobs omru-report reads from sacct: the command line
// it runs (one allocation line per job, '|'-separated, the AdminComment
// last) and the reading of that output, from sacct or from a file.
#ifndef OMRU_REPORT_SACCT_JOBS_HPP
#define OMRU_REPORT_SACCT_JOBS_HPP

#include <cmath>
#include <string>
#include <string_view>
#include <vector>

namespace omru {
namespace report {

// The columns, in the order of kSacctFormat.
constexpr const char *kSacctFormat =
	"JobID,JobName,User,State,Submit,Start,End,AllocTRES,NodeList,AdminComment";
constexpr size_t kSacctColumns = 10;

// What the user selects; empty members are not passed on.
struct SacctSelection {
	std::string jobs;       // -j LIST
	std::string start, end; // -S START, -E END
	std::string user;       // -u USER
	bool all_users = false; // -a
};

// argv of the sacct run: sacct -n -P -X -o FORMAT, then each selection as
// one "--name=value" word (a value can never be read as another option).
std::vector<std::string> sacct_argv(const SacctSelection &s);

constexpr double kUnknownTime = NAN;

struct SacctJob {
	std::string id, name, user;
	std::string state;      // the first word: "CANCELLED by 0" -> CANCELLED
	std::string submit_text, start_text, end_text; // as sacct wrote them
	double submit_s = kUnknownTime; // seconds since the epoch, local time;
	double start_s = kUnknownTime;  // NaN for Unknown, None, or unreadable
	double end_s = kUnknownTime;
	int gpus = 0;                   // AllocTRES gres/gpu
	std::string node_list;          // NodeList as written
	std::vector<std::string> nodes; // expanded; empty for "None assigned"
	std::string admin_comment;
	size_t line = 0; // in the input, for messages
};

// Reads sacct -P output (`name` is where it came from, for messages).  A
// line is a job when it has 10 fields and its JobID starts with a digit;
// only the first nine '|' split, so the AdminComment may hold anything.  A
// line that is not a job continues the previous job's AdminComment (which
// may hold newlines), or, before the first job, is skipped with a warning.
// A job whose Submit cannot be read, or whose NodeList or AllocTRES is
// malformed, keeps what could be read; each problem adds a warning
// "NAME:LINE: job ID: ...".
std::vector<SacctJob> parse_sacct(const std::string &name, std::string_view text,
				  std::vector<std::string> &warnings);

// "2026-11-22T12:00:00" (sacct's standard format) as seconds since the
// epoch in local time; NaN for "Unknown", "None", "" or anything else.
double parse_sacct_time(std::string_view text);

// The GPUs of an AllocTRES value: gres/gpu=N, else the sum of typed
// gres/gpu:TYPE=N entries; 0 when there are none.  -1 when a gpu count
// is not a number.
int alloc_tres_gpus(std::string_view tres);

} // namespace report
} // namespace omru

#endif
