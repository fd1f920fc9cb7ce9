/*
 * spool_commit.h - put a complete file into the spool, durably.
 *
 * The protocol (numbered states in spool-layout/README):
 *   1. spool_tmp_open:  tmp/<unique> created with O_EXCL
 *   2. the caller writes the data
 *   3. spool_tmp_sync:  fsync and close the file
 *   4. spool_tmp_link:  create the directory if needed, link() the tmp
 *      file to its final name (EEXIST, or the name in use under another
 *      top directory: next unique letters), fsync the final directory,
 *      then unlink the tmp name
 * A reader never sees a partial file; after spool_tmp_link returns 0 the
 * message survives a crash or a power loss.
 */
#ifndef MJQ_SPOOL_COMMIT_H
#define MJQ_SPOOL_COMMIT_H

#include <limits.h>
#include <stddef.h>

#include "spool_name.h"

struct spool_tmp {
	int fd;
	const char *spool; /* the spool root, kept alive by the caller */
	char path[PATH_MAX];
};

int spool_tmp_open(struct spool_tmp *t, const char *spool);
int spool_tmp_sync(struct spool_tmp *t);
int spool_tmp_link(struct spool_tmp *t, const char *dir,
    struct spool_name *name, char *final, size_t finallen);
int spool_tmp_link_as(struct spool_tmp *t, const char *final);
int spool_tmp_put(
    struct spool_tmp *t, const char *spool, const char *buf, size_t len);
void spool_tmp_discard(struct spool_tmp *t);

int spool_tmp_spill(const char *spool);

int spool_name_free(const char *spool, const char *final);
int spool_fsync_dir(const char *dir);
int spool_mkdirs(const char *root, const char *dir);

#endif
