/*
 * spool_state.h - a message's delivery state file, .<name> beside it.
 *
 * Text, so that cat shows where a message stands (spool-layout/README,
 * "State file").  The header fields that change (tries, crashes, active,
 * error) and every recipient's status are fixed width, so they are
 * updated in place with pwrite and made durable in groups by
 * spool_state_sync: a crash costs at most the updates since the last sync.
 */
#ifndef MJQ_SPOOL_STATE_H
#define MJQ_SPOOL_STATE_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#define SPOOL_STATE_MAGIC "mjq-state 1"
#define SPOOL_ADDR_MAX 512
#define SPOOL_STATE_ERROR_MAX 200
#define SPOOL_STATE_KIND_MAX 15

/* A recipient's status word; the field is SPOOL_STATUS_WIDTH wide. */
enum spool_rcpt_status {
	SPOOL_RCPT_PENDING,
	SPOOL_RCPT_DELIVERED,
	SPOOL_RCPT_DEFERRED,
	SPOOL_RCPT_BOUNCED,
};
#define SPOOL_STATUS_WIDTH 9

/* What the creator of a state file says about the message. */
struct spool_state_init {
	const char *sender; /* envelope sender for delivery; "" = null */
	const char *from;   /* the sender as received; "" when unknown */
	const char *kind;   /* post, forward, dsn, ... */
	long long arrival;  /* when the message was queued */
	int verp;	    /* per-recipient envelope senders */
};

struct spool_state {
	int fd; /* open read-write; -1 when closed */
	char path[PATH_MAX];
	char sender[SPOOL_ADDR_MAX + 1];
	char from[SPOOL_ADDR_MAX + 1];
	char kind[SPOOL_STATE_KIND_MAX + 1];
	long long arrival;
	int verp;
	int tries, crashes, active;
	char error[SPOOL_STATE_ERROR_MAX + 1];
	off_t off_tries, off_crashes, off_active, off_error;
	size_t nrcpt;
	char **rcpt;	       /* addresses, pointing into buf */
	unsigned char *status; /* enum spool_rcpt_status */
	off_t *off;	       /* offset of each status field */
	char *buf;	       /* the file's text, NUL-split */
	int unsynced;	       /* updates since the last sync */
};

const char *spool_state_word(enum spool_rcpt_status s);
int spool_state_addr_ok(const char *addr);
int spool_state_format(const struct spool_state_init *init, char *const *rcpts,
    size_t n, char **text, size_t *len);
int spool_state_create(struct spool_state *st, const char *spool,
    const char *msgpath, const struct spool_state_init *init,
    char *const *rcpts, size_t n);
int spool_state_open(
    struct spool_state *st, const char *msgpath, char *why, size_t whylen);
int spool_state_set_rcpt(
    struct spool_state *st, size_t i, enum spool_rcpt_status s);
int spool_state_set_counts(
    struct spool_state *st, int tries, int crashes, int active);
int spool_state_set_error(struct spool_state *st, const char *error);
int spool_state_sync(struct spool_state *st);
void spool_state_close(struct spool_state *st);
int spool_state_set_next(int msgfd, time_t when);
int spool_state_attempt(const char *msgpath);
int spool_state_attempt_done(const char *msgpath);

#endif
