// job_options.cpp - see job_options.hpp.  Every error message names the
// option, repeats what the user typed, and states what is allowed, because
// it is printed by sbatch to the person who typed it.
#include "job_options.hpp"

#include <cstdio>
#include <cstring>

namespace omru {

namespace {

bool is_model_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	       (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '+' ||
	       c == '-';
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::string opt_text(const char *name, std::string_view value)
{
	std::string s = "--omru-";
	s += name;
	s += '=';
	s.append(value.data(), value.size());
	return s;
}

// Parses a run of decimal digits as an unsigned integer, refusing overflow
// past `cap` (so "99999999999999999999" is "too large", not a wrapped value).
bool parse_uint(std::string_view s, uint64_t cap, uint64_t *out, bool *too_large)
{
	*too_large = false;
	if (s.empty())
		return false;
	uint64_t v = 0;
	for (char c : s) {
		if (!is_digit(c))
			return false;
		if (v > cap) {
			*too_large = true;
			continue;
		}
		v = v * 10 + static_cast<uint64_t>(c - '0');
	}
	if (v > cap)
		*too_large = true;
	*out = v;
	return true;
}

} // namespace

Parsed<std::string> parse_model(std::string_view value)
{
	const std::string allowed =
		"allowed: 1 to 64 characters from A-Z a-z 0-9 . _ + -";
	if (value.empty())
		return Parsed<std::string>::fail(opt_text("model", value) +
						 ": empty model name (" +
						 allowed + ")");
	if (value.size() > OMRU_MODEL_MAX_LEN)
		return Parsed<std::string>::fail(
			opt_text("model", value.substr(0, 16)) +
			"...: model name is " + std::to_string(value.size()) +
			" characters long (" + allowed + ")");
	for (char c : value)
		if (!is_model_char(c))
			return Parsed<std::string>::fail(
				opt_text("model", value) +
				": invalid character in model name (" +
				allowed + ")");
	return Parsed<std::string>{std::string(value)};
}

Parsed<double> parse_epochs(std::string_view value)
{
	const std::string allowed =
		"allowed: a number of epochs N with 0 < N <= 1000000, e.g. 90 "
		"or 2.5";
	auto fail = [&](const char *why) {
		return Parsed<double>::fail(opt_text("epochs", value) + ": " +
					    why + " (" + allowed + ")");
	};
	// Grammar: DIGITS [ "." DIGITS ].  No sign, exponent, hex, inf or nan:
	// strtod would accept all of those.
	size_t i = 0;
	while (i < value.size() && is_digit(value[i]))
		i++;
	size_t int_digits = i;
	size_t frac_digits = 0;
	if (i < value.size() && value[i] == '.') {
		i++;
		while (i < value.size() && is_digit(value[i])) {
			i++;
			frac_digits++;
		}
		if (frac_digits == 0)
			return fail("not a number");
	}
	if (int_digits == 0 || i != value.size())
		return fail("not a number");
	if (int_digits > 7)
		return fail("too many epochs");
	std::string text(value);
	double v = std::strtod(text.c_str(), nullptr);
	if (!(v > 0.0))
		return fail("must be positive");
	if (v > OMRU_EPOCHS_LIMIT)
		return fail("too many epochs");
	return Parsed<double>{v};
}

Parsed<GpuRange> parse_gpus_range(std::string_view value, uint32_t max_allowed)
{
	if (max_allowed == 0 || max_allowed > OMRU_GPUS_LIMIT)
		max_allowed = OMRU_GPUS_LIMIT;
	const std::string allowed = "1 <= MIN <= MAX <= " +
				    std::to_string(max_allowed);
	auto fail = [&](const std::string &why) {
		return Parsed<GpuRange>::fail(opt_text("gpus", value) + ": " +
					      why + " (" + allowed + ")");
	};
	size_t dash = value.find('-');
	std::string_view lo = value.substr(0, dash);
	std::string_view hi = dash == std::string_view::npos ?
				      value :
				      value.substr(dash + 1);
	uint64_t min = 0, max = 0;
	bool big_lo = false, big_hi = false;
	if (!parse_uint(lo, max_allowed, &min, &big_lo) ||
	    !parse_uint(hi, max_allowed, &max, &big_hi))
		return fail("expected MIN-MAX or N, e.g. 1-8 or 4");
	if (min < 1 || max < 1)
		return fail("GPU counts must be at least 1");
	if (big_lo || big_hi)
		return fail("GPU count above " + std::to_string(max_allowed));
	if (min > max)
		return fail("MIN must not exceed MAX");
	return Parsed<GpuRange>{GpuRange{static_cast<uint32_t>(min),
					 static_cast<uint32_t>(max)}};
}

Parsed<omru_profile_mode_t> parse_profile_mode(std::string_view value)
{
	if (value == "auto")
		return Parsed<omru_profile_mode_t>{OMRU_PROFILE_AUTO};
	if (value == "off")
		return Parsed<omru_profile_mode_t>{OMRU_PROFILE_OFF};
	if (value == "force")
		return Parsed<omru_profile_mode_t>{OMRU_PROFILE_FORCE};
	return Parsed<omru_profile_mode_t>::fail(
		opt_text("profile", value) +
		": unknown mode (allowed: auto, off, force)");
}

std::string elastic_problem(const omru_job_options_t &o)
{
	if (!(o.set & OMRU_OPT_ELASTIC))
		return "";
	if (!(o.set & OMRU_OPT_EPOCHS))
		return "--omru-elastic needs --omru-epochs=N: the plan resizes a job "
		       "by the work it has left";
	if (!(o.set & OMRU_OPT_GPUS) || o.gpus_min == o.gpus_max)
		return "--omru-elastic needs --omru-gpus=MIN-MAX with MIN < MAX: the "
		       "counts the job may be resized between";
	return "";
}

Parsed<omru_job_options_t> job_options_from_env(const char *const *env,
						size_t count)
{
	omru_job_options_t o{};
	o.profile = OMRU_PROFILE_AUTO;
	bool have_min = false, have_max = false;
	std::string gmin, gmax;
	for (size_t i = 0; env && i < count; i++) {
		if (!env[i])
			continue;
		std::string_view kv(env[i]);
		size_t eq = kv.find('=');
		if (eq == std::string_view::npos)
			continue;
		std::string_view k = kv.substr(0, eq), v = kv.substr(eq + 1);
		if (k == OMRU_ENV_MODEL) {
			auto r = parse_model(v);
			if (!r.ok())
				return Parsed<omru_job_options_t>::fail(r.error());
			std::memcpy(o.model, r.value().c_str(),
				    r.value().size() + 1);
			o.set |= OMRU_OPT_MODEL;
		} else if (k == OMRU_ENV_EPOCHS) {
			auto r = parse_epochs(v);
			if (!r.ok())
				return Parsed<omru_job_options_t>::fail(r.error());
			o.epochs = r.value();
			o.set |= OMRU_OPT_EPOCHS;
		} else if (k == OMRU_ENV_GPUS_MIN) {
			gmin = std::string(v);
			have_min = true;
		} else if (k == OMRU_ENV_GPUS_MAX) {
			gmax = std::string(v);
			have_max = true;
		} else if (k == OMRU_ENV_PROFILE) {
			auto r = parse_profile_mode(v);
			if (!r.ok())
				return Parsed<omru_job_options_t>::fail(r.error());
			o.profile = r.value();
			o.set |= OMRU_OPT_PROFILE;
		} else if (k == OMRU_ENV_ELASTIC) {
			if (v != "1")
				return Parsed<omru_job_options_t>::fail(
					std::string(OMRU_ENV_ELASTIC) + "='" + std::string(v) +
					"': expected 1");
			o.set |= OMRU_OPT_ELASTIC;
		}
	}
	if (have_min != have_max)
		return Parsed<omru_job_options_t>::fail(
			std::string(OMRU_ENV_GPUS_MIN) + " and " +
			OMRU_ENV_GPUS_MAX + " must be given together");
	if (have_min) {
		auto r = parse_gpus_range(gmin + "-" + gmax, OMRU_GPUS_LIMIT);
		if (!r.ok())
			return Parsed<omru_job_options_t>::fail(r.error());
		o.gpus_min = r.value().min;
		o.gpus_max = r.value().max;
		o.set |= OMRU_OPT_GPUS;
	}
	if (auto why = elastic_problem(o); !why.empty())
		return Parsed<omru_job_options_t>::fail(why);
	return Parsed<omru_job_options_t>{o};
}

std::string format_job_options(const omru_job_options_t &o)
{
	std::string s;
	auto add = [&](const std::string &part) {
		if (!s.empty())
			s += ' ';
		s += part;
	};
	if (o.set & OMRU_OPT_MODEL)
		add(std::string("model=") + o.model);
	if (o.set & OMRU_OPT_EPOCHS) {
		char buf[64];
		std::snprintf(buf, sizeof buf, "epochs=%g", o.epochs);
		add(buf);
	}
	if (o.set & OMRU_OPT_GPUS)
		add("gpus=" + std::to_string(o.gpus_min) + "-" +
		    std::to_string(o.gpus_max));
	if (o.set & OMRU_OPT_PROFILE)
		add(std::string("profile=") + omru_profile_mode_name(o.profile));
	if (o.set & OMRU_OPT_ELASTIC)
		add("elastic=yes");
	return s;
}

} // namespace omru
