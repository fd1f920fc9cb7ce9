/*
 * queuectl_classify.c - mj_queuerun --classify FILE [LIST@DOMAIN]: how
 * the runner reads a stored report (a message file of the spool, a
 * bounce saved from a mailbox): whether it is a bounce, each failed
 * address found, the format that named it, its class, the rule that
 * decided and the text it was judged by.  It is how an operator answers
 * "why was this person disabled?".  LIST@DOMAIN (default: none) lets a
 * VERP address <list>-owner+user=host@domain name the subscriber, as
 * for mail to that list.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "lists.h"
#include "queuectl.h"

#define CLASSIFY_MAX (16 * 1024 * 1024)

/* classify_read - the file's bytes (malloc'd); NULL on failure */
static char *
classify_read(const char *path, size_t *len)
{
	FILE *f;
	char *buf;
	size_t n;

	if ((f = fopen(path, "r")) == NULL)
		return NULL;
	if ((buf = malloc(CLASSIFY_MAX + 1)) == NULL) {
		(void)fclose(f);
		return NULL;
	}
	n = fread(buf, 1, CLASSIFY_MAX, f);
	if (ferror(f)) {
		free(buf);
		(void)fclose(f);
		return NULL;
	}
	(void)fclose(f); /* read only: nothing to lose */
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* classify_print - what bounce_parse found, as an operator reads it */
static void
classify_print(const struct bounce_found *bf, FILE *out)
{
	size_t i;

	if (!bf->is_bounce) {
		fprintf(out, "not a bounce%s%s\n",
		    bf->probe[0] != '\0' ? ": an answer to probe " : "",
		    bf->probe);
		return;
	}
	if (bf->probe[0] != '\0')
		fprintf(out, "the bounce of probe %s\n", bf->probe);
	if (bf->delayed)
		fprintf(out, "a delay warning: nothing counted\n");
	if (bf->n == 0)
		fprintf(out, "no failed address found: forwarded to the "
			     "owners\n");
	for (i = 0; i < bf->n; i++)
		fprintf(out,
		    "%s: %s\n    found by: %s\n    rule: %s\n"
		    "    evidence: %s\n",
		    bf->addr[i], bounce_class_name(bf->class[i]),
		    bf->reader[i] != NULL ? bf->reader[i] : "-",
		    bf->why[i][0] != '\0' ? bf->why[i] : "-",
		    bf->evidence[i][0] != '\0' ? bf->evidence[i] : "-");
	if (bf->more > 0)
		fprintf(
		    out, "and %zu more: forwarded to the owners\n", bf->more);
}

/* queuectl_classify - read FILE as the runner reads a bounce */
int
queuectl_classify(const char *path, const char *list_at, FILE *out)
{
	static struct bounce_found bf;
	char list[NAME_LIST_MAX + 1] = "", domain[NAME_DOMAIN_MAX + 1] = "";
	const char *at;
	size_t len;
	char *text;

	if (list_at != NULL) {
		if ((at = strrchr(list_at, '@')) == NULL ||
		    (size_t)(at - list_at) >= sizeof(list) ||
		    strlen(at + 1) >= sizeof(domain)) {
			fprintf(stderr,
			    "mj_queuerun: --classify: not a "
			    "list@domain: %s\n",
			    list_at);
			return EX_USAGE;
		}
		memcpy(list, list_at, (size_t)(at - list_at));
		list[at - list_at] = '\0';
		(void)strlcpy(domain, at + 1, sizeof(domain)); /* fits */
	}
	if ((text = classify_read(path, &len)) == NULL) {
		fprintf(stderr, "mj_queuerun: cannot read %s: %s\n", path,
		    strerror(errno));
		return EX_NOINPUT;
	}
	bounce_parse(domain, list, text, len, &bf);
	free(text);
	classify_print(&bf, out);
	return fflush(out) == EOF ? EX_IOERR : 0;
}
