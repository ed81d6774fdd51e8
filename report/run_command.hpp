// run_command.hpp - runs sacct and sinfo for omru-report: execvp with the
// argv as given (no shell: a job list or user name is one word, whatever
// it holds), standard output and standard error read back.
#ifndef OMRU_REPORT_RUN_COMMAND_HPP
#define OMRU_REPORT_RUN_COMMAND_HPP

#include <string>
#include <vector>

namespace omru {
namespace report {

struct CommandResult {
	bool ran = false;   // the program was found and started
	int status = -1;    // exit status; 128 + signal when killed
	std::string out, err;
	std::string error;  // why it did not run ("sacct: No such file ...")

	bool ok() const { return ran && status == 0; }
	// "sacct: ..." for a message: why it did not run, or its status and the
	// first line of its standard error.
	std::string failure() const;
};

// argv[0] is looked up in PATH.  The child gets SLURM_TIME_FORMAT=standard
// so that times read as YYYY-MM-DDTHH:MM:SS whatever the user set.
CommandResult run_command(const std::vector<std::string> &argv);

} // namespace report
} // namespace omru

#endif
