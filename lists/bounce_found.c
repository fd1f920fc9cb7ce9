/*
 * bounce_found.c - the store of a report's failed addresses: each kept
 * once, as a subscriber would be written (no angle brackets, a valid
 * address), with its class, the rule that decided it and the text that
 * was judged, for the log and for mj_queuerun --classify.
 */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "bounce_found.h"

/* found_evidence - text as one short line into out */
static void
found_evidence(char *out, size_t outlen, const char *text, size_t len)
{
	size_t i, k = 0;

	for (i = 0; i < len && k + 1 < outlen; i++) {
		if (!isspace((unsigned char)text[i]) &&
		    isprint((unsigned char)text[i]))
			out[k++] = text[i];
		else if (isspace((unsigned char)text[i]) && k > 0 &&
			 out[k - 1] != ' ')
			out[k++] = ' ';
	}
	while (k > 0 && out[k - 1] == ' ')
		k--;
	out[k] = '\0';
}

/* bounce_found_judge - a class for address i from more evidence */
void
bounce_found_judge(struct bounce_found *bf, int i, const char *status,
    const char *diag, size_t dlen)
{
	char why[BOUNCE_WHY_MAX];
	enum bounce_class c;

	if (i < 0 || (size_t)i >= bf->n)
		return;
	if (diag == NULL)
		diag = "", dlen = 0;
	c = bounce_class_judge(diag, dlen, status, why, sizeof(why));
	if (bf->why[i][0] != '\0' &&
	    (c < bf->class[i] ||
		(c == BOUNCE_UNKNOWN && bf->class[i] == BOUNCE_UNKNOWN)))
		return;
	bf->class[i] = c;
	(void)strlcpy(bf->why[i], why, sizeof(bf->why[i])); /* cut: a note */
	if (status != NULL && status[0] != '\0' && dlen == 0)
		found_evidence(bf->evidence[i], sizeof(bf->evidence[i]), status,
		    strlen(status));
	else
		found_evidence(
		    bf->evidence[i], sizeof(bf->evidence[i]), diag, dlen);
}

/* bounce_found_add - remember a failed address once, judged */
int
bounce_found_add(struct bounce_found *bf, const char *reader, const char *addr,
    size_t alen, const char *status, const char *diag, size_t dlen)
{
	char a[NAME_ADDR_MAX + 1];
	size_t i;

	/* <addr>, "addr": (GMX), addr. (prose): the address alone; a
	 * quoted local part stays quoted, and is no subscriber's */
	while (alen > 0 && (isspace((unsigned char)*addr) || *addr == '<')) {
		addr++;
		alen--;
	}
	while (alen > 0 && (isspace((unsigned char)addr[alen - 1]) ||
			       strchr(">.,;:", addr[alen - 1]) != NULL))
		alen--;
	if (alen >= 2 && addr[0] == '"' && addr[alen - 1] == '"' &&
	    memchr(addr + 1, '"', alen - 2) == NULL) {
		addr++;
		alen -= 2;
	}
	if (alen == 0 || alen > NAME_ADDR_MAX)
		return -1;
	memcpy(a, addr, alen);
	a[alen] = '\0';
	if (!name_rcpt_ok(a)) /* any recipient an MTA took; only the
				 grammar's can be a subscriber (bounce.c) */
		return -1;
	for (i = 0; i < bf->n; i++)
		if (strcasecmp(bf->addr[i], a) == 0)
			break;
	if (i == bf->n) {
		if (bf->n >= BOUNCE_ADDRS_MAX) {
			bf->more++;
			return -1;
		}
		(void)strlcpy(bf->addr[i], a, sizeof(bf->addr[0])); /* fits */
		bf->class[i] = BOUNCE_UNKNOWN;
		bf->reader[i] = reader;
		bf->why[i][0] = bf->evidence[i][0] = '\0';
		bf->n++;
	}
	if ((diag != NULL && dlen > 0) || (status != NULL && status[0] != '\0'))
		bounce_found_judge(bf, (int)i, status, diag, dlen);
	return (int)i;
}
