/*
 * spool_name.h - queue file names: <hour><uu>-<pid>-<list>[:<sub>][,<cmd>]
 *
 * hour: A (midnight) to X; uu: AA..ZZ, bumped until the name is unique;
 * pid: the enqueuing process; list: the list name, or GLOBAL for mail to
 * majordomo@domain; sub: an auxiliary list (-x); cmd: a command carried
 * by the address (-c).  A leading dot marks the message's state file.
 */
#ifndef MJQ_SPOOL_NAME_H
#define MJQ_SPOOL_NAME_H

#include <stddef.h>
#include <time.h>
#include <sys/types.h>

#include "names.h"

#define SPOOL_GLOBAL_LIST "GLOBAL"
#define SPOOL_COMMAND_MAX 32
#define SPOOL_NAME_MAX                                                         \
	(4 + 1 + 20 + 1 + 2 * NAME_LIST_MAX + 2 + SPOOL_COMMAND_MAX)

struct spool_name {
	char hour;    /* 'A'..'X' */
	char uniq[3]; /* "AA".."ZZ" */
	long pid;
	char list[NAME_LIST_MAX + 1];
	char sublist[NAME_LIST_MAX + 1];     /* "" when none */
	char command[SPOOL_COMMAND_MAX + 1]; /* "" when none */
};

int spool_name_init(struct spool_name *n, time_t now, pid_t pid,
    const char *list, const char *sublist, const char *command);
int spool_name_next(struct spool_name *n);
int spool_name_format(const struct spool_name *n, char *buf, size_t len);
int spool_name_parse(const char *text, struct spool_name *n);

#endif
