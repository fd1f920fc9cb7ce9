/*
 * bounce_read_dsn.c - the per-recipient fields of an RFC 3464 report,
 * read as MTAs write them, not only as the RFC does:
 *   Final-Recipient: rfc822; addr     the RFC (RFC 3464 2.3.2)
 *   Final-Recipient: <addr>           no address type (McAfee, others)
 *   Final-Recipient: RFC822; <addr>   brackets inside
 *   Original-Recipient: ...           when Final-Recipient is missing
 *   X-Actual-Recipient: ...           the same (sendmail)
 * A recipient failed when its Action is failed (any case), or when it
 * has no Action and its Status is 5.x.x; a failed one's Status is
 * final (5.x.x) even where the MTA wrote the class of its last
 * temporary reply; delayed is a warning only;
 * delivered, relayed and expanded are no failures.  Each failure is
 * judged by its Status and Diagnostic-Code (folded lines joined), the
 * most specific first (bounce_class.c).  Blocks are separated by blank
 * lines, or begin again at the next recipient field.
 */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "bounce_read.h"

/* One per-recipient block, as read so far. */
struct dsn_block {
	const char *rcpt, *orig, *diag, *diag_end;
	size_t rlen, olen;
	char status[16];
	int action; /* 0 none, 1 failed, 2 delayed, 3 delivered or other */
};

/* What the reader carries from block to block. */
struct dsn_read {
	struct bounce_found *bf, *late;
	size_t found;
};

/* Field names that name the recipient: the first kept of each block. */
static const struct {
	const char *name;
	int original;
} rcpt_fields[] = {
    {"Final-Recipient:", 0},
    {"X-Actual-Recipient:", 1},
    {"Original-Recipient:", 1},
};

/* dsn_field - the value of field name in line p..nl, or NULL */
static const char *
dsn_field(const char *p, const char *nl, const char *name)
{
	size_t k = strlen(name);

	if ((size_t)(nl - p) < k || strncasecmp(p, name, k) != 0)
		return NULL;
	for (p += k; p < nl && (*p == ' ' || *p == '\t'); p++)
		;
	return p;
}

/* dsn_addr - the address of a recipient field's value v..nl: after the
 * type and ';' when there is one; *n its length */
static const char *
dsn_addr(const char *v, const char *nl, size_t *n)
{
	const char *semi, *e;

	if ((semi = memchr(v, ';', (size_t)(nl - v))) != NULL)
		v = semi + 1;
	while (v < nl && (isspace((unsigned char)*v) || *v == '<'))
		v++;
	for (e = v; e < nl && !isspace((unsigned char)*e) && *e != '>'; e++)
		;
	*n = (size_t)(e - v);
	return v;
}

/* dsn_flush - a block read: its recipient remembered when it failed */
static void
dsn_flush(struct dsn_block *b, struct dsn_read *rd)
{
	const char *a = b->rcpt != NULL ? b->rcpt : b->orig;
	size_t n = b->rcpt != NULL ? b->rlen : b->olen;
	int failed = b->action == 1 || (b->action == 0 && b->status[0] == '5');

	/* Action: failed is final whatever the Status's class: the MTA
	 * gave up after its last temporary reply ("450 4.1.1 ... User
	 * unknown" for the whole queue lifetime) */
	if (b->action == 1 && b->status[0] == '4')
		b->status[0] = '5';

	if (a != NULL && failed &&
	    bounce_found_add(rd->bf, "RFC 3464", a, n, b->status, b->diag,
		b->diag != NULL ? (size_t)(b->diag_end - b->diag) : 0) != -1)
		rd->found++;
	else if (a != NULL && b->action == 2 && rd->late != NULL)
		(void)bounce_found_add(rd->late, "RFC 3464", a, n,
		    b->status[0] == '4' ? b->status : "4.0.0", b->diag,
		    b->diag != NULL ? (size_t)(b->diag_end - b->diag) : 0);
	memset(b, 0, sizeof(*b));
}

/* dsn_line - one line p..nl of the block b */
static void
dsn_line(
    struct dsn_block *b, struct dsn_read *rd, const char *p, const char *nl)
{
	const char *v, *a;
	size_t i, k;

	for (i = 0; i < sizeof(rcpt_fields) / sizeof(rcpt_fields[0]); i++)
		if ((v = dsn_field(p, nl, rcpt_fields[i].name)) != NULL) {
			if ((rcpt_fields[i].original ? b->orig : b->rcpt) !=
			    NULL)
				dsn_flush(b, rd);
			a = dsn_addr(v, nl, &k);
			if (rcpt_fields[i].original && b->orig == NULL)
				b->orig = a, b->olen = k;
			else if (!rcpt_fields[i].original)
				b->rcpt = a, b->rlen = k;
			return;
		}
	if ((v = dsn_field(p, nl, "Action:")) != NULL) {
		k = (size_t)(nl - v);
		b->action = k >= 4 && strncasecmp(v, "fail", 4) == 0	? 1
			    : k >= 5 && strncasecmp(v, "delay", 5) == 0 ? 2
									: 3;
	} else if ((v = dsn_field(p, nl, "Status:")) != NULL) {
		k = (size_t)(nl - v) < sizeof(b->status) - 1
			? (size_t)(nl - v)
			: sizeof(b->status) - 1;
		memcpy(b->status, v, k);
		b->status[k] = '\0';
		b->status[strcspn(b->status, " \t\r(")] = '\0';
	} else if ((v = dsn_field(p, nl, "Diagnostic-Code:")) != NULL)
		b->diag = v, b->diag_end = nl;
}

/* bounce_read_dsn - the failed recipients of a delivery-status text */
size_t
bounce_read_dsn(const char *p, size_t len, struct bounce_found *bf,
    struct bounce_found *late)
{
	const char *end = p + len, *nl;
	struct dsn_block b;
	struct dsn_read rd;
	int in_diag = 0;

	memset(&b, 0, sizeof(b));
	memset(&rd, 0, sizeof(rd));
	rd.bf = bf, rd.late = late;
	for (; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		if (in_diag && p < nl && (*p == ' ' || *p == '\t')) {
			b.diag_end = nl; /* a folded Diagnostic-Code */
			continue;
		}
		if (p == nl) {
			if (b.rcpt != NULL || b.orig != NULL)
				dsn_flush(&b, &rd);
			in_diag = 0;
			continue;
		}
		dsn_line(&b, &rd, p, nl);
		in_diag = b.diag != NULL && b.diag_end == nl;
	}
	if (b.rcpt != NULL || b.orig != NULL)
		dsn_flush(&b, &rd);
	return rd.found;
}
