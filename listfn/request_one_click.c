/*
 * request_one_click.c - the runner's half of one-click unsubscribe (RFC
 * 8058): mj_unsubscribe checked the link and queued a request carrying
 * X-Mjq-One-Click: <issued> <mac>; here the token is checked again
 * against the From address and the list the request is queued for (mail
 * from outside can carry the header too, but not a token made with the
 * site's secret), and the address leaves the list under the subscribers
 * lock, unless mjq added or removed it after the link was made: a link
 * of an earlier subscription unsubscribes nobody (subs_since.c).  No
 * answer is mailed, nothing is asked (RFC 8058: no further
 * interaction); only a list with a goodbye text sends it, once, to the
 * address it has just removed (request_greet.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lists.h"
#include "listfn_list.h"
#include "listfn_state.h"
#include "log.h"
#include "listfn_msg.h"
#include "request_greet.h"
#include "request_one_click.h"

/* request_one_click - 1 done (state file made), 0 not a one-click
 * request, -1 try again later */
int
request_one_click(
    struct listfn_env *env, struct listfn_msg *m, const char *text, size_t len)
{
	char v[256], from[1024], addr[SPOOL_ADDR_MAX + 1];
	char mac[UNSUB_MAC_HEX + 2], err[512];
	static const char *const verdict[] = {
	    "", "does not verify", "has expired"};
	struct unsub_secret us;
	struct listconf lc;
	enum unsub_verdict vd;
	long long issued;
	int r;

	if (header_value(text, len, "X-Mjq-One-Click", v, sizeof(v)) == -1)
		return 0;
	if (header_value(text, len, "From", from, sizeof(from)) == -1 ||
	    header_addr(from, addr, sizeof(addr)) == -1 ||
	    sscanf(v, "%lld %33s", &issued, mac) != 2)
		vd = UNSUB_FORGED;
	else if (unsub_secret_load(&us, env->ls->unsubscribe_secret_file, err,
		     sizeof(err)) == -1) {
		log_warnx("%s: one-click unsubscribe: %s", m->name, err);
		return -1;
	} else
		vd = unsub_token_check(&us, m->list, m->domain, addr, issued,
		    mac, time(NULL),
		    env->ls->unsubscribe_token_lifetime + UNSUB_QUEUE_GRACE);
	if (vd != UNSUB_OK) {
		log_notice("%s: one-click unsubscribe not done: the token %s",
		    m->name, verdict[vd]);
		return listfn_state_empty(env, m, "request", "") == -1 ? -1 : 1;
	}
	if ((r = subs_edit_if(env->s, env->ls, m->domain, m->list, SUBS_REMOVE,
		 addr, issued)) == -1)
		return -1;
	log_info("%s: one-click unsubscribe: <%s> %s %s@%s", m->name, addr,
	    r == 2   ? "subscribed again after the link was made: stays on"
	    : r == 1 ? "is now off"
		     : "was not on",
	    m->list, m->domain);
	/* A courtesy, sent at most once (a retry finds the address off):
	 * one that cannot be queued is logged, the removal stands. */
	if (r == 1 && (listfn_list_conf(env, m, &lc) != 0 ||
			  request_goodbye(env, m, &lc, addr) == -1))
		log_warnx("%s: no goodbye sent to <%s>", m->name, addr);
	return listfn_state_empty(env, m, "request", "") == -1 ? -1 : 1;
}
