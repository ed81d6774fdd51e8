// loader_entry.cpp - see loader_entry.hpp.
#include "loader/loader_entry.hpp"

#include "model/decimal_text.hpp"

#include <charconv>
#include <cmath>
#include <map>
#include <sstream>

namespace omru {

namespace {

const char kMagic[] = "omru-loader-entry 1";

template <typename T> bool whole_number(std::string_view s, T &out)
{
	auto r = std::from_chars(s.data(), s.data() + s.size(), out);
	return r.ec == std::errc() && r.ptr == s.data() + s.size() && !s.empty();
}

bool real_number(std::string_view s, double &out)
{
	auto r = std::from_chars(s.data(), s.data() + s.size(), out);
	return r.ec == std::errc() && r.ptr == s.data() + s.size() && !s.empty() &&
	       std::isfinite(out);
}

// Shortest text that reads back as the same double.
std::string number_text(double v)
{
	char buf[64];
	auto r = std::to_chars(buf, buf + sizeof(buf), v);
	return std::string(buf, r.ptr);
}

// "k=v k=v ..." into a map; false on a malformed or repeated field.
bool fields(std::string_view text, std::map<std::string, std::string> &out)
{
	size_t i = 0;
	while (i < text.size()) {
		if (text[i] == ' ') {
			i++;
			continue;
		}
		size_t end = text.find(' ', i);
		if (end == std::string_view::npos)
			end = text.size();
		std::string_view f = text.substr(i, end - i);
		size_t eq = f.find('=');
		if (eq == 0 || eq == std::string_view::npos ||
		    !out.emplace(std::string(f.substr(0, eq)),
				 std::string(f.substr(eq + 1)))
			     .second)
			return false;
		i = end;
	}
	return true;
}

} // namespace

std::string LoaderEntry::file_name() const
{
	return "job" + std::to_string(job) + ".step" + std::to_string(step);
}

std::string format_loader_entry(const LoaderEntry &e)
{
	std::ostringstream o;
	o << kMagic << "\njob " << e.job << "\nstep " << e.step << "\nseq " << e.seq
	  << "\npid " << e.pid << "\npid_start " << e.pid_start << "\nuid " << e.uid
	  << "\ntasks " << e.tasks << "\njob_cpus " << e.job_cpus
	  << "\nshare_file " << e.share_file << "\n";
	if (e.report)
		o << "report " << format_loader_report(*e.report) << "\n";
	return o.str();
}

Parsed<LoaderEntry> parse_loader_entry(std::string_view text)
{
	using R = Parsed<LoaderEntry>;
	if (text.size() > kMaxLoaderEntry)
		return R::fail("larger than " + std::to_string(kMaxLoaderEntry) + " bytes");
	if (text.substr(0, sizeof(kMagic) - 1) != kMagic ||
	    text.substr(sizeof(kMagic) - 1, 1) != "\n")
		return R::fail("not an omru-loader-entry 1 file");
	std::map<std::string, std::string> kv;
	size_t pos = sizeof(kMagic);
	while (pos < text.size()) {
		size_t nl = text.find('\n', pos);
		if (nl == std::string_view::npos)
			return R::fail("the last line is not complete");
		std::string_view line = text.substr(pos, nl - pos);
		pos = nl + 1;
		size_t sp = line.find(' ');
		if (sp == 0 || sp == std::string_view::npos)
			return R::fail("'" + std::string(line) + "' is not 'key value'");
		if (!kv.emplace(std::string(line.substr(0, sp)),
				std::string(line.substr(sp + 1)))
			     .second)
			return R::fail(std::string(line.substr(0, sp)) + " given twice");
	}
	LoaderEntry e;
	auto need = [&](const char *key, auto &out) {
		auto it = kv.find(key);
		bool ok = it != kv.end() && whole_number(it->second, out);
		if (it != kv.end())
			kv.erase(it);
		return ok;
	};
	if (!need("job", e.job) || !need("step", e.step) || !need("seq", e.seq) ||
	    !need("pid", e.pid) || !need("pid_start", e.pid_start) ||
	    !need("uid", e.uid) || !need("tasks", e.tasks) ||
	    !need("job_cpus", e.job_cpus))
		return R::fail("a number is missing or is not a whole number");
	if (e.pid < 1 || e.tasks < 1 || e.tasks > 4096 || e.job_cpus < 0 ||
	    e.job_cpus > 65536)
		return R::fail("pid, tasks or job_cpus out of range");
	auto share = kv.find("share_file");
	if (share == kv.end() || share->second.empty() || share->second[0] != '/' ||
	    share->second.find("/../") != std::string::npos)
		return R::fail("share_file is missing or not an absolute path");
	e.share_file = share->second;
	kv.erase(share);
	auto report = kv.find("report");
	if (report != kv.end()) {
		auto r = parse_loader_report(report->second);
		if (!r.ok())
			return R::fail("report: " + r.error());
		e.report = r.value();
		kv.erase(report);
	}
	if (!kv.empty())
		return R::fail("unknown key " + kv.begin()->first);
	return R{ e };
}

// `s` when a model follows from it, else why not.
static Parsed<LoaderSample> fitted(const LoaderSample &s)
{
	std::string why;
	if (!LoaderModel::fit(s, &why))
		return Parsed<LoaderSample>::fail(why);
	return Parsed<LoaderSample>{ s };
}

Parsed<LoaderSample> parse_loader_report(std::string_view text)
{
	using R = Parsed<LoaderSample>;
	if (text.size() > kMaxLoaderReport)
		return R::fail("larger than " + std::to_string(kMaxLoaderReport) + " bytes");
	while (!text.empty() && (text.back() == '\n' || text.back() == '\r'))
		text.remove_suffix(1);
	if (text.find_first_of("\n\r\t") != std::string_view::npos)
		return R::fail("not one line of 'key=value' fields");
	std::map<std::string, std::string> kv;
	if (!fields(text, kv))
		return R::fail("not 'workers=W samples_s=X wait=F rate=R'");
	LoaderSample s;
	auto it = kv.find("workers");
	bool ok = it != kv.end() && whole_number(it->second, s.workers);
	for (auto [key, out] : { std::pair{ "samples_s", &s.samples_s },
				 std::pair{ "wait", &s.wait_fraction },
				 std::pair{ "rate", &s.worker_rate } }) {
		auto f = kv.find(key);
		ok = ok && f != kv.end() && real_number(f->second, *out);
	}
	if (!ok || kv.size() != 4)
		return R::fail("not 'workers=W samples_s=X wait=F rate=R' with "
			       "numbers");
	return fitted(s);
}

std::string format_loader_report(const LoaderSample &s)
{
	return "workers=" + std::to_string(s.workers) +
	       " samples_s=" + number_text(s.samples_s) +
	       " wait=" + number_text(s.wait_fraction) +
	       " rate=" + number_text(s.worker_rate);
}

// What the job's record keeps (sacct): rates to 4 significant digits, the
// wait fraction to 3; the controller learns from these, and a sampled rate
// means no more.  At the edges of what a sample may be (a wait rounding
// to 1, samples/s rounding past what its workers load) rounding would
// turn a valid sample into one the reader refuses: then it is exact.
std::string format_loader_field(const LoaderSample &s)
{
	const std::string x = significant(s.samples_s, 4), f = significant(s.wait_fraction, 3),
			  r = significant(s.worker_rate, 4);
	LoaderSample rounded = s;
	if (real_number(x, rounded.samples_s) && real_number(f, rounded.wait_fraction) &&
	    real_number(r, rounded.worker_rate) && LoaderModel::fit(rounded))
		return std::to_string(s.workers) + ":" + x + ":" + f + ":" + r;
	return std::to_string(s.workers) + ":" + number_text(s.samples_s) + ":" +
	       number_text(s.wait_fraction) + ":" + number_text(s.worker_rate);
}

Parsed<LoaderSample> parse_loader_field(std::string_view text)
{
	using R = Parsed<LoaderSample>;
	const std::string_view whole = text;
	std::string_view part[4];
	for (int i = 0; i < 4; i++) {
		size_t colon = text.find(':');
		if ((colon == std::string_view::npos) != (i == 3))
			return R::fail("loader '" + std::string(whole.substr(0, 64)) +
				       "' is not W:X:F:R");
		part[i] = text.substr(0, colon);
		text = colon == std::string_view::npos ? std::string_view()
						       : text.substr(colon + 1);
	}
	LoaderSample s;
	if (!whole_number(part[0], s.workers) || !real_number(part[1], s.samples_s) ||
	    !real_number(part[2], s.wait_fraction) || !real_number(part[3], s.worker_rate))
		return R::fail("loader: W:X:F:R must be numbers");
	return fitted(s);
}

} // namespace omru
