/*
 * enqueue.h - mj_enqueue's parts: arguments, copy into the spool, poke.
 */
#ifndef MJQ_ENQUEUE_H
#define MJQ_ENQUEUE_H

#include <stddef.h>
#include <sysexits.h>

#include "names.h"
#include "settings.h"
#include "spool_commit.h"
#include "spool_name.h"
#include "spool_path.h"

#define ENQUEUE_EX_STOP 99 /* -S: qmail's "stop processing .qmail" */
#define ENQUEUE_SENDER_MAX 512

struct enqueue_args {
	const char *config; /* -C, NULL: the default file */
	const char *domain; /* -d */
	char list[NAME_LIST_MAX + 1];
	char sublist[NAME_LIST_MAX + 1];
	char command[SPOOL_COMMAND_MAX + 1];
	enum spool_function function;
	int domain_prio; /* -P */
	int list_prio;	 /* -p */
	int have_sender; /* -f or $SENDER */
	char sender[ENQUEUE_SENDER_MAX + 1];
	int stop; /* -S */
};

int enqueue_args_parse(struct enqueue_args *a, int argc, char **argv);
int enqueue_sender_check(const char *sender);

struct enqueue_copy {
	const struct enqueue_args *args;
	long long max_size;
	int have_sender;
	char sender[ENQUEUE_SENDER_MAX + 1];
};

int enqueue_copy(struct enqueue_copy *c, int in, int out);

void enqueue_poke(const struct settings *s, const char *config);

#endif
