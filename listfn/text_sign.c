/*
 * text_sign.c - the DKIM signatures of a message's delivered text,
 * made once per text (not per recipient) when the text is prepared, with
 * the keys of the message's domain (the list's), whatever the function:
 * posts, owner forwards, replies and confirmations, bounces.  A post
 * whose copies carry header fields of their own (one-click unsubscribe
 * links) is signed per copy instead, by the delivery threads, over the
 * body hash and keys prepared here.
 *
 * A post is also sealed for ARC (lists/arc_seal.c), once per text: its
 * set above the DKIM-Signature fields it signs, or, for one-click
 * copies, in the shared text below each copy's own fields.
 *
 * A domain that signs and whose key is missing or unusable gets its mail
 * deferred, with the reason logged: mail is never sent unsigned by
 * accident.  [dkim] sign = no (or sign = no in the domain's DKIM
 * directory) is the only way to send unsigned.
 */
#include <sys/mman.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lists.h"
#include "text_file.h"
#include "text_sign.h"
#include "log.h"
#include "listfn_msg.h"

/* text_sign_failed - log why m is not signed and keep the reason in
 * its state file, where mj_queuerun -l shows it (error=) */
static void
text_sign_failed(struct listfn_msg *m, const char *why)
{
	char text[SPOOL_STATE_ERROR_MAX + 1];

	log_warnx("%s: not signed: %s: deferred", m->name, why);
	snprintf(text, sizeof(text), "not signed: %s", why);
	if (m->st.fd != -1 && spool_state_set_error(&m->st, text) == -1)
		log_warn("%s: cannot update %s", m->name, m->st.path);
}

/* text_sign_seal - the ARC set of a post's text (prepared as p,
 * under head: its DKIM-Signature fields, or nothing) in *arc, empty when
 * it gets none; -1 defers it */
static int
text_sign_seal(struct listfn_msg *m, const struct dkim_prep *p,
    const char *head, size_t headlen, char **arc, size_t *arclen)
{
	char err[300];

	*arc = NULL;
	*arclen = 0;
	if (m->arc == NULL || !m->arc->seal)
		return (*arc = strdup("")) != NULL ? 0 : -1;
	if (arc_seal(p, head, headlen, m->arc, arc, arclen, err, sizeof(err)) ==
	    -1) {
		text_sign_failed(m, err);
		return -1;
	}
	return 0;
}

/* text_sign_copies - a text whose copies each get header fields of
 * their own (a one-click link): sealed for ARC once, then the body hash
 * and the keys of the sealed text, for the delivery threads to sign each
 * copy with (rcpt_head_make) */
static int
text_sign_copies(struct listfn_env *env, struct listfn_msg *m,
    const struct dkim_conf *dc, const char *text, size_t len)
{
	struct dkim_prep *p;
	char err[PATH_MAX + 200], *arc, *all;
	size_t arclen, ml;
	int old = m->datafd, r, qp;

	if (dkim_sign_prepare(env->dkim, dc, m->domain, text, len, &p, err,
		sizeof(err)) == -1) {
		text_sign_failed(m, err);
		return -1;
	}
	if (p != NULL && list_text_link(text, len, &ml, &qp) != NULL) {
		/* Each copy has a body of its own (a footer with its own
		 * link): sealed per copy too (rcpt_head.c, text_sign_keep). */
		rcpt_head_sign(m->head, p);
		return 0;
	}
	if (p == NULL || text_sign_seal(m, p, NULL, 0, &arc, &arclen) == -1) {
		rcpt_head_sign(m->head, p);
		return p == NULL ? 0 : -1;
	}
	if (arclen == 0) {
		free(arc);
		rcpt_head_sign(m->head, p);
		return 0;
	}
	/* The seal is the text's: each copy's own fields go above it, and
	 * its signatures are prepared over the sealed text. */
	dkim_prep_free(p);
	p = NULL;
	if ((all = malloc(arclen + len)) == NULL) {
		free(arc);
		return -1;
	}
	memcpy(all, arc, arclen);
	memcpy(all + arclen, text, len);
	free(arc);
	if ((r = dkim_sign_prepare(env->dkim, dc, m->domain, all, arclen + len,
		 &p, err, sizeof(err))) == -1)
		text_sign_failed(m, err);
	else if ((r = text_file_memfd(m, all, arclen + len, "", 0)) == -1)
		log_warn("%s: cannot prepare the sealed text", m->name);
	else
		close(old);
	free(all);
	if (r == -1) {
		dkim_prep_free(p);
		return -1;
	}
	rcpt_head_sign(m->head, p);
	return 0;
}

/* text_sign_now - put the DKIM-Signature fields, and a post's ARC
 * set above them, on top of m's text; -1 means defer m */
static int
text_sign_now(struct listfn_env *env, struct listfn_msg *m)
{
	struct dkim_conf dc;
	char err[PATH_MAX + 200], *sig;
	size_t siglen, maplen;
	void *map;
	int old = m->datafd, r;

	if (dkim_conf_load(env->s, env->ls, m->domain, &dc, err, sizeof(err)) ==
	    -1) {
		text_sign_failed(m, err);
		return -1;
	}
	if (!dc.sign || m->datasize == 0)
		return 0;
	if (env->dkim == NULL &&
	    (env->dkim = dkim_sign_open(err, sizeof(err))) == NULL) {
		text_sign_failed(m, err);
		return -1;
	}
	/* text_file_memfd replaces the text and raises m->datasize: the map
	 * is unmapped with the length it was mapped with, never more (the
	 * pages beyond it are another allocation's). */
	maplen = (size_t)m->datasize;
	if ((map = mmap(NULL, maplen, PROT_READ, MAP_SHARED, old, 0)) ==
	    MAP_FAILED) {
		log_warn("%s: cannot map its text", m->name);
		return -1;
	}
	if (m->head != NULL) {
		/* Each copy has fields of its own: signed per copy at
		 * delivery (rcpt_head.c), with what is made here. */
		r = text_sign_copies(env, m, &dc, map, maplen);
		munmap(map, maplen);
		return r;
	}
	r = arc_sign_text(env->dkim, &dc, m->domain, map, maplen, m->arc, &sig,
	    &siglen, err, sizeof(err));
	if (r == -1)
		text_sign_failed(m, err);
	else if (siglen > 0 &&
		 (r = text_file_memfd(m, sig, siglen, map, maplen)) == -1)
		log_warn("%s: cannot prepare the signed text", m->name);
	else if (siglen > 0)
		close(old);
	munmap(map, maplen);
	free(sig);
	return r;
}

/* text_sign_fit - a text too large for each copy to be made whole
 * (RCPT_HEAD_WHOLE_MAX) whose footer has the place of each copy's own
 * link: the place gets the list's mailto, the text replaced; 0, or -1 */
static int
text_sign_fit(struct listfn_msg *m)
{
	size_t len = (size_t)m->datasize, ml, plen;
	int old = m->datafd, qp, r = 0;
	char *plain;
	void *map;

	if (m->head == NULL || len <= RCPT_HEAD_WHOLE_MAX)
		return 0;
	if ((map = mmap(NULL, len, PROT_READ, MAP_SHARED, old, 0)) ==
	    MAP_FAILED) {
		log_warn("%s: cannot map its text", m->name);
		return -1;
	}
	if (list_text_link(map, len, &ml, &qp) != NULL) {
		if ((plain = list_text_unlinked(
			 map, len, m->domain, m->list, &plen)) == NULL ||
		    text_file_memfd(m, plain, plen, "", 0) == -1) {
			log_warn("%s: cannot prepare its text", m->name);
			r = -1;
		} else
			close(old);
		free(plain);
	}
	munmap(map, len);
	return r;
}

/* text_sign_keep - the text, as signed, kept for the copies when each
 * is made whole (its footer has each copy's own link, rcpt_head.c),
 * with the post's ARC verdict for their seals */
static int
text_sign_keep(struct listfn_msg *m)
{
	size_t len = (size_t)m->datasize;
	void *map;
	int r;

	if (m->head == NULL || len == 0)
		return 0;
	if ((map = mmap(NULL, len, PROT_READ, MAP_SHARED, m->datafd, 0)) ==
	    MAP_FAILED) {
		log_warn("%s: cannot map its text", m->name);
		return -1;
	}
	if ((r = rcpt_head_text(m->head, map, len, m->arc)) == -1)
		log_warnx("%s: cannot keep its text: out of memory", m->name);
	munmap(map, len);
	return r;
}

/* text_sign - text_sign_now, then the post's ARC verdict let go
 * (made again with the text at the next activation) */
int
text_sign(struct listfn_env *env, struct listfn_msg *m)
{
	int r = text_sign_fit(m);

	if (r == 0)
		r = text_sign_now(env, m);
	if (r == 0)
		r = text_sign_keep(m);

	free(m->arc);
	m->arc = NULL;
	return r;
}
