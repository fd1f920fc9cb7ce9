/*
 * fuzz_bounce_readers - libFuzzer target: each reader of a report format
 * (lists/bounce_read_*.c, the family tables through bounce_read_prose,
 * bounce_report.c's split of evidence from the returned copy, and the
 * charset conversion) on any bytes, directly, not only behind
 * bounce_parse's checks: each must return, never crash or overrun, and
 * what it finds must be bounded and clean: at most BOUNCE_ADDRS_MAX
 * addresses, each valid, none twice, each with a class, its rule and
 * evidence NUL-terminated printable text.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lists.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* check - what a reader found is bounded and clean */
static void
check(const struct bounce_found *bf)
{
	size_t i, k;

	if (bf->n > BOUNCE_ADDRS_MAX)
		abort();
	for (i = 0; i < bf->n; i++) {
		if (!name_rcpt_ok(bf->addr[i]) ||
		    (unsigned)bf->class[i] >= BOUNCE_CLASSES ||
		    memchr(bf->why[i], '\0', sizeof(bf->why[i])) == NULL ||
		    memchr(bf->evidence[i], '\0', sizeof(bf->evidence[i])) ==
			NULL)
			abort();
		for (k = 0; bf->evidence[i][k] != '\0'; k++)
			if (!isprint((unsigned char)bf->evidence[i][k]))
				abort();
		for (k = 0; k < i; k++)
			if (strcasecmp(bf->addr[i], bf->addr[k]) == 0)
				abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct bounce_found bf, late;
	const char *msg = (const char *)data;
	struct bounce_report r;
	char *copy;
	size_t n;

	/* the readers of text want it NUL-terminated, as the report is */
	if ((copy = malloc(size + 1)) == NULL)
		return 0;
	memcpy(copy, data, size);
	copy[size] = '\0';
	memset(&bf, 0, sizeof(bf));
	memset(&late, 0, sizeof(late));
	(void)bounce_read_dsn(copy, size, &bf, &late);
	check(&bf);
	check(&late);
	memset(&bf, 0, sizeof(bf));
	(void)bounce_read_json(copy, size, &bf);
	check(&bf);
	memset(&bf, 0, sizeof(bf));
	(void)bounce_read_prose(msg, size, copy, size, &bf);
	check(&bf);
	memset(&bf, 0, sizeof(bf));
	(void)bounce_read_header(msg, size, copy, size, &bf);
	check(&bf);
	if (bounce_report_copy(copy, size) > size)
		abort();
	if (bounce_report_make(msg, size, &r) == 0) {
		if ((r.text != NULL && strlen(r.text) != r.len) ||
		    (r.text == NULL && r.len != 0))
			abort();
		bounce_report_free(&r);
	}
	/* a charset named by the input's first line, on the rest */
	n = strcspn(copy, "\n");
	if (n < size && n < 40) {
		char cs[41], *t;
		size_t tl = size - n - 1;

		memcpy(cs, copy, n);
		cs[n] = '\0';
		if ((t = malloc(tl + 1)) != NULL) {
			memcpy(t, copy + n + 1, tl);
			if (bounce_charset_utf8(cs, &t, &tl) == 0 && t == NULL)
				abort();
			free(t);
		}
	}
	free(copy);
	return 0;
}
