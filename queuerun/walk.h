/*
 * walk.h - find due messages in QUEUE/ and claim them (walk.c).
 *
 * The step loop (queuerun.c) runs a pass: walk_scan (a fresh walk of
 * QUEUE/) or the leftovers of the last one, then walk_next until it
 * returns NULL, expanding each message it gets, then walk_end.
 * walk_release ends a message's claim.
 */
#ifndef MJQ_WALK_H
#define MJQ_WALK_H

#include <stddef.h>

struct queuerun;
struct qr_msg;

/* The walk's part of the runner (struct queuerun): the active set it
 * claims into and releases from, and what the last walk left. */
struct walk_state {
	struct qr_msg *active; /* the active set */
	int nactive;
	int idle;   /* the last walk found nothing due */
	int quick;  /* walks in a row whose claims all ended at once */
	void *left; /* due messages the last walk had no room for */
	size_t nleft, pos;
	double next; /* earliest future mtime seen, or 0 */
};

/* One pass of claims; zeroed, it is a pass over the last walk's
 * leftovers. */
struct walk_pass {
	int fresh;     /* set by walk_scan */
	int full;      /* it stopped at the active limit */
	size_t got;    /* messages claimed */
	int truncated; /* the walk had no room for every due message */
};

/* walk_scan - walk QUEUE/ afresh: due messages, in order, for walk_next */
void walk_scan(struct queuerun *q, double now, struct walk_pass *p);
/* walk_next - claim the next candidate; NULL when full or none is left */
struct qr_msg *walk_next(struct queuerun *q, double now, struct walk_pass *p);
/* walk_end - keep what is left for lack of room, or ask for a new walk */
void walk_end(struct queuerun *q, const struct walk_pass *p);
/* walk_forget - drop what the last walk left */
void walk_forget(struct queuerun *q);
/* walk_release - drop a message from the active set, free it, and let
 * its claim go */
void walk_release(struct queuerun *q, struct qr_msg *m);

#endif
