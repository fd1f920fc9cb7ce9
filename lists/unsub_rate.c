/*
 * unsub_rate.c - the request bounds of the web programs, kept in the
 * spool's state/unsubscribe (spool_unsub_rate.c).
 */
#include "log.h"
#include "spool_unsub_rate.h"
#include "unsub_rate.h"

/* unsub_rate - count a request for key against the two bounds */
int
unsub_rate(const struct settings *s, const struct lists_settings *ls,
    const char *key, time_t now)
{
	struct spool_unsub_bound one = {ls->unsubscribe_address_per_hour, 3600},
				 all = {ls->unsubscribe_per_minute, 60};

	switch (spool_unsub_rate_take(s->spool_dir, key, &one, &all, now)) {
	case SPOOL_UNSUB_OK:
		return 0;
	case SPOOL_UNSUB_ADDR_FULL:
		return 429;
	case SPOOL_UNSUB_ALL_FULL:
		return 503;
	case SPOOL_UNSUB_ERROR:
		break;
	}
	log_warn("cannot count the request in %s/%s", s->spool_dir,
	    SPOOL_UNSUB_RATE_FILE);
	return -1;
}
