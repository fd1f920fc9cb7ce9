/*
 * spool_state_line.c - the parts of a state file's recipient line that
 * every reader and writer of state files checks or writes: the status
 * words (declared in spool_state.h).  Below
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
