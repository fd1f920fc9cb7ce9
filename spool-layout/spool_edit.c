/*
 * spool_edit.c - a small file under $spool/state/ read and rewritten whole
 * under lockedit's lock, state/ made when it is missing (a spool that
 * never needed it yet).
 */
#include <sys/stat.h>
#include <errno.h>
#include <limits.h>

#include "spool_edit.h"
#include "spool_path.h"

/* spool_edit_open - lock and read one file of the spool's state/ */
int
spool_edit_open(struct lockedit *le, const char *spool, const char *file)
{
	char path[PATH_MAX], dir[PATH_MAX];

	if (spool_path(dir, sizeof(dir), spool, SPOOL_STATE) == -1 ||
	    spool_path(path, sizeof(path), spool, file) == -1)
		return -1;
	if (mkdir(dir, SPOOL_DIR_MODE) == -1 && errno != EEXIST)
		return -1;
	return lockedit_open(le, path);
}
