// plan_state.hpp - what select/omru keeps across slurmctld restarts and
// reconfigures: the plan choice (planner/plan.hpp PlanChoice), so the first
// plan after a restart is the one the cluster was following.  A small text
// file in StateDir, versioned, written atomically (temporary file, fsync,
// rename); a corrupt file is reported and ignored, never fatal.
//
//     omru-plan-state 1
//     budget_s 1234.5
//     order 2
//     moved 17:4 23:2
#ifndef OMRU_CONTROLLER_PLAN_STATE_HPP
#define OMRU_CONTROLLER_PLAN_STATE_HPP

#include <istream>
#include <string>

#include "job_options.hpp" // Parsed
#include "planner/plan.hpp"

namespace omru {
namespace controller {

constexpr const char *kPlanStateFile = "plan_state";
constexpr size_t kMaxPlanStateBytes = 1u << 20;

std::string format_plan_state(const planner::PlanChoice &c);
// `file` names the text in messages ("FILE:LINE: ...").
Parsed<planner::PlanChoice> parse_plan_state(const std::string &text,
					     const std::string &file);

// Creates `dir` (one level, mode 0700) if missing.  RET "" or the error.
std::string save_plan_state(const std::string &dir, const planner::PlanChoice &c);
// The same for any state file of StateDir: `text` to DIR/NAME atomically
// (temporary file, fsync, rename).  RET "" or the error.
std::string save_state_file(const std::string &dir, const std::string &name,
			    const std::string &text);
// DIR/NAME's text (at most kMaxPlanStateBytes); a missing file gives "".
Parsed<std::string> load_state_file(const std::string &dir, const std::string &name);
// A state file's first line, "MAGIC VERSION", whose first word `key` was
// read from `rest`.  RET "" or why it is not that file (`what` names it).
std::string state_header_error(const std::string &key, std::istream &rest,
			       const char *magic, int version, const char *what);
// A missing file gives an invalid choice (a fresh start), not an error.
Parsed<planner::PlanChoice> load_plan_state(const std::string &dir);

} // namespace controller
} // namespace omru

#endif
