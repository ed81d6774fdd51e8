// run_command.cpp - see run_command.hpp.
#include "run_command.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

namespace omru {
namespace report {
namespace {

// Closes what is still open when the run ends, however it ends.
struct Fds {
	int fd[6] = { -1, -1, -1, -1, -1, -1 }; // out, err, exec-error pipes
	~Fds()
	{
		for (int f : fd)
			if (f >= 0)
				close(f);
	}
	void close_one(int i)
	{
		if (fd[i] >= 0)
			close(fd[i]);
		fd[i] = -1;
	}
};

} // namespace

std::string CommandResult::failure() const
{
	if (!ran)
		return error;
	std::string first = err.substr(0, err.find('\n'));
	std::string s = (status >= 128 ? "killed by signal " +
						 std::to_string(status - 128)
				       : "exit status " + std::to_string(status));
	return s + (first.empty() ? "" : ": " + first);
}

CommandResult run_command(const std::vector<std::string> &argv)
{
	CommandResult r;
	const std::string name = argv.empty() ? "(nothing)" : argv[0];
	Fds p;
	// The third pipe is close-on-exec: the child writes errno to it when
	// exec fails, and it closes unread when exec works.
	if (argv.empty() || pipe(p.fd) != 0 || pipe(p.fd + 2) != 0 ||
	    pipe2(p.fd + 4, O_CLOEXEC) != 0) {
		r.error = name + ": cannot create a pipe: " + std::strerror(errno);
		return r;
	}
	std::vector<char *> args;
	for (const std::string &a : argv)
		args.push_back(const_cast<char *>(a.c_str()));
	args.push_back(nullptr);

	pid_t pid = fork();
	if (pid < 0) {
		r.error = name + ": cannot fork: " + std::strerror(errno);
		return r;
	}
	if (pid == 0) {
		dup2(p.fd[1], STDOUT_FILENO);
		dup2(p.fd[3], STDERR_FILENO);
		for (int i : { 0, 1, 2, 3, 4 })
			close(p.fd[i]);
		setenv("SLURM_TIME_FORMAT", "standard", 1);
		execvp(args[0], args.data());
		int e = errno;
		ssize_t n = write(p.fd[5], &e, sizeof(e));
		(void)n;
		_exit(127);
	}
	p.close_one(1);
	p.close_one(3);
	p.close_one(5);

	// Read both streams to their end (neither may fill up and block it).
	struct pollfd fds[2] = { { p.fd[0], POLLIN, 0 }, { p.fd[2], POLLIN, 0 } };
	std::string *sink[2] = { &r.out, &r.err };
	int open_fds = 2;
	char buf[65536];
	while (open_fds > 0) {
		if (poll(fds, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int i = 0; i < 2; i++) {
			if (fds[i].fd < 0 || !fds[i].revents)
				continue;
			ssize_t n = read(fds[i].fd, buf, sizeof(buf));
			if (n > 0) {
				sink[i]->append(buf, n);
			} else if (n == 0 || errno != EINTR) {
				fds[i].fd = -1; // poll ignores negative fds
				open_fds--;
			}
		}
	}
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
	}
	int exec_errno = 0;
	if (read(p.fd[4], &exec_errno, sizeof(exec_errno)) ==
	    static_cast<ssize_t>(sizeof(exec_errno))) {
		r.error = name + ": cannot run it: " + std::strerror(exec_errno);
		return r;
	}
	r.ran = true;
	r.status = WIFEXITED(status) ? WEXITSTATUS(status)
				     : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	return r;
}

} // namespace report
} // namespace omru
