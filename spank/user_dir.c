/*
 * user_dir.c - remote context (slurmstepd, root): a directory under
 * run_dir that only a job's user and root can enter, for the files a job
 * and spank_omru exchange (profile rows, metrics, loader shares).
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "omru_spank.h"

/* lstat: a real directory owned by `uid` (not a link someone planted). */
static bool is_own_dir(const char *path, uid_t uid)
{
	struct stat st;
	return lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == uid;
}

extern int omru_user_dir_make(const char *run, const char *dir, uid_t uid,
			      gid_t gid)
{
	if (mkdir(run, 0755) != 0 && errno != EEXIST) {
		slurm_error("%s: cannot create %s: %s", OMRU_SPANK_NAME, run,
			    strerror(errno));
		return -1;
	}
	if (!is_own_dir(run, 0)) {
		slurm_error("%s: %s is not a directory owned by root",
			    OMRU_SPANK_NAME, run);
		return -1;
	}
	if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
		slurm_error("%s: cannot create %s: %s", OMRU_SPANK_NAME, dir,
			    strerror(errno));
		return -1;
	}
	struct stat st;
	if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode) ||
	    chown(dir, uid, gid) != 0 || chmod(dir, 0700) != 0) {
		slurm_error("%s: cannot give %s to uid %u: %s", OMRU_SPANK_NAME,
			    dir, (unsigned) uid, strerror(errno));
		return -1;
	}
	return 0;
}
