// registry.hpp - the factories behind policy_registry(), one per policy file.
#ifndef OMRU_POLICY_REGISTRY_HPP
#define OMRU_POLICY_REGISTRY_HPP

#include <memory>

#include "policy/policy.hpp"

namespace omru {

std::unique_ptr<Policy> make_fifo(const PolicyOptions &);
std::unique_ptr<Policy> make_backfill(const PolicyOptions &);
std::unique_ptr<Policy> make_sjf(const PolicyOptions &);
std::unique_ptr<Policy> make_tiresias(const PolicyOptions &);
std::unique_ptr<Policy> make_optimus(const PolicyOptions &);
std::unique_ptr<Policy> make_seq(const PolicyOptions &);
std::unique_ptr<Policy> make_omru_ga(const PolicyOptions &);
std::unique_ptr<Policy> make_omru(const PolicyOptions &);
std::unique_ptr<Policy> make_omru_oblivious(const PolicyOptions &);

} // namespace omru

#endif
