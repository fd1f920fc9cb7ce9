/*
 * subs_bulk.h - many subscribers added, removed or given a mode in one
 * streamed pass over the subscribers file (subs_bulk.c).
 */
#ifndef MJQ_SUBS_BULK_H
#define MJQ_SUBS_BULK_H

#include <stddef.h>

#include "settings.h"
#include "subs_mode.h"

enum subs_bulk_op { SUBS_BULK_ADD, SUBS_BULK_REMOVE, SUBS_BULK_MODE };

/* What became of one address given. */
enum subs_bulk_result {
	SUBS_BULK_DONE,	      /* added, removed, or its mode changed */
	SUBS_BULK_ALREADY,    /* already there, or already that mode */
	SUBS_BULK_NOT_MEMBER, /* (remove, mode) not subscribed */
	SUBS_BULK_REPEATED,   /* (remove, mode) given twice: once is done */
	SUBS_BULK_NRESULTS
};

/* next(arg, addr, size, &line): the next address given (checked by the
 * caller against the address grammar) and its line: 1; 0 at the end;
 * -1 error */
typedef int subs_bulk_next_fn(
    void *arg, char *addr, size_t size, unsigned long *line);
/* told(arg, addr, line, result): what became of it; 0, or -1 to give
 * up (the file stays as it was) */
typedef int subs_bulk_told_fn(
    void *arg, const char *addr, unsigned long line, enum subs_bulk_result r);

struct subs_bulk {
	enum subs_bulk_op op;
	enum subs_mode mode;  /* SUBS_BULK_MODE's */
	int dry_run;	      /* everything but the change itself */
	long long since_keep; /* (remove) subscribers.since's keep, as
				 subs_edit's: the token lifetime + grace */
	subs_bulk_next_fn *next;
	subs_bulk_told_fn *told;
	void *arg;
	size_t count[SUBS_BULK_NRESULTS];
};

int subs_bulk_run(const struct settings *s, const char *domain,
    const char *list, struct subs_bulk *b, char *err, size_t errlen);

#endif
