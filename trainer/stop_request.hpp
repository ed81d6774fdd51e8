// stop_request.hpp - how an elastic job is asked to stop: select/omru sends
// SIGUSR1 to the job's steps when the plan resizes it; omru-train notes it
// here, and at the next step end every rank agrees (one allreduce), rank 0
// writes a checkpoint at that step and all exit with kElasticExitCode, which
// the site's RequeueExit turns into a requeue at the new GPU count.
#ifndef OMRU_TRAINER_STOP_REQUEST_HPP
#define OMRU_TRAINER_STOP_REQUEST_HPP

#include "omru/omru.h"

namespace omru {
namespace train {

constexpr int kElasticExitCode = OMRU_ELASTIC_EXIT_CODE;

// Installs the SIGUSR1 handler (once; later calls do nothing).  Until then
// SIGUSR1 keeps its default action, so only elastic runs call it.
void watch_stop_requests();
// Whether SIGUSR1 arrived since watch_stop_requests().
bool stop_requested();

} // namespace train
} // namespace omru

#endif
