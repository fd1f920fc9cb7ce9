/*
 * arf_parse.c - who complained: an RFC 5965 feedback report (ARF) that a
 * mailbox provider's feedback loop sends to <list>-owner when a
 * subscriber marks a post as spam.
 *
 * A report is a multipart/report with report-type=feedback-report; its
 * message/feedback-report part carries Feedback-Type (abuse here) and,
 * from most providers, Original-Rcpt-To, the complaining address.  The
 * returned post (message/rfc822, or its header as text/rfc822-headers)
 * proves whose copy it was only by what the list wrote into it
 * (copy_rcpt.c: the copy's one-click link, or its VERP Return-Path);
 * those come first, as they name the subscribed address even where the
 * provider's Original-Rcpt-To names a forwarding target.  A field the
 * poster wrote (To, Cc) never names the complainer: a reply "To: carol,
 * Cc: the list" says To: carol in dave's copy too.  Anything else proves
 * nobody.  Pure text work, bounded like the rest of cmd_mime.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "arf_parse.h"
#include "cmd_mime.h"
#include "header.h"

/* arf_parse - the report, and the address it proves */
void
arf_parse(const char *domain, const char *list, const struct unsub_secret *us,
    time_t now, const char *text, size_t len, struct arf_found *af)
{
	char v[1024], type[64], addr[NAME_ADDR_MAX + 1];
	const char *part, *copy;
	enum copy_proof how;
	size_t plen, clen;

	memset(af, 0, sizeof(*af));
	af->proof = "nothing";
	if (header_value(text, len, "Content-Type", v, sizeof(v)) == -1 ||
	    strncasecmp(v, "multipart/report", 16) != 0 ||
	    cmd_mime_param(v, "report-type", type, sizeof(type)) == -1 ||
	    strcasecmp(type, "feedback-report") != 0)
		return;
	af->is_arf = 1;
	if (cmd_mime_find(text, len, "message/feedback-report", &part, &plen) ==
	    -1)
		return;
	if (header_value(part, plen, "Feedback-Type", v, sizeof(v)) == 0) {
		v[strcspn(v, " \t;")] = '\0';
		(void)strlcpy(af->type, v, sizeof(af->type)); /* may cut */
		af->abuse = strcasecmp(v, "abuse") == 0;
	}
	if ((cmd_mime_find(text, len, "message/rfc822", &copy, &clen) == 0 ||
		cmd_mime_find(text, len, "text/rfc822-headers", &copy, &clen) ==
		    0) &&
	    (how = copy_rcpt(domain, list, us, now, copy, clen, af->addr,
		 sizeof(af->addr))) != COPY_NOBODY) {
		af->proof = copy_proof_name(how);
		return;
	}
	if (header_value(part, plen, "Original-Rcpt-To", v, sizeof(v)) == 0 &&
	    header_addr(v, addr, sizeof(addr)) == 0 && name_addr_ok(addr)) {
		(void)strlcpy(af->addr, addr, sizeof(af->addr)); /* fits */
		af->proof = "the report's Original-Rcpt-To";
	}
}
