/*
 * user_dir.c - remote context (slurmstepd, root): a directory under
 * run_dir that only a job's user and root can enter, for the files a job
 * and spank_omru exchange (profile rows, metrics, loader shares), and its
 * removal, whole, when the job's step ends.
 *
 * Root works here in directories a user can write to, so every step goes
 * through file descriptors: run_dir is opened O_NOFOLLOW and must be
 * root's and writable by root alone; the job's directory is opened
 * O_NOFOLLOW beneath it and given to the user with fchown/fchmod; removal
 * walks the tree with openat/unlinkat and never follows a link (a link is
 * removed, never its target).
 *
 * A job's directory is a tmpfs of its own (plugstack job_dir_mb=, 16 MiB by
 * default): run_dir sits on /run, which systemd and munge need, and what a
 * job writes there must not fill it.  Where the node does not allow mounts
 * (a container without CAP_SYS_ADMIN) it is a plain directory, said once
 * per step (each slurmstepd logs it on its first try).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "omru_spank.h"

/* Deeper trees than a job needs are left (and logged): no unbounded
 * recursion on what a user built. */
#define REMOVE_DEPTH_MAX 16

/* run_dir, opened: a real directory of root's that no one else can write
 * (else a user could swap the job's directory for a link under root). */
static int open_run_dir(const char *run)
{
	if (mkdir(run, 0755) != 0 && errno != EEXIST) {
		slurm_error("%s: cannot create %s: %s", OMRU_SPANK_NAME, run,
			    strerror(errno));
		return -1;
	}
	int fd = open(run, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0 || st.st_uid != 0 ||
	    (st.st_mode & (S_IWGRP | S_IWOTH))) {
		slurm_error("%s: %s is not a directory of root's that only root "
			    "can write to", OMRU_SPANK_NAME, run);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* Files and directories a job's directory may hold: ample for the few
 * files spank_omru and a trainer exchange, and a bound on tmpfs inodes. */
#define JOB_DIR_INODES 4096

/* Whether the directory `fd` is a mount of its own (not on run_dir's). */
static bool is_mount(int run_fd, int fd)
{
	struct stat rs, ds;
	return fstat(run_fd, &rs) == 0 && fstat(fd, &ds) == 0 && rs.st_dev != ds.st_dev;
}

/* A tmpfs of SIZE_MB over the job's directory `fd` (DIR), owned by the
 * user, mode 0700, no devices or set-uid files; kept when DIR already is
 * one (made by an earlier call for the job). */
static void cap_dir(int run_fd, int fd, const char *dir, uid_t uid, gid_t gid,
		    unsigned size_mb)
{
	static bool said;
	char target[64], opts[128];

	if (is_mount(run_fd, fd))
		return;
	snprintf(target, sizeof(target), "/proc/self/fd/%d", fd);
	snprintf(opts, sizeof(opts), "size=%um,nr_inodes=%d,mode=0700,uid=%u,gid=%u",
		 size_mb, JOB_DIR_INODES, (unsigned) uid, (unsigned) gid);
	if (mount("omru-job", target, "tmpfs", MS_NOSUID | MS_NODEV, opts) != 0 &&
	    !said) {
		said = true;
		slurm_info("%s: job directories are not size-capped here (tmpfs "
			   "on %s: %s)", OMRU_SPANK_NAME, dir, strerror(errno));
	}
}

/* DIR's name under RUN ("job12"), or NULL when DIR is not RUN/NAME. */
static const char *name_under(const char *run, const char *dir)
{
	size_t n = strlen(run);
	if (strncmp(dir, run, n) != 0 || dir[n] != '/' || !dir[n + 1] ||
	    strchr(dir + n + 1, '/') || !strcmp(dir + n + 1, "..") ||
	    !strcmp(dir + n + 1, "."))
		return NULL;
	return dir + n + 1;
}

extern int omru_user_dir_make(const char *run, const char *dir, uid_t uid,
			      gid_t gid, unsigned size_mb)
{
	const char *name = name_under(run, dir);
	if (!name) {
		slurm_error("%s: %s is not a directory right under %s",
			    OMRU_SPANK_NAME, dir, run);
		return -1;
	}
	int run_fd = open_run_dir(run);
	if (run_fd < 0)
		return -1;
	int rc = -1, fd = -1;
	struct stat st;
	if (mkdirat(run_fd, name, 0700) != 0 && errno != EEXIST)
		slurm_error("%s: cannot create %s: %s", OMRU_SPANK_NAME, dir,
			    strerror(errno));
	else if ((fd = openat(run_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
						    O_CLOEXEC)) < 0 ||
		 fstat(fd, &st) != 0 || (st.st_uid != 0 && st.st_uid != uid))
		slurm_error("%s: %s is not a directory of root's or uid %u",
			    OMRU_SPANK_NAME, dir, (unsigned) uid);
	else if (fchown(fd, uid, gid) != 0 || fchmod(fd, 0700) != 0)
		slurm_error("%s: cannot give %s to uid %u: %s", OMRU_SPANK_NAME,
			    dir, (unsigned) uid, strerror(errno));
	else {
		cap_dir(run_fd, fd, dir, uid, gid, size_mb);
		rc = 0;
	}
	if (fd >= 0)
		close(fd);
	close(run_fd);
	return rc;
}

/* Everything in the directory `fd` (closed here), never following a link.
 * RET 0, or -1 when something stayed. */
static int empty_dir(int fd, int depth)
{
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -1;
	}
	int rc = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (unlinkat(dirfd(d), e->d_name, 0) == 0)
			continue; /* a file, a link, a socket: gone */
		if (errno != EISDIR && errno != EPERM) {
			rc = -1;
			continue;
		}
		int sub = openat(dirfd(d), e->d_name,
				 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0 || depth >= REMOVE_DEPTH_MAX) {
			if (sub >= 0)
				close(sub);
			rc = -1;
			continue;
		}
		if (empty_dir(sub, depth + 1) != 0 ||
		    unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR) != 0)
			rc = -1;
	}
	closedir(d);
	return rc;
}

extern int omru_user_dir_remove(const char *run, const char *dir)
{
	const char *name = name_under(run, dir);
	int run_fd = name ? open_run_dir(run) : -1;
	if (run_fd < 0)
		return -1;
	int rc = 0;
	int fd = openat(run_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0 && is_mount(run_fd, fd)) {
		/* The job's tmpfs: detached (its pages go with the last file
		 * a process still holds open), then the directory under it.
		 * DIR cannot be swapped: only root writes to run_dir. */
		close(fd);
		if (umount2(dir, MNT_DETACH | UMOUNT_NOFOLLOW) != 0)
			slurm_error("%s: cannot unmount %s: %s", OMRU_SPANK_NAME,
				    dir, strerror(errno));
		fd = openat(run_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd < 0) {
		/* Gone already, or a link a user put there: remove the link. */
		if (errno != ENOENT && unlinkat(run_fd, name, 0) != 0)
			rc = -1;
	} else if (empty_dir(fd, 0) != 0 || unlinkat(run_fd, name, AT_REMOVEDIR) != 0) {
		rc = -1;
	}
	if (rc != 0)
		slurm_error("%s: %s left behind: %s", OMRU_SPANK_NAME, dir,
			    strerror(errno));
	close(run_fd);
	return rc;
}

/* Whether NAME is job JOB's directory ("job12") or one of its steps'
 * ("job12.step3"). */
static bool of_job(const char *name, uint32_t job)
{
	char own[32];
	int n = snprintf(own, sizeof(own), "job%" PRIu32, job);
	return strncmp(name, own, (size_t) n) == 0 &&
	       (!name[n] || !strncmp(name + n, ".step", 5));
}

extern int omru_user_dirs_remove_job(const char *run, uint32_t job)
{
	int run_fd = open_run_dir(run);
	if (run_fd < 0)
		return -1;
	DIR *d = fdopendir(run_fd);
	if (!d) {
		close(run_fd);
		return -1;
	}
	int rc = 0;
	char names[64][48];
	int count = 0;
	struct dirent *e;
	/* Names first: removing while reading may skip entries. */
	while ((e = readdir(d)) && count < 64)
		if (of_job(e->d_name, job) && strlen(e->d_name) < sizeof(names[0]))
			snprintf(names[count++], sizeof(names[0]), "%s", e->d_name);
	closedir(d);
	for (int i = 0; i < count; i++) {
		char dir[OMRU_RUN_DIR_MAX + 64];
		int n = snprintf(dir, sizeof(dir), "%s/%s", run, names[i]);
		if (n < 0 || (size_t) n >= sizeof(dir) ||
		    omru_user_dir_remove(run, dir) != 0)
			rc = -1;
	}
	return rc;
}
