// node_loader_state.cpp - see node_loader_state.hpp.
#include "loader/node_loader_state.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <stdexcept>

namespace omru {

namespace {

const char kLockFile[] = "lock";

std::string sys_error(const std::string &what)
{
	return what + ": " + std::strerror(errno);
}

// The whole of a regular file that is not a link, at most `cap` bytes;
// false when it cannot be read or is larger.
bool read_small_file(const std::string &path, size_t cap, std::string &out,
		     struct stat *st_out = nullptr)
{
	int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return false;
	struct stat st;
	bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
		  static_cast<size_t>(st.st_size) <= cap;
	out.clear();
	char buf[1024];
	ssize_t n;
	while (ok && (n = read(fd, buf, sizeof(buf))) > 0) {
		out.append(buf, static_cast<size_t>(n));
		ok = out.size() <= cap;
	}
	close(fd);
	if (ok && st_out)
		*st_out = st;
	return ok;
}

// Replaces `path` atomically with `text` (mode 0644): a temp file opened
// exclusively and without following links, then renamed over it.
bool replace_file(const std::string &path, const std::string &text, std::string &why)
{
	std::string tmp = path + ".tmp";
	unlink(tmp.c_str());
	int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		why = sys_error(tmp);
		return false;
	}
	bool ok = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
	ok = close(fd) == 0 && ok;
	if (!ok || rename(tmp.c_str(), path.c_str()) != 0) {
		why = sys_error(path);
		unlink(tmp.c_str());
		return false;
	}
	return true;
}

bool moved(double a, double b)
{
	return std::fabs(a - b) > 0.1 * std::max(std::fabs(a), std::fabs(b));
}

// Whether the model `s` implies differs materially from `old`'s.
bool material_change(const std::optional<LoaderSample> &old, const LoaderSample &s)
{
	if (!old)
		return true;
	auto a = LoaderModel::fit(*old), b = LoaderModel::fit(s);
	if (!a || !b)
		return true;
	return moved(a->compute_s_per_sample(), b->compute_s_per_sample()) ||
	       moved(a->worker_rate(), b->worker_rate());
}

} // namespace

std::string NodeShares::summary() const
{
	std::string s;
	for (const Share &x : shares) {
		s += (s.empty() ? "" : " ") + std::string("job") + std::to_string(x.job) +
		     "." + std::to_string(x.step) + ":" + std::to_string(x.workers);
		if (!x.active)
			s += "(inactive)";
		else if (!x.measured)
			s += "(prior)";
	}
	s += (s.empty() ? "" : " ") + std::string("(pool ") + std::to_string(pool) +
	     (oversubscribed ? ", oversubscribed)" : ")");
	return s;
}

uint64_t process_start_ticks(long pid)
{
	std::string stat;
	if (!read_small_file("/proc/" + std::to_string(pid) + "/stat", 4096, stat))
		return 0;
	// Field 2 (comm) may hold blanks and parentheses: count from the
	// last ')'.  starttime is field 22, the 20th after it.
	size_t p = stat.rfind(')');
	if (p == std::string::npos)
		return 0;
	// The blank before field 3 is p + 1; step 19 blanks on to field 22's.
	size_t start = stat.find(' ', p + 1);
	for (int f = 3; f < 22 && start != std::string::npos; f++)
		start = stat.find(' ', start + 1);
	if (start == std::string::npos)
		return 0;
	return std::strtoull(stat.c_str() + start + 1, nullptr, 10);
}

bool process_alive(long pid, uint64_t start)
{
	if (pid < 1)
		return false;
	uint64_t now = process_start_ticks(pid);
	return now != 0 && (start == 0 || now == start);
}

NodeShares decide_node_shares(const std::vector<LoaderEntry> &entries,
			      const NodeLoaderConfig &cfg)
{
	// Active entries: per job those that reported, else its newest.
	std::map<uint32_t, std::vector<size_t>> by_job;
	for (size_t i = 0; i < entries.size(); i++)
		by_job[entries[i].job].push_back(i);
	std::vector<bool> active(entries.size(), false);
	for (auto &[job, idx] : by_job) {
		bool any = false;
		for (size_t i : idx)
			if (entries[i].report)
				active[i] = any = true;
		if (!any)
			active[*std::max_element(idx.begin(), idx.end(), [&](size_t a, size_t b) {
				return entries[a].seq < entries[b].seq;
			})] = true;
	}
	const int max_w = std::clamp(cfg.max_workers, 1, OMRU_LOADER_MAX_LIMIT);
	std::vector<LoaderJob> jobs;
	std::vector<size_t> of_job;
	int pool = 0;
	for (size_t i = 0; i < entries.size(); i++) {
		if (!active[i])
			continue;
		const LoaderEntry &e = entries[i];
		LoaderJob j;
		j.tasks = std::max(1, e.tasks);
		j.max_workers = max_w;
		if (e.report)
			if (auto m = LoaderModel::fit(*e.report))
				j.model = *m;
		if (!e.report || !LoaderModel::fit(*e.report))
			j.model = loader_prior(kLoaderPriorWorkers);
		if (cfg.mode == OMRU_LOADER_SHARE_JOB) {
			// Unknown CPUs: as many as tasks plus one worker each.
			int cpus = e.job_cpus > 0 ? e.job_cpus : 2 * j.tasks;
			j.max_workers = std::clamp((cpus - j.tasks) / j.tasks, 1, max_w);
			pool += j.max_workers * j.tasks;
		} else {
			pool -= j.tasks;
		}
		jobs.push_back(j);
		of_job.push_back(i);
	}
	if (cfg.mode != OMRU_LOADER_SHARE_JOB)
		pool = std::max(0, pool + cfg.node_cpus);
	LoaderShares got = allocate_loader_workers(jobs, pool);
	NodeShares out;
	out.pool = pool;
	out.oversubscribed = got.oversubscribed;
	for (size_t i = 0, k = 0; i < entries.size(); i++) {
		bool on = active[i];
		int w = on ? got.workers[k++] : 1;
		out.shares.push_back({ entries[i].job, entries[i].step, w, on,
				       on && entries[i].report.has_value() });
	}
	return out;
}

// flock on the state's lock file for the lifetime of the object.
class NodeLoaderState::Lock {
    public:
	explicit Lock(const std::string &dir)
	{
		std::string path = dir + "/" + kLockFile;
		fd_ = open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd_ < 0)
			throw std::runtime_error(sys_error(path));
		while (flock(fd_, LOCK_EX) != 0) {
			if (errno != EINTR) {
				close(fd_);
				throw std::runtime_error(sys_error("lock " + path));
			}
		}
	}
	~Lock() { close(fd_); } // releases the flock
	Lock(const Lock &) = delete;
	Lock &operator=(const Lock &) = delete;

    private:
	int fd_ = -1;
};

NodeLoaderState::NodeLoaderState(std::string dir, Alive alive)
	: dir_(std::move(dir)), alive_(std::move(alive))
{
	if (mkdir(dir_.c_str(), 0700) != 0 && errno != EEXIST)
		throw std::runtime_error(sys_error("cannot create " + dir_));
	struct stat st;
	if (lstat(dir_.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) ||
	    st.st_uid != geteuid() || (st.st_mode & 022))
		throw std::runtime_error(dir_ + " is not a directory of uid " +
					 std::to_string(geteuid()) +
					 " that only it may write");
}

std::vector<LoaderEntry> NodeLoaderState::load(std::vector<std::string> &problems)
{
	std::vector<LoaderEntry> out;
	DIR *d = opendir(dir_.c_str());
	if (!d)
		throw std::runtime_error(sys_error(dir_));
	std::vector<std::string> names;
	while (struct dirent *de = readdir(d))
		names.emplace_back(de->d_name);
	closedir(d);
	std::sort(names.begin(), names.end());
	for (const std::string &name : names) {
		if (name == "." || name == ".." || name == kLockFile)
			continue;
		std::string path = dir_ + "/" + name;
		// Under the lock nobody writes: a temp file is a crash's.
		if (name.size() > 4 && name.compare(name.size() - 4, 4, ".tmp") == 0) {
			unlink(path.c_str());
			continue;
		}
		std::string text;
		auto e = read_small_file(path, kMaxLoaderEntry, text)
				 ? parse_loader_entry(text)
				 : Parsed<LoaderEntry>::fail("cannot be read or is too large");
		if (!e.ok() || e.value().file_name() != name) {
			problems.push_back(path + ": " +
					   (e.ok() ? "its name does not match its job"
						   : e.error()) +
					   "; removed");
			unlink(path.c_str());
			continue;
		}
		if (alive_ && !alive_(e.value().pid, e.value().pid_start)) {
			problems.push_back("job " + std::to_string(e.value().job) + " step " +
					   std::to_string(e.value().step) +
					   ": its slurmstepd (pid " +
					   std::to_string(e.value().pid) +
					   ") is gone; entry removed");
			unlink(path.c_str());
			continue;
		}
		out.push_back(e.value());
	}
	return out;
}

std::vector<LoaderEntry> NodeLoaderState::entries() const
{
	// Unlike load(), a reader changes nothing: it only skips what
	// load() would refuse.
	std::vector<LoaderEntry> out;
	DIR *d = opendir(dir_.c_str());
	if (!d)
		return out;
	while (struct dirent *de = readdir(d)) {
		std::string text;
		if (std::strncmp(de->d_name, "job", 3) != 0 ||
		    !read_small_file(dir_ + "/" + de->d_name, kMaxLoaderEntry, text))
			continue;
		auto e = parse_loader_entry(text);
		if (e.ok() && e.value().file_name() == de->d_name)
			out.push_back(e.value());
	}
	closedir(d);
	std::sort(out.begin(), out.end(), [](const LoaderEntry &a, const LoaderEntry &b) {
		return a.seq < b.seq;
	});
	return out;
}

void NodeLoaderState::save(const LoaderEntry &e)
{
	std::string why;
	if (!replace_file(dir_ + "/" + e.file_name(), format_loader_entry(e), why))
		throw std::runtime_error(why);
}

NodeShares NodeLoaderState::share(const NodeLoaderConfig &cfg,
				  std::vector<std::string> problems)
{
	std::vector<LoaderEntry> all = load(problems);
	NodeShares got = decide_node_shares(all, cfg);
	for (size_t i = 0; i < all.size(); i++) {
		std::string text = std::to_string(got.shares[i].workers) + "\n", now, why;
		if (read_small_file(all[i].share_file, 64, now) && now == text)
			continue; // unchanged: no churn for the trainer
		got.changed = true;
		if (!replace_file(all[i].share_file, text, why))
			problems.push_back("job " + std::to_string(all[i].job) +
					   ": share not written: " + why);
	}
	got.problems = std::move(problems);
	return got;
}

NodeShares NodeLoaderState::join(LoaderEntry e, const NodeLoaderConfig &cfg)
{
	Lock lock(dir_);
	std::vector<std::string> problems;
	uint64_t seq = 0;
	for (const LoaderEntry &x : load(problems))
		seq = std::max(seq, x.seq);
	e.seq = seq + 1;
	save(e);
	return share(cfg, std::move(problems));
}

NodeShares NodeLoaderState::report(uint32_t job, uint32_t step, const LoaderSample &s,
				   const NodeLoaderConfig &cfg)
{
	Lock lock(dir_);
	std::vector<std::string> problems;
	for (LoaderEntry &x : load(problems)) {
		if (x.job != job || x.step != step)
			continue;
		if (material_change(x.report, s)) {
			x.report = s;
			save(x);
		}
	}
	return share(cfg, std::move(problems));
}

NodeShares NodeLoaderState::leave(uint32_t job, uint32_t step, const NodeLoaderConfig &cfg)
{
	Lock lock(dir_);
	LoaderEntry key;
	key.job = job;
	key.step = step;
	unlink((dir_ + "/" + key.file_name()).c_str());
	return share(cfg, {});
}

NodeShares NodeLoaderState::reshare(const NodeLoaderConfig &cfg)
{
	Lock lock(dir_);
	return share(cfg, {});
}

} // namespace omru
