/*
 * settings.c - the shared sections of mjq.conf, and the loading of the
 * file with the sections of the parts a program passes.
 *
 * One table per section; each row is a key, its type, its default (text,
 * parsed like the file), its range and its place in struct settings (or
 * in a part's own struct).  mjq.conf(5), docs/mjq.conf.5, documents
 * these rows.  A section is looked up in the shared tables, then in
 * each part's tables, then by each part's section function; one that no
 * part claims is an error naming file, line, section and key, unless it
 * is a delivery section (accepted unchecked: settings_skip_section).
 */
#include <stddef.h>
#include <string.h>

#include "settings.h"

#define S(f) offsetof(struct settings, f)
#define STRKEY(n, d, f) CONF_STRKEY(struct settings, n, d, f)

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

static const struct settings_table settings_tables[] = {
    SETTINGS_TABLE("spool", spool_keys),
    SETTINGS_TABLE("lists", lists_keys),
    SETTINGS_TABLE("enqueue", enqueue_keys),
    SETTINGS_TABLE("queueserv", queueserv_keys),
    SETTINGS_TABLE("queuerun", queuerun_keys),
};
#define NTABLES (sizeof(settings_tables) / sizeof(settings_tables[0]))

struct settings_ctx {
	struct settings_part shared; /* the tables above, into the settings */
	const struct settings_part *parts;
	size_t nparts;
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

/* settings_skip_section - a delivery section that no part claims:
 * accepted unchecked (mj_queueserv's runners check it); so is [archive]
 * (mj_archive checks it, archive/archive_settings.c) */
static int
settings_skip_section(const char *section, struct conf_section *out)
{
	if (strcmp(section, "delivery") == 0 ||
	    strcmp(section, "transport_map") == 0 ||
	    strcmp(section, "tls_policy") == 0 ||
	    strcmp(section, "archive") == 0 ||
	    strncmp(section, "transport:", 10) == 0) {
		out->pair = settings_skip_pair;
		return 0;
	}
	return -1;
}

/* settings_part_table - section as one of the part's tables: 0, or -1
 * when the part has no such table */
static int
settings_part_table(const struct settings_part *p, const char *section,
    struct conf_section *out)
{
	size_t i;

	for (i = 0; i < p->ntables; i++)
		if (strcmp(section, p->tables[i].section) == 0) {
			out->keys = p->tables[i].keys;
			out->nkeys = p->tables[i].nkeys;
			out->base = p->base;
			return 0;
		}
	return -1;
}

/* settings_section - map a section name to its table or its part */
static int
settings_section(void *arg, const char *section, struct conf_section *out,
    char *err, size_t errlen)
{
	struct settings_ctx *ctx = arg;
	const struct settings_part *p, *end = ctx->parts + ctx->nparts;

	if (settings_part_table(&ctx->shared, section, out) == 0)
		return 0;
	for (p = ctx->parts; p < end; p++)
		if (settings_part_table(p, section, out) == 0)
			return 0;
	for (p = ctx->parts; p < end; p++) {
		memset(out, 0, sizeof(*out));
		if (p->section != NULL &&
		    p->section(p->section_arg, section, out, err, errlen) == 0)
			return 0;
	}
	memset(out, 0, sizeof(*out));
	if (settings_skip_section(section, out) == 0)
		return 0;
	snprintf(err, errlen, "unknown section");
	return -1;
}

/* settings_part_defaults - every key of a part's tables to its default,
 * the rest of its struct zero */
static int
settings_part_defaults(const struct settings_part *p, char *err, size_t errlen)
{
	size_t i;

	if (p->size > 0)
		memset(p->base, 0, p->size);
	for (i = 0; i < p->ntables; i++)
		if (conf_defaults(
			p->tables[i].keys, p->tables[i].nkeys, p->base) == -1) {
			snprintf(err, errlen,
			    "internal error: bad default in [%s]",
			    p->tables[i].section);
			return -1;
		}
	return 0;
}

/* settings_start - the context of a load, every key at its default */
static int
settings_start(struct settings_ctx *ctx, struct settings *s,
    const struct settings_part *parts, size_t nparts, char *err, size_t errlen)
{
	size_t i;

	memset(ctx, 0, sizeof(*ctx));
	ctx->shared.tables = settings_tables;
	ctx->shared.ntables = NTABLES;
	ctx->shared.base = s;
	ctx->shared.size = sizeof(*s);
	ctx->parts = parts;
	ctx->nparts = nparts;
	if (settings_part_defaults(&ctx->shared, err, errlen) == -1)
		return -1;
	for (i = 0; i < nparts; i++)
		if (settings_part_defaults(&parts[i], err, errlen) == -1)
			return -1;
	return 0;
}

/* settings_load - defaults, then the file (missing is fine if allowed) */
int
settings_load(struct settings *s, const struct settings_part *parts,
    size_t nparts, const char *path, int missing_ok, char *err, size_t errlen)
{
	struct settings_ctx ctx;

	if (settings_start(&ctx, s, parts, nparts, err, errlen) == -1)
		return -1;
	if (strlcpy(s->config_file, path, sizeof(s->config_file)) >=
	    sizeof(s->config_file)) {
		snprintf(err, errlen, "%s: path too long", path);
		return -1;
	}
	return conf_load(path, missing_ok, settings_section, &ctx, err, errlen);
}

/* settings_load_file - defaults, then an open stream named label */
int
settings_load_file(struct settings *s, const struct settings_part *parts,
    size_t nparts, FILE *fp, const char *label, char *err, size_t errlen)
{
	struct settings_ctx ctx;

	if (settings_start(&ctx, s, parts, nparts, err, errlen) == -1)
		return -1;
	return conf_load_file(fp, label, settings_section, &ctx, err, errlen);
}
