/*
 * dsn.c - the bounce: one RFC 3464 multipart/report per message and
 * pass, to the message's envelope sender, from the null sender.
 *
 * It is generated mail: committed into QUEUE/ with its own state file
 * (kind dsn, sender <>, one recipient) by spool_move_generate before the
 * causing message records its recipients as bounced, so a crash between
 * the two sends at worst a second bounce, never none.  It lives under the
 * causing message's domain and tiers, in owner/, named for the causing
 * list; its state file is what marks it as already expanded.
 *
 * The failed recipients are read back from the pass's fail log, and one
 * report names at most FAIL_BATCH_MAX of them (each in both of its parts):
 * more make more reports, each of bounded size, so every failed
 * recipient is named (a list owner's bounce counting needs them all) and
 * no report needs more memory than FAIL_BATCH_MAX recipients.
 *
 * A list's own post gets no report: its failures are judged and counted
 * against the subscribers where the runner heard them (bounce_record.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bounce_record.h"
#include "dsn.h"
#include "lists.h"
#include "generate.h"
#include "log.h"
#include "listfn_msg.h"

#define DSN_HEADERS_MAX 65536

/* dsn_date - an RFC 5322 date */
static void
dsn_date(time_t t, char *buf, size_t len)
{
	struct tm tm;

	if (localtime_r(&t, &tm) == NULL ||
	    strftime(buf, len, "%a, %d %b %Y %H:%M:%S %z", &tm) == 0)
		(void)strlcpy(buf, "Thu, 01 Jan 1970 00:00:00 +0000", len);
}

/* dsn_headers - the header section of the message as it was delivered */
static void
dsn_headers(FILE *fp, const struct listfn_msg *m)
{
	char *buf;
	ssize_t n;
	const char *end;
	size_t want = m->datasize < DSN_HEADERS_MAX ? (size_t)m->datasize
						    : DSN_HEADERS_MAX;

	if ((buf = malloc(want + 1)) == NULL)
		return;
	if ((n = pread(m->datafd, buf, want, 0)) > 0) {
		end = header_end(buf, (size_t)n);
		fwrite(buf, 1, (size_t)(end - buf), fp);
	}
	free(buf);
}

/* dsn_human - the text part's lines, one per failed recipient */
static void
dsn_human(FILE *fp, const struct fail_batch *b)
{
	size_t i;

	for (i = 0; i < b->n; i++)
		fprintf(fp, "<%s>: %s\n", b->rec[i].addr, b->rec[i].diag);
}

/* dsn_report - the delivery-status part's per-recipient blocks */
static void
dsn_report(FILE *fp, const struct fail_batch *b)
{
	size_t i;

	for (i = 0; i < b->n; i++)
		fprintf(fp,
		    "\nFinal-Recipient: rfc822; %s\n"
		    "Action: failed\n"
		    "Status: %s\n"
		    "Diagnostic-Code: %s\n",
		    b->rec[i].addr, b->rec[i].dsn, b->rec[i].diag);
}

/* dsn_text - the whole report */
static int
dsn_text(struct listfn_msg *m, const char *host, const struct dsn_part *part,
    char **text, size_t *len)
{
	char date[64], arrival[64], boundary[320];
	FILE *fp;
	time_t now = time(NULL);

	if ((fp = open_memstream(text, len)) == NULL)
		return -1;
	dsn_date(now, date, sizeof(date));
	dsn_date((time_t)m->st.arrival, arrival, sizeof(arrival));
	snprintf(boundary, sizeof(boundary), "%lld.%08x/%s", (long long)now,
	    arc4random(), host);
	fprintf(fp,
	    "From: Mail Delivery System <MAILER-DAEMON@%s>\n"
	    "To: <%s>\n"
	    "Subject: Undelivered Mail Returned to Sender\n"
	    "Date: %s\n"
	    "Message-Id: <%lld.%08x.%s@%s>\n"
	    "Auto-Submitted: auto-replied\n"
	    "MIME-Version: 1.0\n"
	    "Content-Type: multipart/report; report-type=delivery-status;\n"
	    "\tboundary=\"%s\"\n"
	    "\n"
	    "This is a MIME-encapsulated message.\n"
	    "\n"
	    "--%s\n"
	    "Content-Description: Notification\n"
	    "Content-Type: text/plain; charset=us-ascii\n"
	    "\n"
	    "This is the mail system at host %s.\n"
	    "\n"
	    "I'm sorry to have to inform you that your message could not\n"
	    "be delivered to one or more recipients%s.\n"
	    "\n",
	    m->domain, m->st.sender, date, (long long)now, arc4random(),
	    m->name, host, boundary, boundary, host,
	    part->expired ? " before its time in the queue ran out" : "");
	if (part->parts > 1)
		fprintf(fp,
		    "(This is report %zu of %zu: each names at most %d of "
		    "the %zu recipients.)\n\n",
		    part->part, part->parts, FAIL_BATCH_MAX, part->total);
	dsn_human(fp, part->batch);
	fprintf(fp,
	    "\n--%s\n"
	    "Content-Description: Delivery report\n"
	    "Content-Type: message/delivery-status\n"
	    "\n"
	    "Reporting-MTA: dns; %s\n"
	    "X-Mjq-Queue-ID: %s\n"
	    "Arrival-Date: %s\n",
	    boundary, host, m->name, arrival);
	dsn_report(fp, part->batch);
	fprintf(fp,
	    "\n--%s\n"
	    "Content-Description: Undelivered Message Headers\n"
	    "Content-Type: text/rfc822-headers\n"
	    "\n",
	    boundary);
	dsn_headers(fp, m);
	fprintf(fp, "\n--%s--\n", boundary);
	return fclose(fp) == EOF ? -1 : 0;
}

/* dsn_create - commit one report: part of m's failed recipients */
int
dsn_create(
    struct listfn_env *env, struct listfn_msg *m, const struct dsn_part *part)
{
	char host[256], final[PATH_MAX], *text = NULL;
	size_t tlen;
	int r = -1;

	/* A list's own post: judged here, no report to its owner address */
	if ((r = bounce_record(env, m, part->batch)) != 1)
		return r;
	r = -1;
	if (gethostname(host, sizeof(host)) == -1)
		(void)strlcpy(host, "localhost", sizeof(host));
	host[sizeof(host) - 1] = '\0';
	if (dsn_text(m, host, part, &text, &tlen) == -1 ||
	    generate_commit(env, m, "dsn", m->st.sender, text, tlen, final,
		sizeof(final)) == -1)
		goto done;
	log_info("%s: sender non-delivery notification: %s (%zu "
		 "recipient(s) to <%s>)",
	    m->name, strrchr(final, '/') + 1, part->batch->n, m->st.sender);
	r = 0;
done:
	free(text);
	return r;
}
