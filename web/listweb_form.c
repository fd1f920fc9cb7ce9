/*
 * listweb_form.c - the token a subscribe form carries, so that a form
 * posted from another site (cross-site request forgery) does nothing:
 * "<issued>-<mac>", the mac the one-click HMAC (lists/unsub_token.c)
 * under the site's secret over the list and the pseudo-address " form",
 * which no real address can be (a blank is not in the address grammar),
 * so a form token is never an unsubscribe link's.  It is good for
 * LISTWEB_FORM_LIFETIME seconds and names no address, so the page that
 * carries it is the same for everyone.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "listweb.h"

#define LISTWEB_FORM_ADDR " form"

/* listweb_form_make - a fresh form token for w's list; 0 or -1 */
int
listweb_form_make(const struct listweb *w, char *out, size_t outlen)
{
	char mac[UNSUB_MAC_HEX + 1];
	struct unsub_maker *mk;
	int n, r;

	if ((mk = unsub_maker_new(w->us)) == NULL)
		return -1;
	r = unsub_token_make(
	    mk, w->list, w->domain, LISTWEB_FORM_ADDR, (long long)w->now, mac);
	unsub_maker_free(mk);
	if (r == -1)
		return -1;
	n = snprintf(out, outlen, "%lld-%s", (long long)w->now, mac);
	return n < 0 || (size_t)n >= outlen ? -1 : 0;
}

/* listweb_form_check - token is one this site made for w's list, less
 * than LISTWEB_FORM_LIFETIME seconds ago: 1, else 0 */
int
listweb_form_check(const struct listweb *w, const char *token)
{
	long long issued;
	char *end;

	issued = strtoll(token, &end, 10);
	if (end == token || *end != '-' || issued < 0 ||
	    strlen(end + 1) != UNSUB_MAC_HEX || issued > (long long)w->now + 60)
		return 0;
	return unsub_token_check(w->us, w->list, w->domain, LISTWEB_FORM_ADDR,
		   issued, end + 1, w->now, LISTWEB_FORM_LIFETIME) == UNSUB_OK;
}
