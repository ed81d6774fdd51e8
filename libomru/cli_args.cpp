// cli_args.cpp - see cli_args.hpp.
#include "cli_args.hpp"

#include <charconv>
#include <cmath>

namespace omru {

CliArgs::CliArgs(const std::vector<std::string> &args,
		 const std::vector<OptionSpec> &known)
{
	for (size_t i = 0; i < args.size(); i++) {
		const std::string &a = args[i];
		if (a.rfind("--", 0) != 0 || a.size() == 2)
			throw UsageError("unexpected argument '" + a + "'");
		size_t eq = a.find('=');
		std::string name = a.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
		const OptionSpec *spec = nullptr;
		for (const OptionSpec &k : known)
			if (name == k.name)
				spec = &k;
		if (!spec)
			throw UsageError("unknown option '--" + name + "'");
		if (values_.count(name))
			throw UsageError("--" + name + " given twice");
		std::string value;
		if (!spec->takes_value) {
			if (eq != std::string::npos)
				throw UsageError("--" + name + " takes no value");
		} else if (eq != std::string::npos) {
			value = a.substr(eq + 1);
		} else if (i + 1 < args.size()) {
			value = args[++i];
		} else {
			throw UsageError("--" + name + " needs a value");
		}
		if (spec->takes_value && value.empty())
			throw UsageError("--" + name + " needs a value");
		values_[name] = value;
	}
}

std::optional<std::string> CliArgs::get(const std::string &name) const
{
	auto it = values_.find(name);
	if (it == values_.end())
		return std::nullopt;
	return it->second;
}

std::string CliArgs::required(const std::string &name) const
{
	auto v = get(name);
	if (!v)
		throw UsageError("--" + name + " is required");
	return *v;
}

std::vector<std::string> CliArgs::list(const std::string &name, const char *item) const
{
	std::vector<std::string> out;
	auto v = get(name);
	if (!v)
		return out;
	size_t pos = 0;
	while (pos <= v->size()) {
		size_t comma = v->find(',', pos);
		out.push_back(v->substr(pos, comma == std::string::npos ? std::string::npos
									: comma - pos));
		if (out.back().empty())
			throw UsageError("--" + name + " '" + *v + "': empty " + item);
		if (comma == std::string::npos)
			break;
		pos = comma + 1;
	}
	return out;
}

static std::string range_text(double min, double max)
{
	char buf[96];
	snprintf(buf, sizeof(buf), "%g..%g", min, max);
	return buf;
}

double CliArgs::number(const std::string &name, double fallback, double min,
		       double max) const
{
	auto v = get(name);
	if (!v)
		return fallback;
	double d = 0;
	auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), d);
	if (ec != std::errc() || end != v->data() + v->size() ||
	    !std::isfinite(d) || d < min || d > max)
		throw UsageError("--" + name + " '" + *v + "' is not a number in " +
				 range_text(min, max));
	return d;
}

long CliArgs::integer(const std::string &name, long fallback, long min,
		      long max) const
{
	auto v = get(name);
	if (!v)
		return fallback;
	long d = 0;
	auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), d);
	if (ec != std::errc() || end != v->data() + v->size() || d < min || d > max)
		throw UsageError("--" + name + " '" + *v + "' is not an integer in " +
				 std::to_string(min) + ".." + std::to_string(max));
	return d;
}

} // namespace omru
