/*
 * delivery_conf.h - the runner's sections of mjq.conf: [delivery],
 * [transport:NAME] overrides with the same keys, and [transport_map].
 *
 * A program passes delivery_conf_part to settings_load; keys that
 * belong to the scheduler are handed to sched_params_set as well, so the
 * scheduler's module stays the only one that knows its own keys.
 */
#ifndef MJQ_DELIVERY_CONF_H
#define MJQ_DELIVERY_CONF_H

#include <stddef.h>

#include "conf.h"
#include "settings.h"
#include "delivery_source.h"
#include "sched.h"
#include "smtp.h"

/* The transports; a [transport:NAME] section names one of them. */
enum deliver_transport {
	DELIVER_SMTP,
	DELIVER_PIPE,
	DELIVER_MAILDIR,
	DELIVER_DISCARD,
	DELIVER_NTRANSPORT
};

#define DELIVER_HOST_MAX 256
#define DELIVER_NEXTHOP_MAX 1024
#define DELIVER_PATH_MAX 512

/* One [tls_policy] line: "example.com = verify match=hostname:nexthop";
 * a key with a leading dot covers the subdomains. */
struct delivery_tls_policy {
	char *domain;
	enum smtp_tls_level level;
	char *match; /* "" : the level's default */
};

struct delivery_params {
	char relayhost[DELIVER_HOST_MAX];
	char helo_name[DELIVER_HOST_MAX];
	char dns_server[DELIVER_HOST_MAX];
	long long rcpt_limit;	   /* destination_recipient_limit */
	long long conc_limit;	   /* destination_concurrency_limit */
	long long min_backoff;	   /* minimal_backoff_time */
	long long max_backoff;	   /* maximal_backoff_time */
	long long queue_lifetime;  /* maximal_queue_lifetime */
	long long bounce_lifetime; /* bounce_queue_lifetime */
	long long connect_timeout; /* smtp_connect_timeout */
	long long helo_timeout;	   /* smtp_helo_timeout */
	long long command_timeout; /* smtp_command_timeout */
	long long data_timeout;	   /* smtp_data_timeout */
	long long eod_timeout;	   /* smtp_data_done_timeout */
	long long cache_time;	   /* smtp_connection_cache_time */
	long long pipe_timeout;	   /* pipe_timeout */
	long long threads;	   /* delivery_threads ([delivery] only) */
	int tls_level;		   /* smtp_tls_security_level */
	char tls_cafile[DELIVER_PATH_MAX];
	char tls_cert_file[DELIVER_PATH_MAX];
	char tls_key_file[DELIVER_PATH_MAX];
	char tls_protocols[16];	    /* smtp_tls_protocols: ">=TLSv1.2" */
	long long starttls_timeout; /* smtp_starttls_timeout */
	int dns_dnssec;		    /* smtp_dns_support_level = dnssec */
	int mta_sts;		    /* smtp_mta_sts: MTA-STS (RFC 8461) on */
	char mta_sts_cafile[DELIVER_PATH_MAX];	   /* smtp_mta_sts_CAfile */
	char mta_sts_connect_to[DELIVER_HOST_MAX]; /* smtp_mta_sts_connect_to */
	long long mta_sts_timeout; /* smtp_mta_sts_timeout: a fetch */
	long long mta_sts_wait;	   /* smtp_mta_sts_wait: mail waits for it */
	long long mta_sts_refresh; /* smtp_mta_sts_refresh: TXT re-check */
	/* [tls_policy], set by delivery_conf_finish (shared, read-only) */
	const struct delivery_tls_policy *tls_policy;
	size_t ntls_policy;
};

struct delivery_map {
	char *domain; /* "example.org", ".example.org" or "*" */
	enum deliver_transport transport;
	char *nexthop;
};

struct delivery_override {
	enum deliver_transport transport;
	char *key, *value;
	int line;
};

struct delivery_conf {
	struct delivery_params base;
	struct delivery_params transport[DELIVER_NTRANSPORT];
	struct sched_params sched;
	struct sched_params sched_transport[DELIVER_NTRANSPORT];
	struct delivery_map *map;
	size_t nmap;
	struct delivery_override *over;
	size_t nover;
	struct delivery_tls_policy *tlspol;
	size_t ntlspol;
	struct delivery_sources sources; /* source_pool & co, [delivery] */
	int loaded;
};

extern const char *const delivery_transport_names[DELIVER_NTRANSPORT];

void delivery_conf_init(struct delivery_conf *dc);
struct settings_part delivery_conf_part(struct delivery_conf *dc);
int delivery_conf_finish(struct delivery_conf *dc, char *err, size_t errlen);
void delivery_conf_free(struct delivery_conf *dc);
int delivery_transport_lookup(const char *name, enum deliver_transport *t);
const struct delivery_tls_policy *delivery_tls_policy_find(
    const struct delivery_params *, const char *);

#endif
