// cli_args.hpp - the command lines of omru-sim and omru-train: "--name
// value" or "--name=value", flags without a value, and every mistake
// reported as a usage error.
#ifndef OMRU_CLI_ARGS_HPP
#define OMRU_CLI_ARGS_HPP

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace omru {

// A usage mistake; the command prints what() and exits 2.
class UsageError : public std::runtime_error {
	using std::runtime_error::runtime_error;
};

struct OptionSpec {
	const char *name; // without "--"
	bool takes_value;
};

class CliArgs {
    public:
	// Throws UsageError for an unknown option, a missing value, a value
	// given to a flag, a repeated option or a stray positional argument.
	CliArgs(const std::vector<std::string> &args,
		const std::vector<OptionSpec> &known);

	bool has(const std::string &name) const { return values_.count(name) != 0; }
	std::optional<std::string> get(const std::string &name) const;
	std::string required(const std::string &name) const;
	// Typed values; UsageError names the option and what is allowed.
	double number(const std::string &name, double fallback, double min,
		      double max) const;
	long integer(const std::string &name, long fallback, long min,
		     long max) const;
	// A comma-separated value, split; empty when the option is not given.
	// UsageError "--NAME 'VALUE': empty ITEM" for an empty item.
	std::vector<std::string> list(const std::string &name, const char *item) const;

    private:
	std::map<std::string, std::string> values_;
};

} // namespace omru

#endif
