/*
 * delivery_conf.c - [delivery], [transport:NAME] and [transport_map].
 *
 * [delivery] keys go to the table below and to the scheduler's
 * sched_params_set; a key either accepts is valid, a key both reject is
 * an error naming file, line and key.  [transport:NAME] sections take the
 * same keys; they are checked where they stand and applied at the end
 * over a copy of [delivery], so the order of sections in the file does
 * not matter.  [tls_policy] names a TLS level (and the names to match)
 * per destination, as Postfix's smtp_tls_policy_maps.  The sending-
 * address pools' keys (source_*) are [delivery]'s alone, read by
 * delivery_source.c; a [transport:NAME] section refuses them.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "delivery_conf.h"
#include "names.h"
#include "spool_dest.h"

const char *const delivery_transport_names[DELIVER_NTRANSPORT] = {
    "smtp",
    "pipe",
    "maildir",
    "discard",
};

#define D(f) offsetof(struct delivery_params, f)
#define DSTR(n, d, f)                                                          \
	{                                                                      \
		n, CONF_STR, d, 0, sizeof(((struct delivery_params *)0)->f),   \
		    D(f), NULL                                                 \
	}
#define DFUNC(n, d, f, fn)                                                     \
	{                                                                      \
		n, CONF_FUNC, d, 0, 0, D(f), fn                                \
	}
#define DDUR(n, d, lo, hi, f)                                                  \
	{                                                                      \
		n, CONF_DURATION, d, lo, hi, D(f), NULL                        \
	}

/* delivery_conf_tls_level - smtp_tls_security_level by name */
static int
delivery_conf_tls_level(const char *text, void *var, char *err, size_t errlen)
{
	enum smtp_tls_level l;

	if (smtp_tls_level_lookup(text, &l) == -1) {
		snprintf(err, errlen,
		    "want none, may, encrypt, dane, verify or secure");
		return -1;
	}
	*(int *)var = (int)l;
	return 0;
}

/* delivery_conf_tls_protocols - ">=TLSv1.2" and the like: the lowest
 * protocol version allowed */
static int
delivery_conf_tls_protocols(
    const char *text, void *var, char *err, size_t errlen)
{
	static const char *const ok[] = {
	    ">=TLSv1", ">=TLSv1.1", ">=TLSv1.2", ">=TLSv1.3"};
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (strcmp(text, ok[i]) == 0) {
			(void)strlcpy(var, text, 16); /* fits: checked above */
			return 0;
		}
	snprintf(
	    err, errlen, "want >=TLSv1, >=TLSv1.1, >=TLSv1.2 or >=TLSv1.3");
	return -1;
}

/* delivery_conf_dns_level - smtp_dns_support_level: enabled or dnssec */
static int
delivery_conf_dns_level(const char *text, void *var, char *err, size_t errlen)
{
	if (strcmp(text, "enabled") != 0 && strcmp(text, "dnssec") != 0) {
		snprintf(err, errlen, "want enabled or dnssec");
		return -1;
	}
	*(int *)var = strcmp(text, "dnssec") == 0;
	return 0;
}

static const struct conf_key delivery_keys[] = {
    DSTR("relayhost", "", relayhost),
    DSTR("smtp_helo_name", "", helo_name),
    DSTR("dns_server", "", dns_server),
    {"destination_recipient_limit", CONF_INT, "50", 1, 100000, D(rcpt_limit),
	NULL},
    {"destination_concurrency_limit", CONF_INT, "20", 1, 10000, D(conc_limit),
	NULL},
    DDUR("minimal_backoff_time", "300s", 1, 86400 * 30LL, min_backoff),
    DDUR("maximal_backoff_time", "4000s", 1, 86400 * 30LL, max_backoff),
    DDUR("maximal_queue_lifetime", "5d", 0, 86400 * 100LL, queue_lifetime),
    DDUR("bounce_queue_lifetime", "5d", 0, 86400 * 100LL, bounce_lifetime),
    DDUR("smtp_connect_timeout", "30s", 1, 3600, connect_timeout),
    DDUR("smtp_helo_timeout", "300s", 1, 3600, helo_timeout),
    DDUR("smtp_command_timeout", "300s", 1, 3600, command_timeout),
    DDUR("smtp_data_timeout", "180s", 1, 3600, data_timeout),
    DDUR("smtp_data_done_timeout", "600s", 1, 3600, eod_timeout),
    DDUR("smtp_connection_cache_time", "2s", 0, 300, cache_time),
    DDUR("pipe_timeout", "1000s", 1, 86400, pipe_timeout),
    {"delivery_threads", CONF_INT, "64", 1, 1000, D(threads), NULL},
    DFUNC("smtp_tls_security_level", "may", tls_level, delivery_conf_tls_level),
    DSTR("smtp_tls_CAfile", "", tls_cafile),
    DSTR("smtp_tls_cert_file", "", tls_cert_file),
    DSTR("smtp_tls_key_file", "", tls_key_file),
    DFUNC("smtp_tls_protocols", ">=TLSv1.2", tls_protocols,
	delivery_conf_tls_protocols),
    DDUR("smtp_starttls_timeout", "300s", 1, 3600, starttls_timeout),
    DFUNC("smtp_dns_support_level", "enabled", dns_dnssec,
	delivery_conf_dns_level),
    {"smtp_mta_sts", CONF_BOOL, "yes", 0, 1, D(mta_sts), NULL},
    DSTR("smtp_mta_sts_CAfile", "", mta_sts_cafile),
    DSTR("smtp_mta_sts_connect_to", "", mta_sts_connect_to),
    DDUR("smtp_mta_sts_timeout", "10s", 1, 300, mta_sts_timeout),
    DDUR("smtp_mta_sts_wait", "2s", 0, 60, mta_sts_wait),
    DDUR("smtp_mta_sts_refresh", "1h", 1, 86400, mta_sts_refresh),
};
#define NKEYS (sizeof(delivery_keys) / sizeof(delivery_keys[0]))

/* delivery_transport_lookup - a transport by name */
int
delivery_transport_lookup(const char *name, enum deliver_transport *t)
{
	int i;

	for (i = 0; i < DELIVER_NTRANSPORT; i++)
		if (strcmp(name, delivery_transport_names[i]) == 0) {
			*t = (enum deliver_transport)i;
			return 0;
		}
	return -1;
}

/* delivery_conf_hostname - the default EHLO name: the host name */
static void
delivery_conf_hostname(char *buf, size_t len)
{
	if (gethostname(buf, len) == -1 || buf[0] == '\0')
		(void)strlcpy(buf, "localhost", len);
	buf[len - 1] = '\0';
}

/* delivery_conf_init - every default; the helo name is the host name */
void
delivery_conf_init(struct delivery_conf *dc)
{
	memset(dc, 0, sizeof(*dc));
	conf_defaults(delivery_keys, NKEYS, &dc->base);
	delivery_conf_hostname(dc->base.helo_name, sizeof(dc->base.helo_name));
	sched_params_defaults(&dc->sched);
}

/* delivery_conf_nexthop - an smtp nexthop the client can use, or -1 and
 * why (relayhost, [transport_map]) */
static int
delivery_conf_nexthop(const char *nexthop, char *err, size_t errlen)
{
	if (mx_nexthop_check(nexthop) == 0)
		return 0;
	snprintf(err, errlen,
	    "bad smtp nexthop \"%s\": want [host]:port, [host], host:port or "
	    "host",
	    nexthop);
	return -1;
}

/* delivery_conf_set - one [delivery]-style key into both tables; 0, -1
 * bad value, -2 neither knows it */
static int
delivery_conf_set(struct delivery_params *p, struct sched_params *sp,
    const char *key, const char *value, char *err, size_t errlen)
{
	int r1, r2;

	/* Empty means the default, as for the other keys: the host name (never
	 * "EHLO " with nothing). */
	if (strcmp(key, "smtp_helo_name") == 0 && *value == '\0') {
		delivery_conf_hostname(p->helo_name, sizeof(p->helo_name));
		return 0;
	}
	if (strcmp(key, "relayhost") == 0 && *value != '\0' &&
	    delivery_conf_nexthop(value, err, errlen) == -1)
		return -1;
	if ((r1 = conf_set(delivery_keys, NKEYS, p, key, value, err, errlen)) ==
	    -1)
		return -1;
	if ((r2 = sched_params_set(sp, key, value, err, errlen)) == -1)
		return -1;
	/* The shared table tracks this many deliveries per destination. */
	if (strcmp(key, "destination_concurrency_limit") == 0 &&
	    sp->concurrency_limit > SPOOL_DEST_SLOTS) {
		snprintf(err, errlen,
		    "must be at most %d, the deliveries in flight per "
		    "destination that the runners' shared table holds",
		    SPOOL_DEST_SLOTS);
		return -1;
	}
	if (r1 == -2 && r2 == -2) {
		snprintf(err, errlen, "unknown key");
		return -2;
	}
	return 0;
}

/* delivery_pair_delivery - a key of [delivery] */
static int
delivery_pair_delivery(void *arg, const char *section, const char *key,
    const char *value, char *err, size_t errlen)
{
	struct delivery_conf *dc = arg;
	int r;

	(void)section;
	if ((r = delivery_sources_set(&dc->sources, key, value, err, errlen)) !=
	    -2)
		return r;
	return delivery_conf_set(
	    &dc->base, &dc->sched, key, value, err, errlen);
}

/* delivery_pair_transport - a key of [transport:NAME]: checked now on
 * scratch tables, kept to be applied by delivery_conf_finish */
static int
delivery_pair_transport(void *arg, const char *section, const char *key,
    const char *value, char *err, size_t errlen)
{
	struct delivery_conf *dc = arg;
	struct delivery_params scratch;
	struct sched_params sscratch;
	struct delivery_override *o;
	enum deliver_transport t;
	int r;

	if (delivery_transport_lookup(section + 10, &t) == -1) {
		snprintf(err, errlen, "unknown transport");
		return -1;
	}
	if (strncmp(key, "source_", 7) == 0) {
		snprintf(err, errlen,
		    "sending-address pools belong in "
		    "[delivery]");
		return -1;
	}
	scratch = dc->base;
	sscratch = dc->sched;
	if ((r = delivery_conf_set(
		 &scratch, &sscratch, key, value, err, errlen)) != 0)
		return r;
	if ((o = reallocarray(dc->over, dc->nover + 1, sizeof(*o))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	dc->over = o;
	o += dc->nover;
	o->transport = t;
	if ((o->key = strdup(key)) == NULL ||
	    (o->value = strdup(value)) == NULL) {
		free(o->key);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	dc->nover++;
	return 0;
}

/* delivery_map_parse - "smtp:[host]:port", "smtp:host", "pipe:/cmd
 * args", "maildir:/path", "discard:" into a transport and nexthop */
static int
delivery_map_parse(const char *value, enum deliver_transport *t, char *nexthop,
    size_t len, char *err, size_t errlen)
{
	const char *colon = strchr(value, ':');
	char name[16];

	if (colon == NULL || (size_t)(colon - value) >= sizeof(name)) {
		snprintf(err, errlen, "want transport:nexthop");
		return -1;
	}
	memcpy(name, value, colon - value);
	name[colon - value] = '\0';
	if (delivery_transport_lookup(name, t) == -1) {
		snprintf(err, errlen,
		    "unknown transport \"%s\" (smtp, pipe, maildir, discard)",
		    name);
		return -1;
	}
	if (strlcpy(nexthop, colon + 1, len) >= len) {
		snprintf(err, errlen, "nexthop too long");
		return -1;
	}
	if ((*t == DELIVER_PIPE || *t == DELIVER_MAILDIR) &&
	    nexthop[0] != '/') {
		snprintf(err, errlen, "%s wants an absolute path", name);
		return -1;
	}
	if (*t == DELIVER_SMTP && nexthop[0] == '\0') {
		snprintf(err, errlen, "smtp wants a host");
		return -1;
	}
	if (*t == DELIVER_SMTP)
		return delivery_conf_nexthop(nexthop, err, errlen);
	return 0;
}

/* delivery_pair_map - one "domain = transport:nexthop" */
static int
delivery_pair_map(void *arg, const char *section, const char *key,
    const char *value, char *err, size_t errlen)
{
	struct delivery_conf *dc = arg;
	struct delivery_map *m;
	char nexthop[DELIVER_NEXTHOP_MAX];
	enum deliver_transport t;
	const char *why;

	(void)section;
	if (strcmp(key, "*") != 0 &&
	    (why = name_check_domain(key[0] == '.' ? key + 1 : key)) != NULL) {
		snprintf(err, errlen, "bad domain: %s", why);
		return -1;
	}
	if (delivery_map_parse(
		value, &t, nexthop, sizeof(nexthop), err, errlen) == -1)
		return -1;
	if ((m = reallocarray(dc->map, dc->nmap + 1, sizeof(*m))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	dc->map = m;
	m += dc->nmap;
	m->transport = t;
	if ((m->domain = strdup(key)) == NULL ||
	    (m->nexthop = strdup(nexthop)) == NULL) {
		free(m->domain);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	dc->nmap++;
	return 0;
}

/* delivery_pair_tls_policy - one "domain = level [match=...]" */
static int
delivery_pair_tls_policy(void *arg, const char *section, const char *key,
    const char *value, char *err, size_t errlen)
{
	struct delivery_conf *dc = arg;
	struct delivery_tls_policy *tp;
	char match[SMTP_TLS_MATCH_MAX];
	enum smtp_tls_level level;
	const char *why;

	(void)section;
	if ((why = name_check_domain(key[0] == '.' ? key + 1 : key)) != NULL) {
		snprintf(err, errlen, "bad domain: %s", why);
		return -1;
	}
	if (smtp_tls_policy_parse(
		value, &level, match, sizeof(match), err, errlen) == -1)
		return -1;
	if ((tp = reallocarray(dc->tlspol, dc->ntlspol + 1, sizeof(*tp))) ==
	    NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	dc->tlspol = tp;
	tp += dc->ntlspol;
	tp->level = level;
	if ((tp->domain = strdup(key)) == NULL ||
	    (tp->match = strdup(match)) == NULL) {
		free(tp->domain);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	dc->ntlspol++;
	return 0;
}

/* delivery_tls_policy_find - the [tls_policy] line for a nexthop's
 * domain ("[host]:port" looks up host): the exact domain first, then
 * ".parent" lines from the nearest parent up; NULL for none */
const struct delivery_tls_policy *
delivery_tls_policy_find(const struct delivery_params *p, const char *nexthop)
{
	char dom[DELIVER_HOST_MAX];
	const char *d, *end;
	size_t i, len;

	if (*nexthop == '[')
		nexthop++;
	end = nexthop + strcspn(nexthop, "]:");
	if ((len = end - nexthop) == 0 || len >= sizeof(dom))
		return NULL;
	memcpy(dom, nexthop, len);
	dom[len] = '\0';
	for (i = 0; i < p->ntls_policy; i++)
		if (strcasecmp(p->tls_policy[i].domain, dom) == 0)
			return &p->tls_policy[i];
	for (d = strchr(dom, '.'); d != NULL; d = strchr(d + 1, '.'))
		for (i = 0; i < p->ntls_policy; i++)
			if (strcasecmp(p->tls_policy[i].domain, d) == 0)
				return &p->tls_policy[i];
	return NULL;
}

/* delivery_conf_section - the runner's sections, one by one; -1 for
 * another */
static int
delivery_conf_section(void *arg, const char *section, struct conf_section *out,
    char *err, size_t errlen)
{
	struct delivery_conf *dc = arg;

	out->pair_arg = dc;
	if (strcmp(section, "delivery") == 0)
		out->pair = delivery_pair_delivery;
	else if (strcmp(section, "transport_map") == 0)
		out->pair = delivery_pair_map;
	else if (strcmp(section, "tls_policy") == 0)
		out->pair = delivery_pair_tls_policy;
	else if (strncmp(section, "transport:", 10) == 0)
		out->pair = delivery_pair_transport;
	else {
		snprintf(err, errlen, "unknown section");
		return -1;
	}
	return 0;
}

/* delivery_conf_part - the runner's sections for settings_load, their
 * values into dc (delivery_conf_init first, delivery_conf_finish after) */
struct settings_part
delivery_conf_part(struct delivery_conf *dc)
{
	struct settings_part p = {NULL, 0, NULL, 0, delivery_conf_section, dc};

	return p;
}

/* delivery_conf_finish - apply the transport overrides over [delivery]
 * and hand the per-transport scheduler parameters their values */
int
delivery_conf_finish(struct delivery_conf *dc, char *err, size_t errlen)
{
	size_t i;
	int t;

	for (t = 0; t < DELIVER_NTRANSPORT; t++) {
		dc->transport[t] = dc->base;
		dc->sched_transport[t] = dc->sched;
	}
	for (i = 0; i < dc->nover; i++) {
		struct delivery_override *o = &dc->over[i];
		if (delivery_conf_set(&dc->transport[o->transport],
			&dc->sched_transport[o->transport], o->key, o->value,
			err, errlen) != 0)
			return -1;
	}
	for (t = 0; t < DELIVER_NTRANSPORT; t++) {
		struct delivery_params *p = &dc->transport[t];
		struct sched_params *sp = &dc->sched_transport[t];
		/* As Postfix's qmgr_transport_create: a destination never
		 * starts above its limit. */
		if (sp->concurrency_limit > 0 &&
		    sp->initial_concurrency > sp->concurrency_limit)
			sp->initial_concurrency = sp->concurrency_limit;
		p->tls_policy = dc->tlspol;
		p->ntls_policy = dc->ntlspol;
		if (p->min_backoff > p->max_backoff) {
			snprintf(err, errlen,
			    "minimal_backoff_time is above "
			    "maximal_backoff_time");
			return -1;
		}
	}
	if (delivery_sources_finish(&dc->sources, err, errlen) == -1)
		return -1;
	dc->loaded = 1;
	return 0;
}

/* delivery_conf_free - free the map and the overrides */
void
delivery_conf_free(struct delivery_conf *dc)
{
	size_t i;

	for (i = 0; i < dc->nmap; i++) {
		free(dc->map[i].domain);
		free(dc->map[i].nexthop);
	}
	for (i = 0; i < dc->nover; i++) {
		free(dc->over[i].key);
		free(dc->over[i].value);
	}
	for (i = 0; i < dc->ntlspol; i++) {
		free(dc->tlspol[i].domain);
		free(dc->tlspol[i].match);
	}
	free(dc->tlspol);
	delivery_sources_free(&dc->sources);
	dc->tlspol = NULL;
	dc->ntlspol = 0;
	free(dc->map);
	free(dc->over);
	dc->map = NULL;
	dc->over = NULL;
	dc->nmap = dc->nover = 0;
}
