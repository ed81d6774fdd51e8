// resize_state.hpp - the resize book (resize_book.hpp) across slurmctld
// restarts: a text file in StateDir next to plan_state, written with it
// (select_p_state_save) and read at start.  Without it a restart in the
// middle of a resize forgot the resize (the job still resumed, planned like
// any pending job, its restart cost unmeasured) and every measured cost.
//
//     omru-resize-state 1
//     resize JOB FROM TO ASKED_S STOPPED_S MODEL NODE:GPUS,...
//     restarting JOB FROM TO ASKED_S COST_S MODEL
//     refused JOB
//     late JOB
//     rest JOB UNTIL_S
//     cost MODEL N SUM_S
//     cost_all N SUM_S
//
// Times are Unix seconds; a MODEL is one word.  A corrupt file is reported
// and ignored (the book starts empty), never fatal.
#ifndef OMRU_CONTROLLER_RESIZE_STATE_HPP
#define OMRU_CONTROLLER_RESIZE_STATE_HPP

#include <string>

#include "controller/resize_book.hpp"
#include "job_options.hpp" // Parsed

namespace omru {
namespace controller {

constexpr const char *kResizeStateFile = "resize_state";

std::string format_resize_state(const ResizeBookState &st);
// `file` names the text in messages ("FILE:LINE: ...").
Parsed<ResizeBookState> parse_resize_state(const std::string &text,
					   const std::string &file);

} // namespace controller
} // namespace omru

#endif
