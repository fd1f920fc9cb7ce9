/*
 * fuzz_arf_parse - libFuzzer target: who an ARF complaint is about.
 *
 * Anyone can mail <list>-owner a feedback report, and what arf_parse
 * finds can take a subscriber off the list, so any bytes as that mail:
 * it must return, never crash or overrun; the address it finds is empty
 * or a valid recipient, and nothing is found in mail that is no report.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lists.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct unsub_secret us = {.n = 1}; /* a key of zeros */
	static struct arf_found af;

	arf_parse("example.org", "mylist", &us, 1700000000, (const char *)data,
	    size, &af);
	if (af.addr[0] != '\0' && (!af.is_arf || !name_addr_ok(af.addr)))
		abort();
	if (af.abuse && !af.is_arf)
		abort();
	if (memchr(af.type, '\0', sizeof(af.type)) == NULL)
		abort();
	return 0;
}
