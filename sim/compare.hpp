// compare.hpp - `omru-sim compare`: several policies on one workload, one
// table, each policy job by job against a baseline policy (and optionally
// one SVG with their Gantt charts stacked).
#ifndef OMRU_SIM_COMPARE_HPP
#define OMRU_SIM_COMPARE_HPP

#include <string>
#include <vector>

namespace omru {

// RET the process exit status.
int compare_main(const std::vector<std::string> &args);

} // namespace omru

#endif
