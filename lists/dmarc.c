/*
 * dmarc.c - the DMARC policy of a poster's domain (RFC 7489 6.6.3): the
 * TXT record at _dmarc.<domain>, else at _dmarc.<organizational domain>
 * (the registrable domain under the Public Suffix List, from libpsl with
 * Debian's publicsuffix data), where sp= wins over p=.
 *
 * Answers are cached per runner for the record's TTL (at most
 * [dmarc] cache_ttl_max); a failed look-up counts as strict, so the post
 * is munged rather than rejected by receivers, is cached for
 * [dmarc] negative_ttl and logged once per caching, and never holds a
 * delivery back.  The look-up itself is the caller's (dmarc_txt_fn), so
 * this file needs no resolver and tests can feed it answers.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libpsl.h>

#include "dmarc.h"
#include "log.h"
#include "names.h"

#define DMARC_CACHE_MAX 4096 /* domains remembered; then the oldest go */
#define DMARC_TXT_MAX 4096

struct dmarc_entry {
	char domain[NAME_DOMAIN_MAX + 1];
	enum dmarc_policy policy;
	double expires;
};

struct dmarc_cache {
	dmarc_txt_fn *fn;
	void *arg;
	long long ttl_max, negative_ttl;
	struct dmarc_entry *e;
	size_t n, next; /* entries in use; the next to replace when full */
};

/* dmarc_open - an empty cache using fn for its look-ups */
struct dmarc_cache *
dmarc_open(
    dmarc_txt_fn *fn, void *arg, long long ttl_max, long long negative_ttl)
{
	struct dmarc_cache *c;

	if ((c = calloc(1, sizeof(*c))) == NULL)
		return NULL;
	if ((c->e = calloc(DMARC_CACHE_MAX, sizeof(*c->e))) == NULL) {
		free(c);
		return NULL;
	}
	c->fn = fn;
	c->arg = arg;
	c->ttl_max = ttl_max;
	c->negative_ttl = negative_ttl;
	return c;
}

/* dmarc_close - free the cache */
void
dmarc_close(struct dmarc_cache *c)
{
	if (c == NULL)
		return;
	free(c->e);
	free(c);
}

/* dmarc_org_domain - the organizational domain of domain: the
 * registrable domain under the Public Suffix List (domain itself when
 * the list knows nothing better) */
static const char *
dmarc_org_domain(const char *domain)
{
	static const psl_ctx_t *psl;
	const char *org;

	/* The list installed by Debian's publicsuffix package, else the
	 * copy built into libpsl: read once per process. */
	if (psl == NULL && (psl = psl_latest(NULL)) == NULL)
		psl = psl_builtin();
	if (psl == NULL || (org = psl_registrable_domain(psl, domain)) == NULL)
		return domain;
	return org;
}

/* dmarc_tag - the value of tag in a DMARC record, copied to out */
static int
dmarc_tag(const char *txt, const char *tag, char *out, size_t outlen)
{
	const char *p = txt, *e;
	size_t k = strlen(tag), n;

	while (*p != '\0') {
		while (*p == ' ' || *p == '\t' || *p == ';')
			p++;
		e = p + strcspn(p, ";");
		if ((size_t)(e - p) > k && strncasecmp(p, tag, k) == 0) {
			const char *v = p + k;
			while (v < e && (*v == ' ' || *v == '\t'))
				v++;
			if (v < e && *v == '=') {
				for (v++; v < e && isspace((unsigned char)*v);)
					v++;
				for (n = 0; v < e && n + 1 < outlen &&
					    !isspace((unsigned char)*v);)
					out[n++] = *v++;
				out[n] = '\0';
				return 0;
			}
		}
		p = e;
	}
	return -1;
}

/* dmarc_record_policy - the policy of the TXT records txt (one per
 * line): strict for p=quarantine or p=reject (sp= for an organizational
 * domain's subdomains); none without exactly one DMARC record */
enum dmarc_policy
dmarc_record_policy(const char *txt, int org)
{
	char rec[DMARC_TXT_MAX], value[32], *p, *line, *found = NULL;
	int n = 0;

	/* the look-up fills at most DMARC_TXT_MAX; longer is cut on purpose */
	(void)strlcpy(rec, txt, sizeof(rec));
	for (p = rec; (line = strsep(&p, "\n")) != NULL;) {
		while (*line == ' ')
			line++;
		if (strncasecmp(line, "v=DMARC1", 8) == 0 &&
		    (line[8] == '\0' || line[8] == ';' || line[8] == ' ')) {
			found = line;
			n++;
		}
	}
	if (n != 1)
		return DMARC_POLICY_NONE; /* RFC 7489 6.6.3: none or several */
	if (!(org && dmarc_tag(found, "sp", value, sizeof(value)) == 0) &&
	    dmarc_tag(found, "p", value, sizeof(value)) == -1)
		return DMARC_POLICY_NONE;
	return strcasecmp(value, "quarantine") == 0 ||
		       strcasecmp(value, "reject") == 0
		   ? DMARC_POLICY_STRICT
		   : DMARC_POLICY_NONE;
}

/* dmarc_lookup - the policy of domain from DNS; ttl for its caching */
static enum dmarc_policy
dmarc_lookup(struct dmarc_cache *c, const char *domain, double *ttl)
{
	char name[NAME_DOMAIN_MAX + 16], txt[DMARC_TXT_MAX], why[256];
	const char *org = dmarc_org_domain(domain);
	unsigned t = 0;
	int r, at_org = 0;

	snprintf(name, sizeof(name), "_dmarc.%s", domain);
	why[0] = '\0';
	if ((r = c->fn(c->arg, name, txt, sizeof(txt), &t, why, sizeof(why))) ==
		0 &&
	    strcasecmp(org, domain) != 0) {
		snprintf(name, sizeof(name), "_dmarc.%s", org);
		at_org = 1;
		r = c->fn(c->arg, name, txt, sizeof(txt), &t, why, sizeof(why));
	}
	if (r == -1) {
		log_warnx("DMARC policy of %s: look-up of %s failed (%s): "
			  "treated as strict for %llds",
		    domain, name, why, c->negative_ttl);
		*ttl = (double)c->negative_ttl;
		return DMARC_POLICY_FAILED;
	}
	*ttl = r == 1 ? (double)t : (double)c->negative_ttl;
	if (*ttl > (double)c->ttl_max)
		*ttl = (double)c->ttl_max;
	return r == 1 ? dmarc_record_policy(txt, at_org) : DMARC_POLICY_NONE;
}

/* dmarc_policy - the policy of domain, cached */
enum dmarc_policy
dmarc_policy(struct dmarc_cache *c, const char *domain, double now)
{
	struct dmarc_entry *e = NULL;
	double ttl;
	size_t i;

	/* No such name in DNS: treated as a failed look-up, not cached. */
	if (strlen(domain) > NAME_DOMAIN_MAX)
		return DMARC_POLICY_FAILED;
	for (i = 0; i < c->n; i++)
		if (strcasecmp(c->e[i].domain, domain) == 0) {
			e = &c->e[i];
			break;
		}
	if (e != NULL && e->expires > now)
		return e->policy;
	if (e == NULL) {
		if (c->n < DMARC_CACHE_MAX)
			e = &c->e[c->n++];
		else {
			e = &c->e[c->next];
			c->next = (c->next + 1) % DMARC_CACHE_MAX;
		}
		(void)strlcpy(e->domain, domain, sizeof(e->domain)); /* fits */
	}
	e->policy = dmarc_lookup(c, domain, &ttl);
	e->expires = now + ttl;
	return e->policy;
}
