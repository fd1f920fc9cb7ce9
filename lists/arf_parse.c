/*
 * arf_parse.c - who complained: an RFC 5965 feedback report (ARF) that a
 * mailbox provider's feedback loop sends to <list>-owner when a
 * subscriber marks a post as spam.
 *
 * A report is a multipart/report with report-type=feedback-report; its
 * message/feedback-report part carries Feedback-Type (abuse here) and,
 * from most providers, Original-Rcpt-To, the complaining address.  Where
 * that is missing, the returned post itself (message/rfc822, or its
 * header as text/rfc822-headers) still names its recipient: the VERP
 * envelope sender <list>-owner+user=host@<domain> in its Return-Path, or
 * else its To, when that is not the list's own address.  Anything else
 * names nobody.  Pure text work, bounded like the rest of cmd_mime.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "arf_parse.h"
#include "cmd_mime.h"

/* arf_verp - the subscriber of a VERP address <list>-owner+u=h@domain */
static int
arf_verp(const char *domain, const char *list, const char *addr, char *out,
    size_t outlen)
{
	char a[NAME_ADDR_MAX + 1], prefix[NAME_LIST_MAX + 16];
	char *at, *eq;
	size_t k;

	k = (size_t)snprintf(prefix, sizeof(prefix), "%s-owner+", list);
	if (strlcpy(a, addr, sizeof(a)) >= sizeof(a) ||
	    strncasecmp(a, prefix, k) != 0 || (at = strrchr(a, '@')) == NULL ||
	    strcasecmp(at + 1, domain) != 0)
		return -1;
	*at = '\0';
	if ((eq = strrchr(a + k, '=')) == NULL)
		return -1;
	*eq = '@';
	return strlcpy(out, a + k, outlen) < outlen && name_addr_ok(out) ? 0
									 : -1;
}

/* arf_original - the recipient the returned post names */
static void
arf_original(const char *domain, const char *list, const char *p, size_t n,
    struct arf_found *af)
{
	char v[1024], addr[NAME_ADDR_MAX + 1], own[NAME_ADDR_MAX + 1];

	if (cmd_mime_header(p, n, "Return-Path", v, sizeof(v)) == 0 &&
	    cmd_mime_addr(v, addr, sizeof(addr)) == 0 &&
	    arf_verp(domain, list, addr, af->addr, sizeof(af->addr)) == 0)
		return;
	af->addr[0] = '\0';
	snprintf(own, sizeof(own), "%s@%s", list, domain);
	if (cmd_mime_header(p, n, "To", v, sizeof(v)) == 0 &&
	    strchr(v, ',') == NULL &&
	    cmd_mime_addr(v, addr, sizeof(addr)) == 0 &&
	    strcasecmp(addr, own) != 0 && name_addr_ok(addr))
		(void)strlcpy(af->addr, addr, sizeof(af->addr)); /* fits */
}

/* arf_parse - the report, and the address it is about */
void
arf_parse(const char *domain, const char *list, const char *text, size_t len,
    struct arf_found *af)
{
	char v[1024], type[64], addr[NAME_ADDR_MAX + 1];
	const char *part;
	size_t plen;

	memset(af, 0, sizeof(*af));
	if (cmd_mime_header(text, len, "Content-Type", v, sizeof(v)) == -1 ||
	    strncasecmp(v, "multipart/report", 16) != 0 ||
	    cmd_mime_param(v, "report-type", type, sizeof(type)) == -1 ||
	    strcasecmp(type, "feedback-report") != 0)
		return;
	af->is_arf = 1;
	if (cmd_mime_find(text, len, "message/feedback-report", &part, &plen) ==
	    -1)
		return;
	if (cmd_mime_header(part, plen, "Feedback-Type", v, sizeof(v)) == 0) {
		v[strcspn(v, " \t;")] = '\0';
		(void)strlcpy(af->type, v, sizeof(af->type)); /* may cut */
		af->abuse = strcasecmp(v, "abuse") == 0;
	}
	if (cmd_mime_header(part, plen, "Original-Rcpt-To", v, sizeof(v)) ==
		0 &&
	    cmd_mime_addr(v, addr, sizeof(addr)) == 0 && name_addr_ok(addr)) {
		(void)strlcpy(af->addr, addr, sizeof(af->addr)); /* fits */
		return;
	}
	if (cmd_mime_find(text, len, "message/rfc822", &part, &plen) == 0 ||
	    cmd_mime_find(text, len, "text/rfc822-headers", &part, &plen) == 0)
		arf_original(domain, list, part, plen, af);
}
