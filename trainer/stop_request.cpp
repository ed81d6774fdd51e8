// stop_request.cpp - see stop_request.hpp.
#include "stop_request.hpp"

#include <csignal>
#include <cstring>

namespace omru {
namespace train {

namespace {
volatile std::sig_atomic_t requested = 0;
bool installed = false;

extern "C" void on_stop_signal(int)
{
	requested = 1;
}
} // namespace

void watch_stop_requests()
{
	if (installed)
		return;
	struct sigaction sa;
	std::memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART; // Gloo's and the loader's syscalls go on
	sigaction(SIGUSR1, &sa, nullptr);
	installed = true;
}

bool stop_requested()
{
	return requested != 0;
}

} // namespace train
} // namespace omru
