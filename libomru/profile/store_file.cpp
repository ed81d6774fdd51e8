// store_file.cpp - see store_file.hpp.
#include "profile/store_file.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace omru {
namespace profiler {
namespace {

std::string sys_error(const std::string &what, const std::string &path)
{
	return path + ": cannot " + what + ": " + std::strerror(errno);
}

bool write_all(int fd, const std::string &s)
{
	size_t done = 0;
	while (done < s.size()) {
		ssize_t n = write(fd, s.data() + done, s.size() - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		done += static_cast<size_t>(n);
	}
	return true;
}

std::string dir_of(const std::string &path)
{
	size_t slash = path.rfind('/');
	return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

// root (omru-profile run by an admin) writing into the state directory of
// a slurmctld that runs as SlurmUser: the files stay the directory owner's,
// or slurmctld could no longer read the store it owns.
void keep_owner(int fd, const std::string &path)
{
	struct stat dir;
	if (geteuid() == 0 && stat(dir_of(path).c_str(), &dir) == 0 && dir.st_uid != 0)
		(void) !fchown(fd, dir.st_uid, dir.st_gid);
}

} // namespace

StoreStamp stamp_of(const std::string &path)
{
	struct stat st;
	StoreStamp t;
	if (stat(path.c_str(), &st) != 0)
		return t;
	t.dev = st.st_dev;
	t.ino = st.st_ino;
	t.size = static_cast<uint64_t>(st.st_size);
	t.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
	return t;
}

Parsed<ProfileStore> load_store(const std::string &path, ProfileStore::Limits l)
{
	using R = Parsed<ProfileStore>;
	int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return errno == ENOENT ? R(ProfileStore(l)) : R::fail(sys_error("read", path));
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return R::fail(path + ": not a regular file");
	}
	if (static_cast<size_t>(st.st_size) > kMaxStoreBytes) {
		close(fd);
		return R::fail(path + ": larger than " + std::to_string(kMaxStoreBytes >> 20) + " MiB");
	}
	std::string text(static_cast<size_t>(st.st_size), '\0');
	size_t got = 0;
	while (got < text.size()) {
		ssize_t n = read(fd, &text[got], text.size() - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += static_cast<size_t>(n);
	}
	close(fd);
	text.resize(got);
	return ProfileStore::parse(text, path, l);
}

std::string save_store(const std::string &path, const ProfileStore &s)
{
	std::string tmp = path + ".tmp." + std::to_string(getpid());
	// A new file (O_EXCL): root (omru-profile) must not write or fchown
	// one that someone who can write the directory put there, a hard
	// link to /etc/shadow say.  A stale one of a crashed run goes first.
	int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 && errno == EEXIST && unlink(tmp.c_str()) == 0)
		fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return sys_error("create", tmp);
	keep_owner(fd, path);
	bool ok = write_all(fd, s.serialize()) && fsync(fd) == 0;
	std::string err = ok ? "" : sys_error("write", tmp);
	if (close(fd) != 0 && ok)
		err = sys_error("write", tmp);
	if (err.empty() && rename(tmp.c_str(), path.c_str()) != 0)
		err = sys_error("rename onto", path);
	if (!err.empty()) {
		unlink(tmp.c_str());
		return err;
	}
	int dfd = open(dir_of(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	return "";
}

std::string merge_save(const std::string &path, const std::vector<StoreOp> &ops,
		       ProfileStore::Limits l, ProfileStore *result,
		       std::vector<std::string> *warnings, StoreStamp *stamp)
{
	std::string dir = dir_of(path);
	if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
		return sys_error("create", dir);
	std::string lock_path = path + ".lock";
	int lock = open(lock_path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (lock < 0)
		return sys_error("open", lock_path);
	// Only a lock file of ours gets chowned: one regular file, one link.
	struct stat ls;
	if (fstat(lock, &ls) != 0 || !S_ISREG(ls.st_mode) || ls.st_nlink != 1) {
		close(lock);
		return lock_path + ": not a plain lock file (a link?); refusing to use it";
	}
	keep_owner(lock, path);
	while (flock(lock, LOCK_EX) != 0 && errno == EINTR)
		;
	(void) warnings; // none left: a file that does not load is an error
	auto cur = load_store(path, l);
	if (!cur.ok()) {
		// Never replaced: it holds every user's learned rows and the
		// site's imports.  An admin repairs or removes it.
		close(lock);
		return cur.error() + "; the store is kept as it is and these " +
		       std::to_string(ops.size()) + " change(s) are not saved until it "
		       "loads again (repair it, or move it away to start anew)";
	}
	ProfileStore s = cur.value();
	for (const StoreOp &op : ops)
		s.apply(op);
	std::string err = save_store(path, s);
	if (err.empty() && stamp)
		*stamp = stamp_of(path);
	close(lock); // releases the lock
	if (err.empty() && result)
		*result = s;
	return err;
}

} // namespace profiler
} // namespace omru
