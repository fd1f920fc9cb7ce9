/*
 * spool_walk.h - visit every message under QUEUE/, HOLD/ or BAD/.
 *
 * The walk goes domain-priority tiers from high to low, then list-priority
 * tiers high to low; inside one list-priority tier of one domain the
 * caller sees the messages of every function.  Dot files (state, .why)
 * and names that are not queue names are not messages; the latter are
 * reported to the callback as strays so a check pass can quarantine them.
 * Directories that cannot be read are skipped; spool_walk_flags can
 * report them (and every directory) to the callback, as strays too.
 */
#ifndef MJQ_SPOOL_WALK_H
#define MJQ_SPOOL_WALK_H

#include <limits.h>
#include <sys/stat.h>

#include "spool_name.h"
#include "spool_path.h"

struct spool_entry {
	const char *top; /* QUEUE, HOLD or BAD */
	int domain_prio;
	const char *domain;
	int list_prio;
	enum spool_function function;
	const char *file;    /* the base name */
	char path[PATH_MAX]; /* full path of the message */
	struct spool_name name;
	struct stat st;
	int stray; /* not a queue file name (name is not filled in) */
	int dot;   /* a dot file (SPOOL_WALK_DOTS only): .name, .name.why ... */
	int dir;   /* a directory of the tree (SPOOL_WALK_DIRS; stray too) */
	int error; /* errno: path could not be read (SPOOL_WALK_ERRORS) */
	int orphan; /* a dot file whose message was not in its directory
		       when it was listed (SPOOL_WALK_ORPHANS; dot too) */
};

/* What spool_walk_flags shows besides the messages and strays. */
#define SPOOL_WALK_DOTS 1   /* dot files, flagged dot */
#define SPOOL_WALK_ERRORS 2 /* what cannot be read, flagged error */
#define SPOOL_WALK_DIRS 4   /* each directory once read, flagged dir */
#define SPOOL_WALK_ORPHANS                                                     \
	8 /* dot files without their message, flagged                          \
	     orphan (and dot) */

/* spool_walk_fn - one message; return nonzero to stop the walk */
typedef int spool_walk_fn(void *arg, const struct spool_entry *e);

int spool_walk(
    const char *spool, const char *top, spool_walk_fn *fn, void *arg);
int spool_walk_flags(const char *spool, const char *top, int flags,
    spool_walk_fn *fn, void *arg);
int spool_walk_tops(const char *spool, int flags, spool_walk_fn *fn, void *arg);

#endif
