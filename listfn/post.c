/*
 * post.c - the list function: a post becomes one message to the
 * list's subscribers.
 *
 * First processing (post_first, on a list thread: it reads the
 * whole list) applies the posting policy and snapshots the subscribers
 * into the state file (with the envelope sender <list>-owner@<domain>,
 * so bounces go to the owner, not to the poster).  Every activation
 * rebuilds the header the same way: Return-Path and any older list
 * headers out; List-Id, List-Post, List-Help, List-Unsubscribe,
 * List-Subscribe, List-Owner (RFC 2369, 2919), Precedence: list and
 * X-Loop in (lists/list_head.c); the subject prefix once;
 * Authentication-Results forged in a trusted authserv-id's name out (its ARC
 * set is judged from the post as it arrived, post_dmarc.c, and sealed on the
 * text, text_sign.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "lists.h"
#include "bounce_complaint.h"
#include "archive_post.h"
#include "bounce_probe.h"
#include "digest.h"
#include "digest_mode.h"
#include "listfn_aside.h"
#include "listfn_clock.h"
#include "listfn_list.h"
#include "listfn_state.h"
#include "text_file.h"
#include "post_dmarc.h"
#include "copy_head.h"
#include "post.h"
#include "post_texts.h"
#include "log.h"
#include "moderate.h"
#include "listfn_msg.h"
#include "spool_why.h"

/* Headers this list replaces with its own. */
static const char *const post_drop[] = {
    "Return-Path",
    "List-Id",
    "List-Post",
    "List-Help",
    "List-Unsubscribe",
    "List-Subscribe",
    "List-Owner",
    "List-Archive",
    "Archived-At",
    "Precedence",
};

/* post_is - the header field at p (length n) is called name */
static int
post_is(const char *p, size_t n, const char *name)
{
	size_t k = strlen(name);

	return n > k && p[k] == ':' && strncasecmp(p, name, k) == 0;
}

/* post_loop - the post carries this list's List-Id or X-Loop */
static int
post_loop(const struct listfn_msg *m, const char *text, size_t len)
{
	const char *hend = header_end(text, len), *p, *e;
	char id[NAME_LIST_MAX + NAME_DOMAIN_MAX + 4];
	char loop[NAME_LIST_MAX + NAME_DOMAIN_MAX + 4];

	snprintf(id, sizeof(id), "<%s.%s>", m->list, m->domain);
	snprintf(loop, sizeof(loop), "%s@%s", m->list, m->domain);
	for (p = text; p < hend; p = e) {
		e = header_field_end(p, hend);
		if ((post_is(p, (size_t)(e - p), "List-Id") &&
			memmem(p, (size_t)(e - p), id, strlen(id)) != NULL) ||
		    (post_is(p, (size_t)(e - p), "X-Loop") &&
			memmem(p, (size_t)(e - p), loop, strlen(loop)) != NULL))
			return 1;
	}
	return 0;
}

/* post_prefix - the subject prefix with $LIST replaced */
static void
post_prefix(const struct listfn_msg *m, const struct listconf *lc, char *out,
    size_t outlen)
{
	const char *p = lc->subject_prefix, *var;
	size_t n = 0;

	out[0] = '\0';
	while (*p != '\0' && n + 1 < outlen) {
		if ((var = strstr(p, "$LIST")) == NULL) {
			strlcat(out, p, outlen);
			return;
		}
		n = strlen(out);
		if (n + (size_t)(var - p) + 1 < outlen) {
			memcpy(out + n, p, (size_t)(var - p));
			out[n + (size_t)(var - p)] = '\0';
		}
		strlcat(out, m->list, outlen);
		p = var + 5;
		n = strlen(out);
	}
}

/* Header fields a wrapped post keeps on the outside (the rest travel
 * inside, in the message/rfc822 part). */
static const char *const post_wrap_keep[] = {
    "To",
    "Cc",
    "Subject",
    "Date",
    "Message-ID",
    "In-Reply-To",
    "References",
    "Reply-To",
    "ARC-Seal",
    "ARC-Message-Signature",
    "ARC-Authentication-Results",
};

/* post_any - the field at p (length n) is one of names */
static int
post_any(const char *p, size_t n, const char *const *names, size_t nnames)
{
	size_t i;

	for (i = 0; i < nnames; i++)
		if (post_is(p, n, names[i]))
			return 1;
	return 0;
}

/* The poster, when DMARC mitigation takes the From (post_compose). */
struct post_poster {
	int munge, wrap; /* From becomes the list's; the post wrapped */
	int to_cc;	 /* the poster goes to Cc, not Reply-To */
	int had_reply, had_cc, had_from;
	char addr[SPOOL_ADDR_MAX + 1], name[256];
};

/* post_poster - who wrote, and where the list's mitigation puts
 * them: Reply-To, or Cc when the list sets Reply-To itself */
static void
post_poster(const struct listconf *lc, const char *text, const char *hend,
    struct post_poster *ps)
{
	memset(ps, 0, sizeof(*ps));
	if (lc->dmarc_mitigation == DMARC_MIT_NONE ||
	    dmarc_from(text, (size_t)(hend - text), ps->addr, sizeof(ps->addr),
		ps->name, sizeof(ps->name)) == -1)
		return;
	ps->munge = 1;
	ps->wrap = lc->dmarc_mitigation == DMARC_MIT_WRAP;
	ps->to_cc =
	    lc->reply_to[0] != '\0' && strcasecmp(lc->reply_to, "none") != 0;
}

/* post_munged - write a field the mitigation changes; 1 written,
 * 0 the caller goes on with it */
static int
post_munged(FILE *fp, const struct listfn_msg *m, struct post_poster *ps,
    const char *p, const char *e)
{
	size_t n = (size_t)(e - p);

	if (!ps->munge)
		return 0;
	if (post_is(p, n, "From")) {
		/* the list's From once, whatever the post had */
		if (!ps->had_from)
			dmarc_munge_from(
			    fp, ps->name, ps->addr, m->list, m->domain);
		ps->had_from = 1;
		return 1;
	}
	if (ps->wrap && !post_any(p, n, post_wrap_keep,
			    sizeof(post_wrap_keep) / sizeof(post_wrap_keep[0])))
		return 1; /* inside only */
	if (post_is(p, n, "Reply-To"))
		ps->had_reply = 1;
	if (ps->to_cc && post_is(p, n, "Cc")) {
		ps->had_cc = 1;
		fprintf(fp, "Cc: <%s>,", ps->addr);
		fwrite(p + 3, 1, n - 3, fp);
		return 1;
	}
	return 0;
}

/* post_poster_end - the poster's Reply-To or Cc, when the post
 * had none, and the wrapper's MIME fields */
static void
post_poster_end(FILE *fp, const struct post_poster *ps, const char *boundary)
{
	if (!ps->munge)
		return;
	if (ps->to_cc && !ps->had_cc)
		fprintf(fp, "Cc: <%s>\n", ps->addr);
	else if (!ps->to_cc && !ps->had_reply)
		fprintf(fp, "Reply-To: <%s>\n", ps->addr);
	if (ps->wrap)
		fprintf(fp,
		    "MIME-Version: 1.0\n"
		    "Content-Type: multipart/mixed; boundary=\"%s\"\n",
		    boundary);
}

/* post_compose_text - post_compose of a text that carries no link mark */
static int
post_compose_text(struct listfn_msg *m, const struct listconf *lc,
    const struct post_texts *t, const char *text, size_t len)
{
	const char *hend = header_end(text, len), *p, *e, *v, *orig = text;
	char prefix[160], boundary[64], msgid[ARCHIVE_URL_MSGID_MAX + 1];
	char *buf = NULL;
	struct post_poster ps;
	struct post_footer pf;
	size_t size = 0;
	int drop, r;
	FILE *fp;

	post_prefix(m, lc, prefix, sizeof(prefix));
	post_poster(lc, text, hend, &ps);
	snprintf(boundary, sizeof(boundary), "mjq-wrap-%08x%08x", arc4random(),
	    arc4random());
	memset(&pf, 0, sizeof(pf));
	if (!ps.wrap && post_footer_make(text, len, t->head, t->foot, m->domain,
			    m->list, &pf) == -1)
		return -1;
	if ((fp = open_memstream(&buf, &size)) == NULL) {
		post_footer_free(&pf);
		return -1;
	}
	list_head_write(fp, lc, m->list, m->domain,
	    header_value(text, len, "Message-ID", msgid, sizeof(msgid)) == 0
		? msgid
		: NULL);
	for (p = text; p < hend; p = e) {
		e = header_field_end(p, hend);
		if (*p == '\n' || (*p == '\r' && e - p <= 2))
			break; /* the empty line: written below */
		drop = post_any(p, (size_t)(e - p), post_drop,
		    sizeof(post_drop) / sizeof(post_drop[0]));
		if (post_is(p, (size_t)(e - p), "Return-Path"))
			orig = e; /* the wrapped post starts after it */
		if (lc->reply_to[0] != '\0' &&
		    strcasecmp(lc->reply_to, "none") &&
		    post_is(p, (size_t)(e - p), "Reply-To"))
			drop = 1;
		/* Results that claim a trusted authserv-id and are not
		 * the receiving MTA's (arc_ar.c) go. */
		if (m->arc != NULL &&
		    arc_ar_drop(m->arc, text, p, (size_t)(e - p)))
			drop = 1;
		if ((pf.wrap && post_footer_moves(p, (size_t)(e - p))) ||
		    head_rules_removes(lc->remove_headers, p, (size_t)(e - p)))
			drop = 1; /* inside the wrapper; the list's rule */
		if (drop || post_munged(fp, m, &ps, p, e))
			continue;
		if (prefix[0] != '\0' &&
		    post_is(p, (size_t)(e - p), "Subject")) {
			for (v = p + 8; v < e && (*v == ' ' || *v == '\t'); v++)
				;
			/* A reply keeps its prefix: never add it twice. */
			if (memmem(v, (size_t)(e - v), prefix,
				strlen(prefix)) == NULL) {
				fprintf(fp, "Subject: %s ", prefix);
				fwrite(v, 1, (size_t)(e - v), fp);
				continue;
			}
		}
		fwrite(p, 1, (size_t)(e - p), fp);
	}
	/* A header section cut off without its newline (no body) must not
	 * run into the Reply-To or the empty line written after it. */
	if (fflush(fp) == 0 && size > 0 && buf[size - 1] != '\n')
		fputc('\n', fp);
	if (t->fields != NULL)
		fputs(t->fields, fp); /* the list's custom_headers */
	if (lc->reply_to[0] != '\0' && strcasecmp(lc->reply_to, "none") != 0) {
		if (strcasecmp(lc->reply_to, "list") == 0)
			fprintf(fp, "Reply-To: <%s@%s>\n", m->list, m->domain);
		else
			fprintf(fp, "Reply-To: <%s>\n", lc->reply_to);
	}
	post_poster_end(fp, &ps, boundary);
	fputs(pf.fields, fp);
	fputs("\n", fp);
	if (ps.wrap) {
		if (post_texts_wrapped(fp, t, boundary, orig, text + len) == -1)
			goto fail;
		hend = text + len; /* the body is written: nothing follows */
	}
	if (fclose(fp) == EOF) {
		fp = NULL;
		goto fail;
	}
	if (pf.body != NULL)
		r = text_file_memfd(m, buf, size, pf.body, pf.blen);
	else
		r = text_file_memfd(
		    m, buf, size, hend, (size_t)(text + len - hend));
	free(buf);
	post_footer_free(&pf);
	return r;
fail:
	if (fp != NULL)
		fclose(fp);
	free(buf);
	post_footer_free(&pf);
	return -1;
}

/* post_compose - the header as the subscribers get it, then the body
 * (or, when the list wraps posts, the post as a message/rfc822 part); a
 * link's mark the poster wrote is defused first (list_text_defuse) */
int
post_compose(struct listfn_msg *m, const struct listconf *lc,
    const struct post_texts *t, const char *text, size_t len)
{
	char *safe;
	int r;

	switch (list_text_defuse(text, len, &safe)) {
	case -1:
		return -1;
	case 1:
		log_warnx("%s: the post carries mjq's own link mark: defused",
		    m->name);
		r = post_compose_text(m, lc, t, safe, len);
		free(safe);
		return r;
	default:
		return post_compose_text(m, lc, t, text, len);
	}
}

/* What the snapshot writes to, and whom it leaves out. */
struct post_to {
	struct spool_state_writer *w;
	const struct subs_disabled *off; /* disabled after bounces */
	size_t noff;
	const char *poster[2]; /* the From and the envelope sender, or "" */
};

/* post_rcpt - listconf_subscribers_each_mode's callback: a
 * state file line for a subscriber of mode each (or notmetoo, when it
 * is not the poster) whose delivery is not disabled (digest readers get
 * the post in their digest, nomail ones nothing) */
static int
post_rcpt(void *arg, const char *addr, enum subs_mode mode)
{
	struct post_to *to = arg;

	if ((mode != SUBS_EACH && mode != SUBS_NOTMETOO) ||
	    subs_disabled_find(to->off, to->noff, addr) != NULL)
		return 0;
	if (mode == SUBS_NOTMETOO && (strcasecmp(addr, to->poster[0]) == 0 ||
					 strcasecmp(addr, to->poster[1]) == 0))
		return 0;
	return spool_state_write_rcpt(to->w, addr);
}

/* post_snapshot - the subscribers, and the archive as one more
 * recipient (delivered, retried and recorded like the others), streamed
 * into the new state file */
static int
post_snapshot(struct listfn_env *env, struct listfn_msg *m,
    const struct listconf *lc, struct spool_state_init *init, size_t *n,
    const struct subs_disabled *off, size_t noff, const char *author)
{
	struct spool_state_writer *w;
	struct post_to to;
	char err[300];
	int r = -1;

	if ((w = malloc(sizeof(*w))) == NULL)
		return -1;
	if (listfn_state_open(env, m, init, w) == -1) {
		free(w);
		return -1;
	}
	to.w = w, to.off = off, to.noff = noff;
	to.poster[0] = author, to.poster[1] = init->from;
	if (listconf_subscribers_each_mode(env->s, m->domain, m->list,
		post_rcpt, &to, err, sizeof(err)) == -1)
		log_warnx("%s: %s", m->name, err);
	else if (lc->archive[0] != '\0' &&
		 spool_state_write_rcpt(w, m->archive_rcpt) == -1)
		log_warn("%s: cannot write its state file", m->name);
	else {
		*n = w->n;
		r = listfn_state_commit(m, w);
		free(w);
		return r;
	}
	spool_state_write_abort(w);
	free(w);
	return r;
}

/* post_disabled - the subscribers whose delivery is disabled, as
 * the probes due now leave them (bounce_probe.c: disabled addresses are
 * probed as posts go out, and one enabled again gets this post) */
static int
post_disabled(struct listfn_env *env, struct listfn_msg *m,
    const struct listconf *lc, struct subs_disabled **off, size_t *noff)
{
	if (subs_disabled_load(env->s, m->domain, m->list, off, noff) == -1) {
		log_warn("%s: cannot read the disabled subscribers", m->name);
		return -1;
	}
	if (bounce_complaint_summary(env, m, lc, listfn_now()) == -1)
		log_warn("%s: complaints summary deferred", m->name);
	if (*noff == 0)
		return 0;
	if (bounce_probe_due(env, m, lc, listfn_now()) == -1)
		log_warn(
		    "%s: probes of disabled subscribers deferred", m->name);
	free(*off);
	if (subs_disabled_load(env->s, m->domain, m->list, off, noff) == -1) {
		log_warn("%s: cannot read the disabled subscribers", m->name);
		return -1;
	}
	return 0;
}

/* post_verp - a post goes one envelope per recipient, each
 * naming its recipient (<list>-owner+user=host@domain), when the list
 * says verp = yes; when it has one-click links (a copy per recipient
 * already: VERP costs nothing more); and for verp_rate percent of the
 * posts of the others (as Sympa's verp_rate), so that bounces naming
 * nobody readable still name a sample of the subscribers */
static int
post_verp(const struct listconf *lc)
{
	return lc->verp || lc->unsubscribe_url[0] != '\0' ||
	       (lc->verp_rate > 0 &&
		   arc4random_uniform(100) < (uint32_t)lc->verp_rate);
}

/* post_take - an accepted post (from its envelope sender)
 * collected for the digest, then its snapshot (n recipients, noff
 * disabled left out) */
static int
post_take(struct listfn_env *env, struct listfn_msg *m,
    const struct listconf *lc, const char *text, size_t len, const char *from,
    size_t *n, size_t *noff)
{
	struct spool_state_init init;
	char sender[SPOOL_ADDR_MAX + 1], author[SPOOL_ADDR_MAX + 1];
	char value[SPOOL_ADDR_MAX + 256];
	struct subs_disabled *off = NULL;
	char *filtered = NULL;
	size_t flen = 0;
	int r;

	/* the author, for notmetoo: From's address ("" when none) */
	if (header_value(text, len, "From", value, sizeof(value)) == -1 ||
	    header_addr(value, author, sizeof(author)) == -1)
		author[0] = '\0';
	/* the digest and the archive take the post as its readers get it */
	if (content_filter_apply(lc, text, len, &filtered, &flen) == -1)
		return -1;
	if (filtered != NULL)
		text = filtered, len = flen;
	r = digest_collect(env, m, lc, text, len) == -1 ||
		    archive_post(env, m, lc, text, len) == -1
		? -1
		: 0;
	free(filtered);
	if (r == -1)
		return -1;
	snprintf(sender, sizeof(sender), "%s-owner@%s", m->list, m->domain);
	memset(&init, 0, sizeof(init));
	init.sender = sender;
	init.from = from;
	init.kind = "post";
	init.verp = post_verp(lc);
	if (post_disabled(env, m, lc, &off, noff) == -1)
		return -1;
	r = post_snapshot(env, m, lc, &init, n, off, *noff, author);
	free(off);
	return r;
}

/* post_admit - first processing: checks, then the snapshot */
static int
post_admit(struct listfn_env *env, struct listfn_msg *m,
    const struct listconf *lc, const char *text, size_t len)
{
	char err[300], released[SPOOL_WHY_MAX], from[SPOOL_ADDR_MAX + 1];
	size_t n = 0, sent, noff = 0;
	int r, mfd;

	if (post_loop(m, text, len)) {
		return listfn_aside(env, m, SPOOL_BAD,
		    "mail loop: the post carries this list's List-Id or "
		    "X-Loop");
	}
	/* Released from HOLD/ or BAD/ (a .why beside it in QUEUE/): the
	 * size limit and the posting policy were judged by a person.  The
	 * limit is on what the poster sent, not on our Return-Path. */
	if (spool_why_read(m->path, released, sizeof(released), NULL) == -1)
		released[0] = '\0';
	if (released[0] == '\0' && lc->max_message_size > 0 &&
	    (long long)(sent = header_sent_size(text, len)) >
		lc->max_message_size) {
		snprintf(err, sizeof(err),
		    "message of %zu bytes is over the list's "
		    "max_message_size of %lld",
		    sent, lc->max_message_size);
		return listfn_aside(env, m, SPOOL_HOLD, err);
	}
	if (released[0] == '\0' &&
	    (r = moderate_post(env, m, lc, text, len)) != 0)
		return r == 1 ? 0 : r;
	/* Accepted (or approved): into the digest before the snapshot
	 * commits, so a crash between them collects it again, never not;
	 * both under the digest modes lock (digest_mode.c), so that no
	 * reader leaves or joins the digests in between */
	header_return_path(text, len, from, sizeof(from));
	if ((mfd = digest_modes_hold(env, m, lc)) == -1)
		return -1;
	r = post_take(env, m, lc, text, len, from, &n, &noff);
	if (mfd >= 0)
		close(mfd);
	if (r == -1)
		return -1;
	log_info("%s: from=<%s>, list=%s@%s, nrcpt=%zu%s%s", m->name, from,
	    m->list, m->domain, n, released[0] ? ", " : "", released);
	if (noff > 0)
		log_info(
		    "%s: %zu disabled subscriber(s) left out", m->name, noff);
	if (released[0] != '\0' && spool_why_remove(m->path) == -1)
		log_warn("%s: cannot remove its .why", m->name);
	return 0;
}

/* post_conf - the config of m's list, its archive noted in m */
static int
post_conf(struct listfn_env *env, struct listfn_msg *m, struct listconf *lc)
{
	int r;

	if ((r = listfn_list_conf(env, m, lc)) != 0)
		return r;
	if (lc->archive[0] != '\0' && lc->archive[0] != '/') {
		log_warnx("%s: list %s@%s: archive must be an absolute path",
		    m->name, m->list, m->domain);
		return -1;
	}
	(void)strlcpy(
	    m->archive, lc->archive, sizeof(m->archive)); /* same size */
	snprintf(m->archive_rcpt, sizeof(m->archive_rcpt), "%s-archive@%s",
	    m->list, m->domain);
	return 0;
}

/* post_first - a new post's first processing, as a list thread
 * runs it (it reads the whole list): the checks and the posting policy,
 * then the snapshot; as post_text returns.  Its text is then made by
 * post_text on the main thread. */
int
post_first(
    struct listfn_env *env, struct listfn_msg *m, const char *text, size_t len)
{
	struct listconf lc;
	int r;

	if ((r = post_conf(env, m, &lc)) != 0)
		return r;
	return post_admit(env, m, &lc, text, len);
}

/* post_text - a post whose state file is made (post_first, or
 * an earlier pass): its text, on the main thread */
int
post_text(
    struct listfn_env *env, struct listfn_msg *m, const char *text, size_t len)
{
	struct post_texts t;
	struct listconf lc;
	char *filtered = NULL;
	size_t flen = 0;
	int r;

	if ((r = post_conf(env, m, &lc)) != 0)
		return r;
	snprintf(m->verp_prefix, sizeof(m->verp_prefix), "%s-owner", m->list);
	lc.dmarc_mitigation = (int)post_dmarc(env, m, &lc, text, len);
	if (post_arc(env, m, text, len) == -1) {
		log_warn("%s: cannot judge its ARC chain", m->name);
		return -1;
	}
	if (post_texts_load(env, m, &lc, &t) == -1)
		return -1;
	/* the list's content filter, then its texts around what is left */
	if ((r = content_filter_apply(&lc, text, len, &filtered, &flen)) == 0)
		r = filtered != NULL ? post_compose(m, &lc, &t, filtered, flen)
				     : post_compose(m, &lc, &t, text, len);
	free(filtered);
	post_texts_free(&t);
	if (r == -1) {
		log_warn("%s: cannot prepare the text", m->name);
		return -1;
	}
	return copy_head(env, m, &lc);
}
