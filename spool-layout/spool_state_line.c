/*
 * spool_state_line.c - the parts of a state file's recipient line that
 * every reader and writer of state files checks or writes: the status
 * words and the address check (declared in spool_state.h).  Below
 * spool_state.c, spool_state_read.c and spool_state_write.c, so the
 * reader needs nothing of the file that opens it.
 */
#include <string.h>

#include "spool_state.h"

static const char *const spool_state_words[] = {
    "pending",
    "delivered",
    "deferred",
    "bounced",
    "failed",
};

/* spool_state_word - the status word of a recipient */
const char *
spool_state_word(enum spool_rcpt_status s)
{
	return spool_state_words[s];
}

/* spool_state_addr_ok - 1 when an address can be a recipient line:
 * bounded, printable, no spaces or angle brackets, one @ not at an end */
int
spool_state_addr_ok(const char *addr)
{
	const unsigned char *p;
	const char *at;
	size_t len = strlen(addr);

	if (len == 0 || len > SPOOL_ADDR_MAX)
		return 0;
	for (p = (const unsigned char *)addr; *p; p++)
		if (*p <= 0x20 || *p >= 0x7f || *p == '<' || *p == '>')
			return 0;
	if ((at = strrchr(addr, '@')) == NULL || at == addr || at[1] == '\0')
		return 0;
	return 1;
}
