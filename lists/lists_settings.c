/*
 * lists_settings.c - the list sections of mjq.conf: one table per
 * section, each row a key, its type, its default (text, parsed like the
 * file), its range and its place in struct lists_settings.  Loaded with
 * the shared sections by common/settings.c, in the one reading of the
 * file.  Nothing here calls the rest of liblists (mj_enqueue links this
 * object alone, to accept and check these sections).
 */
#include <stddef.h>

#include "lists_settings.h"

#define S(f) offsetof(struct lists_settings, f)
#define STRKEY(n, d, f) CONF_STRKEY(struct lists_settings, n, d, f)

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

static const struct conf_key tlsrpt_keys[] = {
    {"enable", CONF_BOOL, "no", 0, 1, S(tlsrpt_enable), NULL},
    STRKEY("from", "", tlsrpt_from),
    STRKEY("organization", "", tlsrpt_organization),
    STRKEY("contact", "", tlsrpt_contact),
};

static const struct settings_table lists_settings_tables[] = {
    SETTINGS_TABLE("request", request_keys),
    SETTINGS_TABLE("dkim", dkim_keys),
    SETTINGS_TABLE("arc", arc_keys),
    SETTINGS_TABLE("dmarc", dmarc_keys),
    SETTINGS_TABLE("unsubscribe", unsubscribe_keys),
    SETTINGS_TABLE("tlsrpt", tlsrpt_keys),
};

/* lists_settings_part - the list sections for settings_load, their
 * values into ls */
struct settings_part
lists_settings_part(struct lists_settings *ls)
{
	struct settings_part p = {lists_settings_tables,
	    sizeof(lists_settings_tables) / sizeof(lists_settings_tables[0]),
	    ls, sizeof(*ls), NULL, NULL};

	return p;
}
