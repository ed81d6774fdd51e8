// plan_state.cpp - see plan_state.hpp.
#include "controller/plan_state.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace omru {
namespace controller {
namespace {

constexpr const char *kMagic = "omru-plan-state";
constexpr int kVersion = 1;
constexpr size_t kMaxMoved = 1000000;

std::string sys_error(const std::string &what, const std::string &path)
{
	return what + " " + path + ": " + std::strerror(errno);
}

} // namespace

std::string format_plan_state(const planner::PlanChoice &c)
{
	std::ostringstream o;
	o.precision(17);
	o << kMagic << ' ' << kVersion << '\n'
	  << "budget_s " << c.budget_s << '\n'
	  << "order " << c.order << '\n'
	  << "moved";
	for (auto [id, gpus] : c.moved)
		o << ' ' << id << ':' << gpus;
	o << '\n';
	return o.str();
}

Parsed<planner::PlanChoice> parse_plan_state(const std::string &text,
					     const std::string &file)
{
	using P = Parsed<planner::PlanChoice>;
	std::istringstream in(text);
	std::string line;
	planner::PlanChoice c;
	int n = 0;
	bool have[3] = { false, false, false };
	while (std::getline(in, line)) {
		n++;
		std::istringstream l(line);
		std::string key;
		l >> key;
		auto bad = [&](const std::string &why) {
			return P::fail(file + ":" + std::to_string(n) + ": " + why);
		};
		if (n == 1) {
			std::string e = state_header_error(key, l, kMagic, kVersion,
							   "an omru plan state file");
			if (!e.empty())
				return bad(e);
			continue;
		}
		if (key == "budget_s") {
			if (!(l >> c.budget_s) || !(c.budget_s >= 0) ||
			    !std::isfinite(c.budget_s))
				return bad("budget_s must be a finite number >= 0");
			have[0] = true;
		} else if (key == "order") {
			if (!(l >> c.order) || c.order < 0 || c.order > 64)
				return bad("order must be 0..64");
			have[1] = true;
		} else if (key == "moved") {
			std::string item;
			while (l >> item) {
				long id = 0;
				int gpus = 0;
				char colon = 0;
				std::istringstream it(item);
				if (!(it >> id >> colon >> gpus) || colon != ':' ||
				    id < 0 || gpus < 1 || !it.eof())
					return bad("moved entries are JOBID:GPUS");
				if (c.moved.size() >= kMaxMoved)
					return bad("too many moved entries");
				if (!c.moved.empty() && c.moved.back().first >= id)
					return bad("moved entries must ascend by job id");
				c.moved.emplace_back(id, gpus);
			}
			have[2] = true;
		} else if (!key.empty()) {
			return bad("unknown key '" + key + "'");
		}
		std::string rest;
		if (key != "moved" && (l >> rest))
			return bad("trailing text after " + key);
	}
	if (n == 0 || !have[0] || !have[1] || !have[2])
		return P::fail(file + ": incomplete (needs budget_s, order, moved)");
	c.valid = true;
	return c;
}

std::string state_header_error(const std::string &key, std::istream &rest,
			       const char *magic, int version, const char *what)
{
	int v = 0;
	if (key != magic || !(rest >> v))
		return std::string("not ") + what;
	if (v != version)
		return "version " + std::to_string(v) + " (this build reads " +
		       std::to_string(version) + ")";
	return "";
}

std::string save_state_file(const std::string &dir, const std::string &name,
			    const std::string &text)
{
	if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
		return sys_error("cannot create", dir);
	std::string path = dir + "/" + name;
	std::string tmp = path + ".new";
	int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return sys_error("cannot write", tmp);
	size_t done = 0;
	while (done < text.size()) {
		ssize_t w = write(fd, text.data() + done, text.size() - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			std::string e = sys_error("cannot write", tmp);
			close(fd);
			unlink(tmp.c_str());
			return e;
		}
		done += static_cast<size_t>(w);
	}
	if (fsync(fd) != 0 || close(fd) != 0) {
		std::string e = sys_error("cannot sync", tmp);
		unlink(tmp.c_str());
		return e;
	}
	if (rename(tmp.c_str(), path.c_str()) != 0) {
		std::string e = sys_error("cannot rename to", path);
		unlink(tmp.c_str());
		return e;
	}
	return "";
}

Parsed<std::string> load_state_file(const std::string &dir, const std::string &name)
{
	using P = Parsed<std::string>;
	std::string path = dir + "/" + name;
	int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return std::string();
		return P::fail(sys_error("cannot read", path));
	}
	std::string text;
	char buf[4096];
	for (;;) {
		ssize_t r = read(fd, buf, sizeof(buf));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			std::string e = sys_error("cannot read", path);
			close(fd);
			return P::fail(e);
		}
		if (r == 0)
			break;
		text.append(buf, static_cast<size_t>(r));
		if (text.size() > kMaxPlanStateBytes) {
			close(fd);
			return P::fail(path + ": larger than 1 MiB");
		}
	}
	close(fd);
	return text;
}

std::string save_plan_state(const std::string &dir, const planner::PlanChoice &c)
{
	return save_state_file(dir, kPlanStateFile, format_plan_state(c));
}

Parsed<planner::PlanChoice> load_plan_state(const std::string &dir)
{
	using P = Parsed<planner::PlanChoice>;
	auto text = load_state_file(dir, kPlanStateFile);
	if (!text.ok())
		return P::fail(text.error());
	if (text.value().empty())
		return planner::PlanChoice{};
	return parse_plan_state(text.value(), dir + "/" + kPlanStateFile);
}

} // namespace controller
} // namespace omru
