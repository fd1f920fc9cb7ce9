/*
 * spool_state.h - a message's delivery state file, .<name> beside it.
 *
 * Text, so that cat shows where a message stands (spool-layout/README,
 * "State file").  Only the header is held in core; the recipients are
 * read from the file in order, so a list of any size is handled in
 * bounded memory.  The header fields that change (tries, crashes, active,
 * error) and every recipient's status are fixed width, so they are
 * updated in place with pwrite and made durable in groups by
 * spool_state_sync: a crash costs at most the updates since the last sync.
 */
#ifndef MJQ_SPOOL_STATE_H
#define MJQ_SPOOL_STATE_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

#include "names.h"
#include "spool_commit.h"

#define SPOOL_STATE_MAGIC "mjq-state 2"	  /* with the message line */
#define SPOOL_STATE_MAGIC_1 "mjq-state 1" /* before it: read, trusted */
#define SPOOL_ADDR_MAX NAME_ADDR_MAX
#define SPOOL_STATE_ERROR_MAX 200
#define SPOOL_STATE_KIND_MAX 15

/* A recipient's status word; the field is SPOOL_STATUS_WIDTH wide.
 * failed: the recipient bounced in this pass and its bounce is not yet
 * committed (bounced follows the commit); a runner that opens the file
 * after a crash turns failed back into deferred (spool_state_recover). */
enum spool_rcpt_status {
	SPOOL_RCPT_PENDING,
	SPOOL_RCPT_DELIVERED,
	SPOOL_RCPT_DEFERRED,
	SPOOL_RCPT_BOUNCED,
	SPOOL_RCPT_FAILED,
	SPOOL_RCPT_NSTATUS
};
#define SPOOL_STATUS_WIDTH 9
#define SPOOL_COUNT_WIDTH 10  /* "recipients N": N right-aligned */
#define SPOOL_ACTIVE_WIDTH 10 /* "active PID": the holder, 0 for none */

/* Which message a state file belongs to: the size and the FNV-1a hash
 * of the message file's text, which never changes once committed.  A
 * new message that takes the name of one whose state file was left
 * behind has other text (its own headers at least), so it is not given
 * the old one's progress (spool-layout/README, "State file"). */
struct spool_msgid {
	long long size;
	uint64_t hash;
};

/* What the creator of a state file says about the message. */
struct spool_state_init {
	struct spool_msgid msgid; /* the message's (spool_msgid_of) */
	const char *sender;	  /* envelope sender for delivery; "" = null */
	const char *from;	  /* the sender as received; "" when unknown */
	const char *kind;	  /* post, forward, dsn, ... */
	long long arrival;	  /* when the message was queued */
	int verp;		  /* per-recipient envelope senders */
};

/* An open state file: the header in core, the recipients on disk.  Only
 * the counts per status are kept; recipients are read in order with a
 * spool_state_reader, a buffer at a time, so memory does not grow with
 * the number of recipients. */
struct spool_state {
	int fd; /* open read-write; -1 when closed */
	char path[PATH_MAX];
	char sender[SPOOL_ADDR_MAX + 1];
	char from[SPOOL_ADDR_MAX + 1];
	char kind[SPOOL_STATE_KIND_MAX + 1];
	int version;		  /* 2; 1: an old file, without msgid */
	struct spool_msgid msgid; /* version 2 */
	long long arrival;
	int verp;
	int tries, crashes;
	int active;	      /* the holder's pid; 0: none (1: an old file's
				 flag, holder unknown) */
	size_t crash_settled; /* recipients settled at the last counted crash */
	char error[SPOOL_STATE_ERROR_MAX + 1];
	off_t off_tries, off_crashes, off_active, off_error;
	off_t off_crash_settled; /* -1 in a file older than the field */
	int active_width;	 /* SPOOL_ACTIVE_WIDTH, or 1 in an old file */
	off_t rcpt_start;	 /* offset of the first recipient line */
	size_t nrcpt;
	size_t count[SPOOL_RCPT_NSTATUS]; /* recipients per status */
	size_t torn;  /* status words torn (read as deferred) at the open */
	int unsynced; /* updates since the last sync */
};

/* One recipient line, as a reader returns it. */
struct spool_rcpt {
	size_t index;		       /* its line among the recipients */
	off_t off;		       /* offset of its status field */
	enum spool_rcpt_status status; /* as read */
	int torn;	  /* the word was torn: status is deferred */
	const char *addr; /* valid until the next read */
};

/* Reads a state file's lines in order through one fixed buffer. */
#define SPOOL_STATE_READ_BUF 16384
struct spool_state_reader {
	int fd;
	off_t next;	 /* file offset of buf[len] */
	size_t pos, len; /* unread text is buf[pos..len) */
	size_t index;	 /* recipients returned so far */
	int eof;
	char buf[SPOOL_STATE_READ_BUF];
};

const char *spool_state_word(enum spool_rcpt_status s);
void spool_msgid_of(struct spool_msgid *id, const void *text, size_t len);
int spool_state_belongs(
    const struct spool_state *st, const struct spool_msgid *id);

/* spool_state_write.c: new state files */
struct spool_state_writer {
	struct spool_tmp tmp;
	off_t count_off; /* where the count goes */
	size_t n;	 /* recipients written */
	size_t len;	 /* bytes in buf not yet written */
	char buf[8192];
};
int spool_state_format(const struct spool_state_init *init, char *const *rcpts,
    size_t n, char **text, size_t *len);
int spool_state_write_open(struct spool_state_writer *w, const char *spool,
    const struct spool_state_init *init);
int spool_state_write_rcpt(struct spool_state_writer *w, const char *addr);
int spool_state_write_commit(
    struct spool_state_writer *w, struct spool_state *st, const char *msgpath);
void spool_state_write_abort(struct spool_state_writer *w);
int spool_state_create(struct spool_state *st, const char *spool,
    const char *msgpath, const struct spool_state_init *init,
    char *const *rcpts, size_t n);

/* spool_state_read.c: reading in order */
void spool_state_read_start(struct spool_state_reader *r, int fd, off_t start);
int spool_state_read_line(
    struct spool_state_reader *r, char **line, off_t *off);
int spool_state_read_rcpt(struct spool_state_reader *r, struct spool_rcpt *rc);
int spool_state_parse_rcpt(char *line, enum spool_rcpt_status *s, char **addr);
#define SPOOL_RCPT_BIT(s) (1u << (s))
int spool_state_each(struct spool_state *st, unsigned mask,
    int (*fn)(void *arg, const struct spool_rcpt *rc), void *arg);

/* spool_state.c: open, update in place, close */
int spool_state_open(
    struct spool_state *st, const char *msgpath, char *why, size_t whylen);
size_t spool_state_todo(const struct spool_state *st);
int spool_state_set_rcpt(struct spool_state *st, off_t off,
    enum spool_rcpt_status from, enum spool_rcpt_status to);
int spool_state_recover(struct spool_state *st);
int spool_state_set_counts(
    struct spool_state *st, int tries, int crashes, int active);
int spool_state_set_crash_settled(struct spool_state *st, size_t settled);
size_t spool_state_settled(const struct spool_state *st);
int spool_state_set_error(struct spool_state *st, const char *error);
int spool_state_sync(struct spool_state *st);
int spool_state_unsynced(const struct spool_state *st);
void spool_state_synced(struct spool_state *st, int n);
void spool_state_close(struct spool_state *st);
int spool_state_set_next(int msgfd, time_t when);
int spool_state_attempt(
    const char *msgpath, pid_t self, int *counted, pid_t *last);
int spool_state_attempt_count(const char *msgpath, int counted, pid_t self);
int spool_state_attempt_done(const char *msgpath);
int spool_state_attempt_failed(const char *msgpath, const char *why);
void spool_state_attempt_error(const char *msgpath, char *why, size_t whylen);

#endif
