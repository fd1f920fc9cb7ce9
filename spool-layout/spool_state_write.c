/*
 * spool_state_write.c - new state files.
 *
 * A state file is written once, whole, by the commit protocol (tmp,
 * fsync, link, fsync directory), so a reader never sees half a recipient
 * list.  The writer streams: recipients go to the tmp file as they come
 * (a list of any size, in one buffer's worth of memory), and the count on
 * the "recipients" line, written first as blanks of SPOOL_COUNT_WIDTH,
 * is filled in with pwrite before the fsync.  spool_state_format gives
 * the same text in memory, for generated mail that is committed with its
 * message (spool_move_generate).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io.h"
#include "spool_state.h"
#include "spool_walk.h"

/* spool_state_print_header - every line up to and including
 * "recipients", the count right-aligned (blank when count is -1);
 * returns the count field's offset in the text */
static long
spool_state_print_header(
    FILE *fp, const struct spool_state_init *init, long long count)
{
	long off;

	fprintf(fp,
	    "%s\nmessage %lld %016llx\nkind %s\nsender <%s>\nfrom <%s>\n"
	    "arrival %lld\nverp %d\n"
	    "tries %6d\ncrashes %6d\ncrash_settled %*d\nactive %*d\n"
	    "error %-*s\nrecipients ",
	    SPOOL_STATE_MAGIC, init->msgid.size,
	    (unsigned long long)init->msgid.hash, init->kind, init->sender,
	    init->from, init->arrival, init->verp ? 1 : 0, 0, 0,
	    SPOOL_COUNT_WIDTH, 0, SPOOL_ACTIVE_WIDTH, 0, SPOOL_STATE_ERROR_MAX,
	    "");
	off = ftell(fp);
	if (count < 0)
		fprintf(fp, "%*s\n", SPOOL_COUNT_WIDTH, "");
	else
		fprintf(fp, "%*lld\n", SPOOL_COUNT_WIDTH, count);
	return off;
}

/* spool_state_rcpt_line - a new recipient's line into buf (room for
 * SPOOL_STATE_LINE_MAX); its length */
#define SPOOL_STATE_LINE_MAX (SPOOL_STATUS_WIDTH + SPOOL_ADDR_MAX + 3)
static size_t
spool_state_rcpt_line(char *buf, const char *addr)
{
	return (size_t)snprintf(buf, SPOOL_STATE_LINE_MAX, "%-*s %s\n",
	    SPOOL_STATUS_WIDTH, spool_state_word(SPOOL_RCPT_PENDING), addr);
}

/* spool_state_format - the whole text of a new state file (malloc'd) */
int
spool_state_format(const struct spool_state_init *init, char *const *rcpts,
    size_t n, char **text, size_t *len)
{
	char *buf = NULL, line[SPOOL_STATE_LINE_MAX];
	size_t size = 0, i;
	FILE *fp;

	if ((fp = open_memstream(&buf, &size)) == NULL)
		return -1;
	spool_state_print_header(fp, init, (long long)n);
	for (i = 0; i < n; i++) {
		spool_state_rcpt_line(line, rcpts[i]);
		fputs(line, fp);
	}
	if (ferror(fp)) {
		fclose(fp);
		free(buf);
		errno = ENOMEM;
		return -1;
	}
	if (fclose(fp) == EOF) {
		free(buf);
		return -1;
	}
	*text = buf;
	*len = size;
	return 0;
}

/* spool_state_write_flush - write out the buffer */
static int
spool_state_write_flush(struct spool_state_writer *w)
{
	if (w->len > 0 && io_write_all(w->tmp.fd, w->buf, w->len) == -1)
		return -1;
	w->len = 0;
	return 0;
}

/* spool_state_write_open - a new state file in tmp/, its header written */
int
spool_state_write_open(struct spool_state_writer *w, const char *spool,
    const struct spool_state_init *init)
{
	char *text = NULL;
	size_t size = 0;
	FILE *fp;
	long off;

	w->n = w->len = 0;
	if ((fp = open_memstream(&text, &size)) == NULL)
		return -1;
	off = spool_state_print_header(fp, init, -1);
	if (fclose(fp) == EOF || off < 0) {
		free(text);
		return -1;
	}
	w->count_off = off;
	if (spool_tmp_open(&w->tmp, spool) == -1) {
		free(text);
		return -1;
	}
	if (io_write_all(w->tmp.fd, text, size) == -1) {
		free(text);
		spool_tmp_discard(&w->tmp);
		return -1;
	}
	free(text);
	return 0;
}

/* spool_state_write_rcpt - one more recipient (a valid address) */
int
spool_state_write_rcpt(struct spool_state_writer *w, const char *addr)
{
	if (!name_rcpt_ok(addr)) {
		errno = EINVAL;
		return -1;
	}
	if (w->len + SPOOL_STATE_LINE_MAX > sizeof(w->buf) &&
	    spool_state_write_flush(w) == -1)
		return -1;
	w->len += spool_state_rcpt_line(w->buf + w->len, addr);
	w->n++;
	return 0;
}

/* spool_state_write_abort - drop a state file never committed */
void
spool_state_write_abort(struct spool_state_writer *w)
{
	spool_tmp_discard(&w->tmp);
}

/* spool_state_write_commit - the count, then the commit protocol: the
 * file becomes the state file of the message at msgpath, opened into st
 * as spool_state_open would */
int
spool_state_write_commit(
    struct spool_state_writer *w, struct spool_state *st, const char *msgpath)
{
	char path[PATH_MAX], count[SPOOL_COUNT_WIDTH + 1], why[128];

	snprintf(count, sizeof(count), "%*zu", SPOOL_COUNT_WIDTH, w->n);
	errno = 0;
	if (spool_state_write_flush(w) == -1 ||
	    pwrite(w->tmp.fd, count, SPOOL_COUNT_WIDTH, w->count_off) !=
		SPOOL_COUNT_WIDTH ||
	    spool_state_path(path, sizeof(path), msgpath) == -1 ||
	    spool_tmp_sync(&w->tmp) == -1 ||
	    spool_tmp_link_as(&w->tmp, path) == -1) {
		if (errno == 0)
			errno = EIO;
		spool_tmp_discard(&w->tmp);
		return -1;
	}
	return spool_state_open(st, msgpath, why, sizeof(why));
}

/* spool_state_create - commit a state file with these recipients */
int
spool_state_create(struct spool_state *st, const char *spool,
    const char *msgpath, const struct spool_state_init *init,
    char *const *rcpts, size_t n)
{
	struct spool_state_writer w;
	size_t i;

	if (spool_state_write_open(&w, spool, init) == -1)
		return -1;
	for (i = 0; i < n; i++)
		if (spool_state_write_rcpt(&w, rcpts[i]) == -1) {
			spool_state_write_abort(&w);
			return -1;
		}
	return spool_state_write_commit(&w, st, msgpath);
}
