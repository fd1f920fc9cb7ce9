/*
 * fail_log.c - the recipients of a message that failed in this pass,
 * with their reasons, kept on disk until the bounce is written.
 *
 * A failed recipient is marked "failed" in the state file at once (it is
 * no longer to do; it becomes "bounced" when its bounce is committed),
 * and its address and reason go to an unlinked file in the spool's tmp/,
 * one line each: offset, address, DSN status and diagnostic, tab
 * separated.  The bounces (dsn.c) read them back FAIL_BATCH_MAX at a
 * time; so a pass in which a million recipients fail holds a thousand of
 * them in core, never all.  If the file
 * cannot be written (a full disk), the recipient is marked deferred
 * instead: it is tried again, and bounces then.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fail_log.h"
#include "log.h"
#include "qr_msg.h"
#include "qr_runner.h"
#include "spool_commit.h"

/* fail_log_open - the unlinked spill file in $spool/tmp */
static FILE *
fail_log_open(struct queuerun *q)
{
	FILE *fp;
	int fd;

	if ((fd = spool_tmp_spill(q->s->spool_dir)) == -1)
		return NULL;
	if ((fp = fdopen(fd, "w+")) == NULL)
		close(fd);
	return fp;
}

/* fail_log_clean - a field with no tabs, newlines or control bytes */
static void
fail_log_clean(FILE *fp, const char *s)
{
	for (; *s; s++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s, fp);
}

/* fail_log_broken - the reasons cannot be kept: said once per pass of
 * the message, with the directory; the rest is counted for the close */
static void
fail_log_broken(struct queuerun *q, struct qr_msg *m)
{
	if (m->fails_lost++ == 0)
		log_warn("%s: cannot keep failure reasons in %s/%s; failed "
			 "recipients are deferred instead",
		    m->lm.name, q->s->spool_dir, SPOOL_TMP);
	if (m->fails != NULL)
		fclose(m->fails);
	m->fails = NULL;
}

/* fail_log_add - the recipient at off failed: record why, mark it */
void
fail_log_add(struct queuerun *q, struct qr_msg *m, off_t off,
    enum spool_rcpt_status from, const char *addr, const char *dsn,
    const char *diag)
{
	if (m->fails_lost == 0 && m->fails == NULL &&
	    (m->fails = fail_log_open(q)) == NULL)
		fail_log_broken(q, m);
	else if (m->fails != NULL) {
		fprintf(m->fails, "%lld\t%s\t", (long long)off, addr);
		fail_log_clean(m->fails, dsn);
		fputc('\t', m->fails);
		fail_log_clean(m->fails, diag);
		fputc('\n', m->fails);
		if (fflush(m->fails) == EOF || ferror(m->fails)) {
			/* What it held is lost too: those go back to
			 * deferred when the pass ends (outcome_finish). */
			fail_log_broken(q, m);
		}
	} else
		m->fails_lost++;
	if (m->fails == NULL) {
		/* No bounce without its reason: tried again instead. */
		if (spool_state_set_rcpt(
			&m->lm.st, off, from, SPOOL_RCPT_DEFERRED) == -1)
			log_warn(
			    "%s: cannot update %s", m->lm.name, m->lm.st.path);
		snprintf(m->last_error, sizeof(m->last_error), "%s %.180s", dsn,
		    diag);
		return;
	}
	if (spool_state_set_rcpt(&m->lm.st, off, from, SPOOL_RCPT_FAILED) == -1)
		log_warn("%s: cannot update %s", m->lm.name, m->lm.st.path);
	m->nfail++;
}

/* fail_log_rewind - read the failed recipients again from the first */
int
fail_log_rewind(struct qr_msg *m)
{
	if (m->fails == NULL)
		return 0;
	return fflush(m->fails) == EOF || fseeko(m->fails, 0, SEEK_SET) == -1
		   ? -1
		   : 0;
}

/* fail_log_batch_free - the batch's copies */
void
fail_log_batch_free(struct fail_batch *b)
{
	size_t i;

	for (i = 0; i < b->n; i++)
		free(b->line[i]);
	b->n = 0;
}

/* fail_log_batch - the next (up to) FAIL_BATCH_MAX failed recipients
 * after fail_log_rewind, copied into b; 0 at the end, -1 when the file
 * cannot be read */
int
fail_log_batch(struct qr_msg *m, struct fail_batch *b)
{
	char *line = NULL, *p, *f[4];
	size_t cap = 0;
	ssize_t len;
	int i;

	b->n = 0;
	if (m->fails == NULL)
		return 0;
	while (b->n < FAIL_BATCH_MAX &&
	       (len = getline(&line, &cap, m->fails)) != -1) {
		if (len > 0 && line[len - 1] == '\n')
			line[len - 1] = '\0';
		p = line;
		for (i = 0; i < 4; i++)
			f[i] = strsep(&p, "\t");
		if (f[3] == NULL)
			continue; /* cannot happen: we wrote it */
		b->rec[b->n].off = (off_t)strtoll(f[0], NULL, 10);
		b->rec[b->n].addr = f[1];
		b->rec[b->n].dsn = f[2];
		b->rec[b->n].diag = f[3];
		b->line[b->n++] = line; /* the record points into it */
		line = NULL;
		cap = 0;
	}
	free(line);
	if (ferror(m->fails)) {
		fail_log_batch_free(b);
		return -1;
	}
	return b->n > 0;
}

/* fail_log_close - the pass is over */
void
fail_log_close(struct qr_msg *m)
{
	if (m->fails_lost > 1)
		log_warnx("%s: %zu failed recipient(s) deferred instead of "
			  "bounced: their reasons could not be kept",
		    m->lm.name, m->fails_lost);
	if (m->fails != NULL)
		fclose(m->fails);
	m->fails = NULL;
	m->nfail = m->fails_lost = 0;
}
