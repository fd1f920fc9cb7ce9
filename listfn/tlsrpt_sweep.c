/*
 * tlsrpt_sweep.c - the daily TLS-RPT reports (RFC 8460): when a UTC day is
 * over, a runner (one at a time: the lock of spool_tlsrpt.c) reads that
 * day's session records, and for each policy domain in them looks up
 * the TXT record _smtp._tls.<domain> (3); a domain with one
 * v=TLSRPTv1 record gets its report (tlsrpt_report.c) mailed to each
 * mailto: address of its rua, queued as generated mail from [tlsrpt]
 * from, under that address's domain, so it is DKIM-signed with that
 * domain's key (5.3) like every mail the runner makes.  https: rua
 * URIs are not used (no HTTP POST of our own).
 *
 * Steps and crash rule: spool_tlsrpt.c (R1-R3).  A domain whose TXT
 * look-up fails is tried again at the next sweep, until the day after
 * the report's day is over; then its report is given up (logged).
 * The look-ups run on the runner's main thread, once a day per domain,
 * each bounded by TLSRPT_DNS_WAIT.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "generate.h"
#include "lists.h"
#include "listfn_clock.h"
#include "listfn_msg.h"
#include "log.h"
#include "smtp.h"
#include "spool_tlsrpt.h"
#include "tlsrpt_sweep.h"
#include "tlsrpt_report.h"

#define TLSRPT_DNS_WAIT 5 /* seconds a TXT look-up may take */
#define TLSRPT_RUA_LEN (TLSRPT_RUA_MAX * (NAME_ADDR_MAX + 1) + 1)

/* A day's records, parsed and sorted. */
struct tlsrpt_day {
	const char *day;
	char *text, *sent; /* the records, the .sent list */
	size_t len, slen;
	struct tlsrpt_rec *v;
	size_t n;
	int retry; /* a domain's look-up may be tried again later */
};

/* tlsrpt_check - enable = yes needs a from address to send from */
int
tlsrpt_check(const struct listfn_env *env, char *why, size_t whylen)
{
	const char *from = env->ls->tlsrpt_from, *at = strrchr(from, '@');

	if (!env->ls->tlsrpt_enable)
		return 0;
	if (!name_addr_ok(from) || at == NULL ||
	    name_check_domain(at + 1) != NULL) {
		snprintf(why, whylen,
		    "[tlsrpt] from: \"%s\" is not an address to send reports "
		    "from",
		    from);
		return -1;
	}
	return 0;
}

/* tlsrpt_rec_cmp - qsort: by the whole record */
static int
tlsrpt_rec_cmp(const void *a, const void *b)
{
	return strcmp(((const struct tlsrpt_rec *)a)->line,
	    ((const struct tlsrpt_rec *)b)->line);
}

/* tlsrpt_parse - one record line (NUL-ended) into r: seven fields, or
 * eight with a failure reason; -1 damaged */
static int
tlsrpt_parse(char *line, struct tlsrpt_rec *r)
{
	const char **f[] = {&r->domain, &r->type, &r->policy, &r->result,
	    &r->mx, &r->rip, &r->sip, &r->reason};
	size_t i, nf = sizeof(f) / sizeof(f[0]);
	char *p = line, *tab = line;

	r->line = line;
	r->reason = "";
	for (i = 0; i < nf && tab != NULL; i++) {
		*f[i] = p;
		if ((tab = strchr(p, '\t')) != NULL)
			*tab = '\0', p = tab + 1;
	}
	if (tab != NULL || i < nf - 1)
		return -1; /* more fields, or fewer than seven */
	return *r->domain && *r->type && *r->result ? 0 : -1;
}

/* tlsrpt_load - R1: the day's records, split and sorted */
static int
tlsrpt_load(struct listfn_env *env, struct tlsrpt_day *d)
{
	char *line, *save = NULL;
	size_t cap = 0, n = 0, i;

	if (spool_tlsrpt_load(
		env->s->spool_dir, d->day, 0, &d->text, &d->len) == -1 ||
	    spool_tlsrpt_load(
		env->s->spool_dir, d->day, 1, &d->sent, &d->slen) == -1)
		return -1;
	for (line = d->text; *line; line++)
		cap += *line == '\n';
	if ((d->v = calloc(cap + 1, sizeof(*d->v))) == NULL)
		return -1;
	for (line = strtok_r(d->text, "\n", &save); line != NULL && n <= cap;
	     line = strtok_r(NULL, "\n", &save))
		d->v[n++].line = line;
	/* Sorted whole, before the fields are cut apart. */
	qsort(d->v, n, sizeof(*d->v), tlsrpt_rec_cmp);
	for (i = 0; i < n; i++)
		if (tlsrpt_parse((char *)d->v[i].line, &d->v[d->n]) == 0)
			d->n++;
	return 0;
}

/* tlsrpt_was_sent - domain's report of the day is queued already */
static int
tlsrpt_was_sent(const struct tlsrpt_day *d, const char *domain)
{
	size_t len = strlen(domain);
	const char *p;

	for (p = d->sent; (p = strstr(p, domain)) != NULL; p++)
		if ((p == d->sent || p[-1] == '\n') && p[len] == '\n')
			return 1;
	return 0;
}

/* tlsrpt_rua - the mailto: addresses domain's TXT record asks reports
 * for, one a line: their number, 0 none (no record, no mailto:), -1 the
 * look-up failed */
static int
tlsrpt_rua(struct listfn_env *env, const char *domain, char *rua, size_t len)
{
	char name[NAME_DOMAIN_MAX + 16], txt[4096], why[200];
	struct mx_resolver res;
	enum mx_status st;
	unsigned ttl;
	int n;

	if (mx_resolver_init(&res, env->dns_server, why, sizeof(why)) == -1)
		return -1;
	res.res.retrans = TLSRPT_DNS_WAIT;
	res.res.retry = 1;
	snprintf(name, sizeof(name), "_smtp._tls.%s", domain);
	st = dns_txt(&res, name, txt, sizeof(txt), &ttl);
	mx_resolver_close(&res);
	if (st == MX_TEMPFAIL)
		return -1;
	if (st == MX_NOTFOUND || (n = tlsrpt_txt_parse(txt, rua, len)) == -1)
		return 0;
	if (n == 0)
		log_info("TLS-RPT: %s asks for reports by https: only, "
			 "which mjq does not send",
		    domain);
	return n;
}

/* tlsrpt_send - the report to each address of rua; 0, or -1 (none or
 * some queued: the domain is tried again) */
static int
tlsrpt_send(struct listfn_env *env, const struct tlsrpt_report *r,
    const char *rua, const struct tlsrpt_rec *v, size_t n)
{
	char to[NAME_ADDR_MAX + 1], final[PATH_MAX], *text = NULL;
	struct listfn_msg *m;
	size_t len, tlen;
	int rc = 0;

	if ((m = calloc(1, sizeof(*m))) == NULL)
		return -1;
	(void)strlcpy(m->domain, r->submitter, sizeof(m->domain));
	m->domain_prio = m->list_prio = SPOOL_PRIO_DEFAULT;
	for (; *rua && rc == 0; rua += len + 1) {
		len = strcspn(rua, "\n");
		memcpy(to, rua, len);
		to[len] = '\0';
		if (tlsrpt_report_message(
			r, to, v, n, listfn_now(), &text, &tlen) == -1 ||
		    generate_commit_from(env, m, "tlsrpt", "", to, text, tlen,
			final, sizeof(final)) == -1) {
			log_warn("TLS-RPT: cannot queue the report of %s for "
				 "%s to %s",
			    r->day, r->domain, to);
			rc = -1;
		} else
			log_info("%s: TLS-RPT report of %s for %s to <%s>, "
				 "Report-ID %s",
			    strrchr(final, '/') + 1, r->day, r->domain, to,
			    r->id);
		free(text);
		text = NULL;
	}
	free(m);
	return rc;
}

/* tlsrpt_domain - R2 for the n records of one policy domain: 1 queued,
 * 0 nothing to send, -1 try again later */
static int
tlsrpt_domain(struct listfn_env *env, struct tlsrpt_day *d,
    const struct tlsrpt_rec *v, size_t n)
{
	const struct lists_settings *ls = env->ls;
	char rua[TLSRPT_RUA_LEN];
	struct tlsrpt_report r;
	int k;

	if (tlsrpt_was_sent(d, v->domain))
		return 0;
	if ((k = tlsrpt_rua(env, v->domain, rua, sizeof(rua))) <= 0) {
		if (k == -1)
			log_warnx("TLS-RPT: no answer for _smtp._tls.%s: the "
				  "report of %s waits",
			    v->domain, d->day);
		return k;
	}
	if (tlsrpt_report_init(&r, d->day, v->domain, ls->tlsrpt_from,
		ls->tlsrpt_organization, ls->tlsrpt_contact) == -1 ||
	    tlsrpt_send(env, &r, rua, v, n) == -1)
		return -1;
	if (spool_tlsrpt_sent(env->s->spool_dir, d->day, v->domain) == -1)
		log_warn("TLS-RPT: cannot note the report of %s for %s as "
			 "sent",
		    d->day, v->domain);
	return 1;
}

/* tlsrpt_one_day - R1 to R3 for a day; the reports queued */
static int
tlsrpt_one_day(struct listfn_env *env, const char *day, const char *yesterday)
{
	struct tlsrpt_day d = {.day = day};
	size_t i, k;
	int queued = 0, r, later = 0;

	if (tlsrpt_load(env, &d) == -1) {
		log_warn("TLS-RPT: cannot read the records of %s", day);
		free(d.text), free(d.sent), free(d.v);
		return 0;
	}
	for (i = 0; i < d.n; i += k) {
		for (k = 1; i + k < d.n &&
			    strcmp(d.v[i].domain, d.v[i + k].domain) == 0;
		     k++)
			continue;
		if ((r = tlsrpt_domain(env, &d, &d.v[i], k)) == -1)
			later = 1;
		else
			queued += r;
	}
	/* R3, unless a domain is to be tried again at the next sweep */
	if (!later || strcmp(day, yesterday) < 0) {
		if (spool_tlsrpt_done(env->s->spool_dir, day) == -1)
			log_warn(
			    "TLS-RPT: cannot remove the records of %s", day);
		else if (later)
			log_warnx("TLS-RPT: reports of %s given up for a "
				  "domain that did not answer",
			    day);
	}
	free(d.text), free(d.sent), free(d.v);
	return queued;
}

/* tlsrpt_sweep - every finished day's reports, one runner at a time */
int
tlsrpt_sweep(struct listfn_env *env)
{
	char today[SPOOL_TLSRPT_DAY_LEN + 1],
	    yesterday[SPOOL_TLSRPT_DAY_LEN + 1];
	char days[SPOOL_TLSRPT_DAYS_MAX][SPOOL_TLSRPT_DAY_LEN + 1];
	time_t now = listfn_now();
	int fd, n, i, queued = 0;
	char why[300];

	if (!env->ls->tlsrpt_enable ||
	    tlsrpt_check(env, why, sizeof(why)) == -1)
		return 0;
	if (spool_tlsrpt_day(now, today, sizeof(today)) == -1 ||
	    spool_tlsrpt_day(now - 86400, yesterday, sizeof(yesterday)) == -1)
		return 0;
	if ((n = spool_tlsrpt_days(
		 env->s->spool_dir, today, days, SPOOL_TLSRPT_DAYS_MAX)) <= 0)
		return 0;
	if (spool_tlsrpt_lock(env->s->spool_dir, &fd) != 1)
		return 0; /* another runner is at it (or no lock: later) */
	for (i = 0; i < n; i++)
		queued += tlsrpt_one_day(env, days[i], yesterday);
	(void)close(fd);
	return queued;
}
