/*
 * spool_tree.c - create or check the top of the spool tree.
 *
 * The spool root and its fixed subdirectories are made with mode 0750
 * (the spool is not world-readable); an existing directory that is open
 * to the world is tightened, since messages are private mail.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "spool_commit.h"
#include "spool_path.h"
#include "spool_tree.h"

/* spool_tree_dir - one directory: create, or tighten its mode */
static int
spool_tree_dir(const char *path, char *what, size_t whatlen)
{
	struct stat st;

	(void)strlcpy(what, path, whatlen);
	if (mkdir(path, SPOOL_DIR_MODE) == 0)
		return 0;
	if (errno != EEXIST)
		return -1;
	if (stat(path, &st) == -1)
		return -1;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	if ((st.st_mode & 0007) != 0 && chmod(path, st.st_mode & 07770) == -1)
		return -1;
	return 0;
}

/* spool_tree_create - the spool root, QUEUE, tmp, HOLD, BAD and state */
int
spool_tree_create(const char *spool, char *what, size_t whatlen)
{
	char path[PATH_MAX];
	size_t i;

	if (spool_tree_dir(spool, what, whatlen) == -1)
		return -1;
	for (i = 0; spool_tops[i] != NULL; i++) {
		if (spool_path(path, sizeof(path), spool, spool_tops[i]) ==
			-1 ||
		    spool_tree_dir(path, what, whatlen) == -1)
			return -1;
	}
	return spool_fsync_dir(spool);
}
