/*
 * fuzz_bounce_parse - libFuzzer target: which addresses a bounce is about.
 *
 * Anyone can mail <list>-owner, and what bounce_parse finds can take a
 * subscriber off the list, so any bytes as that mail: it must return,
 * never crash or overrun, and what it finds must be bounded and clean:
 * at most BOUNCE_ADDRS_MAX addresses, each one a valid recipient line,
 * none twice, each with one of the classes, and none at all in mail
 * that does not look like a bounce.  autoreply_is, which decides whether
 * such mail is a vacation notice, reads the same bytes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lists.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct bounce_found bf;
	size_t i, k;

	bounce_parse("example.org", "mylist", (const char *)data, size, &bf);
	if (autoreply_is((const char *)data, size) &&
	    bounce_report_looks((const char *)data, size))
		abort();
	if (bf.n > BOUNCE_ADDRS_MAX || (!bf.is_bounce && bf.n > 0))
		abort();
	for (i = 0; i < bf.n; i++) {
		if (!name_rcpt_ok(bf.addr[i]) ||
		    (unsigned)bf.class[i] >= BOUNCE_CLASSES)
			abort();
		for (k = 0; k < i; k++)
			if (strcasecmp(bf.addr[i], bf.addr[k]) == 0)
				abort();
	}
	return 0;
}
