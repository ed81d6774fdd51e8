// spank_config.hpp - strict parser for spank_omru's plugstack.conf arguments.
// A typo in plugstack.conf must stop the plugin from loading with a clear
// message, never be ignored (a silently ignored limit is worse than none).
#ifndef OMRU_CORE_SPANK_CONFIG_HPP
#define OMRU_CORE_SPANK_CONFIG_HPP

#include "job_options.hpp"

namespace omru {

Parsed<omru_spank_config_t> parse_spank_config(int argc,
					       const char *const *argv);

} // namespace omru

#endif
