/*
 * queueserv_sweep.c - remove tmp/ files left by an mj_enqueue that died.
 *
 * mj_enqueue writes into tmp/ and links the file into QUEUE/ before it
 * removes the tmp name; a file in tmp/ older than tmp_max_age can only
 * belong to an enqueue that crashed (or was killed) before it committed,
 * so its message was never accepted and the file is garbage.  Each
 * removal is logged.  tmp/ holds at most a few files in flight, so the
 * sweep runs in the poll loop.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "queueserv.h"
#include "spool_path.h"

/* queueserv_sweep - one pass over tmp/; the number of files removed */
int
queueserv_sweep(const struct qs *qs)
{
	char dir[PATH_MAX];
	time_t limit = time(NULL) - (time_t)qs->s.queueserv_tmp_max_age;
	struct dirent *de;
	struct stat st;
	DIR *d;
	int n = 0;

	if (spool_path(dir, sizeof(dir), qs->s.spool_dir, SPOOL_TMP) == -1 ||
	    (d = opendir(dir)) == NULL) {
		log_warn("sweep: cannot read %s", dir);
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) ==
			-1 ||
		    !S_ISREG(st.st_mode) || st.st_mtime >= limit)
			continue;
		if (unlinkat(dirfd(d), de->d_name, 0) == -1) {
			log_warn("sweep: cannot remove tmp/%s", de->d_name);
			continue;
		}
		log_notice("sweep: removed tmp/%s, left %llds ago by a "
			   "crashed enqueue",
		    de->d_name, (long long)(time(NULL) - st.st_mtime));
		n++;
	}
	closedir(d);
	return n;
}
