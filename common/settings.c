/*
 * settings.c - the schema of mjq.conf and its loading.
 *
 * One table per section; each row is a key, its type, its default (text,
 * parsed like the file), its range and its place in struct settings.  The
 * README's configuration table is written from these rows.
 */
#include <stddef.h>
#include <string.h>

#include "settings.h"

#define S(f) offsetof(struct settings, f)
#define STRKEY(n, d, f)                                                        \
	{                                                                      \
		n, CONF_STR, d, 0, sizeof(((struct settings *)0)->f), S(f),    \
		    NULL                                                       \
	}

static const struct conf_key spool_keys[] = {
    STRKEY("dir", "/var/spool/mjq", spool_dir),
};

static const struct conf_key lists_keys[] = {
    STRKEY("dir", "/var/lib/mjq/lists", lists_dir),
};

static const struct conf_key enqueue_keys[] = {
    {"max_message_size", CONF_SIZE, "10M", 1, 1LL << 40,
	S(enqueue_max_message_size), NULL},
    {"start_server", CONF_BOOL, "yes", 0, 1, S(enqueue_start_server), NULL},
    {"poke_timeout_ms", CONF_INT, "200", 1, 10000, S(enqueue_poke_timeout_ms),
	NULL},
};

static const struct conf_key queueserv_keys[] = {
    STRKEY("user", "", queueserv_user),
    STRKEY("socket_group", "", queueserv_socket_group),
    {"socket_mode", CONF_MODE, "0660", 0, 0777, S(queueserv_socket_mode), NULL},
    {"min_runners", CONF_INT, "0", 0, 1000, S(queueserv_min_runners), NULL},
    {"max_runners", CONF_INT, "4", 1, 1000, S(queueserv_max_runners), NULL},
    {"queue_run_delay", CONF_DURATION, "60s", 1, 86400,
	S(queueserv_queue_run_delay), NULL},
    {"runner_idle_timeout", CONF_DURATION, "120s", 1, 86400,
	S(queueserv_runner_idle_timeout), NULL},
    {"runner_max_messages", CONF_INT, "1000", 1, 100000000,
	S(queueserv_runner_max_messages), NULL},
    {"runner_hang_timeout", CONF_DURATION, "300s", 1, 86400,
	S(queueserv_runner_hang_timeout), NULL},
    {"handshake_timeout_ms", CONF_INT, "250", 1, 60000,
	S(queueserv_handshake_timeout_ms), NULL},
    {"shutdown_timeout", CONF_DURATION, "30s", 0, 3600,
	S(queueserv_shutdown_timeout), NULL},
    {"tmp_max_age", CONF_DURATION, "1d", 60, 365 * 86400LL,
	S(queueserv_tmp_max_age), NULL},
    STRKEY("runner_program", "", queueserv_runner_program),
    {"runner_kill_timeout", CONF_DURATION, "10s", 1, 3600,
	S(queueserv_runner_kill_timeout), NULL},
    {"client_timeout_ms", CONF_INT, "5000", 10, 600000,
	S(queueserv_client_timeout_ms), NULL},
    {"max_clients", CONF_INT, "128", 1, 10000, S(queueserv_max_clients), NULL},
};

static const struct conf_key queuerun_keys[] = {
    {"starvation_age", CONF_DURATION, "10m", 0, 365 * 86400LL,
	S(queuerun_starvation_age), NULL},
    {"active_limit", CONF_INT, "100", 1, 100000, S(queuerun_active_limit),
	NULL},
    {"max_crashes", CONF_INT, "3", 1, 1000, S(queuerun_max_crashes), NULL},
};

static const struct conf_key request_keys[] = {
    {"token_lifetime", CONF_DURATION, "7d", 60, 90 * 86400LL,
	S(request_token_lifetime), NULL},
    {"reply_rate_limit", CONF_INT, "10", 0, 100000, S(request_reply_rate_limit),
	NULL},
    {"reply_rate_period", CONF_DURATION, "1h", 60, 7 * 86400LL,
	S(request_reply_rate_period), NULL},
};

static const struct conf_key dkim_keys[] = {
    {"sign", CONF_BOOL, "yes", 0, 1, S(dkim_sign), NULL},
    STRKEY("key_dir", "", dkim_key_dir),
    STRKEY("selectors", "mjq", dkim_selectors),
    STRKEY("ed25519_selector", "", dkim_ed25519_selector),
};

static const struct conf_key arc_keys[] = {
    {"seal", CONF_BOOL, "yes", 0, 1, S(arc_seal), NULL},
    STRKEY("trusted_authserv_ids", "", arc_trusted_authserv_ids),
};

static const struct conf_key dmarc_keys[] = {
    {"cache_ttl_max", CONF_DURATION, "1h", 0, 7 * 86400LL,
	S(dmarc_cache_ttl_max), NULL},
    {"negative_ttl", CONF_DURATION, "5m", 0, 86400, S(dmarc_negative_ttl),
	NULL},
};

static const struct conf_key unsubscribe_keys[] = {
    STRKEY("secret_file", "/var/lib/mjq/unsubscribe.secret",
	unsubscribe_secret_file),
    {"token_lifetime", CONF_DURATION, "60d", 86400, 3650 * 86400LL,
	S(unsubscribe_token_lifetime), NULL},
    {"address_requests_per_hour", CONF_INT, "5", 0, 1000000,
	S(unsubscribe_address_per_hour), NULL},
    {"requests_per_minute", CONF_INT, "300", 0, 1000000,
	S(unsubscribe_per_minute), NULL},
};

static const struct conf_key cluster_keys[] = {
    STRKEY("redis", "", cluster_redis),
    STRKEY("password", "", cluster_password),
    STRKEY("node_name", "", cluster_node),
    {"lease_time", CONF_DURATION, "30s", 2, 3600, S(cluster_lease_time), NULL},
    {"expected_nodes", CONF_INT, "1", 1, 1000, S(cluster_expected_nodes), NULL},
    {"timeout_ms", CONF_INT, "250", 10, 60000, S(cluster_timeout_ms), NULL},
};

#define TABLE(name, keys)                                                      \
	{                                                                      \
		name, keys, sizeof(keys) / sizeof(keys[0])                     \
	}
static const struct settings_table {
	const char *section;
	const struct conf_key *keys;
	size_t nkeys;
} settings_tables[] = {
    TABLE("spool", spool_keys),
    TABLE("lists", lists_keys),
    TABLE("enqueue", enqueue_keys),
    TABLE("queueserv", queueserv_keys),
    TABLE("queuerun", queuerun_keys),
    TABLE("request", request_keys),
    TABLE("dkim", dkim_keys),
    TABLE("arc", arc_keys),
    TABLE("dmarc", dmarc_keys),
    TABLE("unsubscribe", unsubscribe_keys),
    TABLE("cluster", cluster_keys),
};
#define NTABLES (sizeof(settings_tables) / sizeof(settings_tables[0]))

struct settings_ctx {
	struct settings *s;
	conf_section_fn *other;
	void *other_arg;
};

/* settings_skip_pair - accept any key of a section this program ignores */
static int
settings_skip_pair(void *arg, const char *section, const char *key,
    const char *value, char *err, size_t errlen)
{
	(void)arg, (void)section, (void)key, (void)value, (void)err,
	    (void)errlen;
	return 0;
}

/* settings_skip_section - the delivery sections, for a program without
 * use for them: accepted unchecked (mj_queueserv checks them) */
int
settings_skip_section(void *arg, const char *section, struct conf_section *out,
    char *err, size_t errlen)
{
	(void)arg;
	if (strcmp(section, "delivery") == 0 ||
	    strcmp(section, "transport_map") == 0 ||
	    strcmp(section, "tls_policy") == 0 ||
	    strncmp(section, "transport:", 10) == 0) {
		out->pair = settings_skip_pair;
		return 0;
	}
	snprintf(err, errlen, "unknown section");
	return -1;
}

/* settings_section - map a section name to its table */
static int
settings_section(void *arg, const char *section, struct conf_section *out,
    char *err, size_t errlen)
{
	struct settings_ctx *ctx = arg;
	size_t i;

	for (i = 0; i < NTABLES; i++) {
		if (strcmp(section, settings_tables[i].section) == 0) {
			out->keys = settings_tables[i].keys;
			out->nkeys = settings_tables[i].nkeys;
			out->base = ctx->s;
			return 0;
		}
	}
	if (ctx->other != NULL)
		return ctx->other(ctx->other_arg, section, out, err, errlen);
	return settings_skip_section(NULL, section, out, err, errlen);
}

/* settings_defaults - every key of every section to its default */
static int
settings_defaults(struct settings *s, char *err, size_t errlen)
{
	size_t i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < NTABLES; i++)
		if (conf_defaults(settings_tables[i].keys,
			settings_tables[i].nkeys, s) == -1) {
			snprintf(err, errlen,
			    "internal error: bad default in "
			    "[%s]",
			    settings_tables[i].section);
			return -1;
		}
	return 0;
}

/* settings_load - defaults, then the file (missing is fine if allowed) */
int
settings_load(struct settings *s, const char *path, int missing_ok,
    conf_section_fn *other, void *other_arg, char *err, size_t errlen)
{
	struct settings_ctx ctx = {s, other, other_arg};

	if (settings_defaults(s, err, errlen) == -1)
		return -1;
	return conf_load(path, missing_ok, settings_section, &ctx, err, errlen);
}

/* settings_load_file - defaults, then an open stream named label */
int
settings_load_file(struct settings *s, FILE *fp, const char *label,
    conf_section_fn *other, void *other_arg, char *err, size_t errlen)
{
	struct settings_ctx ctx = {s, other, other_arg};

	if (settings_defaults(s, err, errlen) == -1)
		return -1;
	return conf_load_file(fp, label, settings_section, &ctx, err, errlen);
}
