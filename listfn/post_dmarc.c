/*
 * post_dmarc.c - the runner's side of a list's dmarc_mitigation:
 * munge_if_strict becomes munge or none by the DMARC policy of the
 * poster's domain, looked up through the same resolver settings as MX
 * (dns_server of the smtp transport) and cached for the runner's life
 * (lists/dmarc.c).  A failed look-up munges; it never defers the post.
 *
 * The ARC sets a post arrived with are judged here too (post_arc),
 * their keys looked up the same way, each answer waited for as long as
 * a DMARC one, at most ARC_KEYS_MAX per post; a key that cannot be had
 * fails the chain (cv=fail), it never defers the post.
 */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "lists.h"
#include "smtp.h"
#include "post_dmarc.h"
#include "log.h"
#include "listfn_msg.h"

#define POST_DMARC_WAIT 2 /* seconds for a DMARC TXT answer */

/* post_dmarc_txt - dmarc_txt_fn: the TXT records of name */
static int
post_dmarc_txt(void *arg, const char *name, char *out, size_t outlen,
    unsigned *ttl, char *why, size_t whylen)
{
	const struct listfn_env *env = arg;
	struct mx_resolver r;
	enum mx_status st;

	if (mx_resolver_init(&r, env->dns_server, why, whylen) == -1)
		return -1;
	/* The runner waits for the answer: a server that does not answer
	 * costs it at most POST_DMARC_WAIT seconds, then the post is
	 * munged. */
	r.res.retrans = POST_DMARC_WAIT;
	r.res.retry = 1;
	st = dns_txt(&r, name, out, outlen, ttl);
	mx_resolver_close(&r);
	if (st == MX_TEMPFAIL)
		snprintf(why, whylen, "no answer from DNS");
	return st == MX_OK ? 1 : st == MX_NOTFOUND ? 0 : -1;
}

/* post_dmarc - what the list does to this post: munge_if_strict
 * resolved by the poster's DMARC policy */
enum dmarc_mitigation
post_dmarc(struct listfn_env *env, struct listfn_msg *m,
    const struct listconf *lc, const char *text, size_t len)
{
	char addr[SPOOL_ADDR_MAX + 1], name[256];
	const char *hend = header_end(text, len), *at;
	enum dmarc_policy p;

	if (lc->dmarc_mitigation != DMARC_MIT_MUNGE_IF_STRICT)
		return (enum dmarc_mitigation)lc->dmarc_mitigation;
	if (dmarc_from(text, (size_t)(hend - text), addr, sizeof(addr), name,
		sizeof(name)) == -1 ||
	    (at = strrchr(addr, '@')) == NULL)
		return DMARC_MIT_NONE; /* no author to protect */
	if (env->dmarc == NULL && (env->dmarc = dmarc_open(post_dmarc_txt, env,
				       env->ls->dmarc_cache_ttl_max,
				       env->ls->dmarc_negative_ttl)) == NULL) {
		log_warn("%s: no DMARC cache: munged", m->name);
		return DMARC_MIT_MUNGE;
	}
	p = dmarc_policy(env->dmarc, at + 1, clock_now());
	return p == DMARC_POLICY_NONE ? DMARC_MIT_NONE : DMARC_MIT_MUNGE;
}

/* post_arc - what m's post arrived with, for its ARC set (sealed by
 * text_sign) and for the removal of forged Authentication-Results
 * (post_compose): the MTA's trusted results, the chain judged; -1
 * out of memory */
int
post_arc(
    struct listfn_env *env, struct listfn_msg *m, const char *text, size_t len)
{
	struct arc_verdict *v;

	free(m->arc);
	if ((m->arc = v = calloc(1, sizeof(*v))) == NULL)
		return -1;
	arc_ar_judge(v, env->ls->arc_trusted_authserv_ids, text, len);
	if (!env->ls->arc_seal)
		return 0; /* v->seal 0: the forged results still go */
	arc_chain_judge(v, text, len, post_dmarc_txt, env);
	if (v->cv == ARC_CV_PASS && arc_ar_says_fail(v)) {
		v->cv = ARC_CV_FAIL;
		snprintf(
		    v->why, sizeof(v->why), "the MTA's results say arc=fail");
	}
	if (!v->seal)
		log_notice("%s: not ARC-sealed: a chain of %d sets", m->name,
		    ARC_INSTANCE_MAX);
	else if (v->cv == ARC_CV_FAIL)
		log_notice("%s: ARC chain fails: %s: sealed with cv=fail",
		    m->name, v->why);
	return 0;
}
