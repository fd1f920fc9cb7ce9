/*
 * conf.c - table-driven INI configuration on inih.
 *
 * inih does the tokenizing; this file maps sections to key tables, parses
 * and range-checks values, and words the errors.  Lines are read through
 * our own reader so that an over-long line is an error at its own line
 * number instead of being split by inih's fixed buffer into bogus lines.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ini.h>

#include "conf.h"

struct conf_ctx {
	FILE *fp;
	const char *label;
	conf_section_fn *section_fn;
	void *section_arg;
	char cur_section[128];
	int have_section;
	struct conf_section sec;
	int lineno;
	int overlong;
	char *err;
	size_t errlen;
	int failed; /* line of the first error we worded, or 0 */
};

/* conf_parse_bool - yes/no, true/false, on/off, 1/0 */
static int
conf_parse_bool(const char *text, int *out)
{
	static const char *yes[] = {"yes", "true", "on", "1"};
	static const char *no[] = {"no", "false", "off", "0"};
	size_t i;

	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (strcasecmp(text, yes[i]) == 0) {
			*out = 1;
			return 0;
		}
		if (strcasecmp(text, no[i]) == 0) {
			*out = 0;
			return 0;
		}
	}
	return -1;
}

/* conf_parse_scaled - a non-negative integer with an optional unit */
static int
conf_parse_scaled(const char *text, long long *out, const char *const *units,
    const long long *scale, size_t nunits)
{
	char *end;
	long long v;
	size_t i;

	if (!isdigit((unsigned char)*text))
		return -1;
	errno = 0;
	v = strtoll(text, &end, 10);
	if (errno != 0)
		return -1;
	if (*end == '\0') {
		*out = v;
		return 0;
	}
	for (i = 0; i < nunits; i++) {
		if (strcasecmp(end, units[i]) == 0) {
			if (v > LLONG_MAX / scale[i])
				return -1;
			*out = v * scale[i];
			return 0;
		}
	}
	return -1;
}

/* conf_parse_duration - seconds, or a number with s, m, h, d or w */
static int
conf_parse_duration(const char *text, long long *out)
{
	static const char *const units[] = {"s", "m", "h", "d", "w"};
	static const long long scale[] = {1, 60, 3600, 86400, 604800};

	return conf_parse_scaled(text, out, units, scale, 5);
}

/* conf_parse_size - bytes, or a number with k, m, g (optionally ...b) */
static int
conf_parse_size(const char *text, long long *out)
{
	static const char *const units[] = {
	    "b", "k", "kb", "m", "mb", "g", "gb"};
	static const long long scale[] = {
	    1, 1024, 1024, 1048576, 1048576, 1073741824LL, 1073741824LL};

	return conf_parse_scaled(text, out, units, scale, 7);
}

/* conf_find - the table entry for a key name, or NULL */
static const struct conf_key *
conf_find(const struct conf_key *keys, size_t nkeys, const char *name)
{
	size_t i;

	for (i = 0; i < nkeys; i++)
		if (strcmp(keys[i].name, name) == 0)
			return &keys[i];
	return NULL;
}

/* conf_check_range - a parsed number against the key's bounds */
static int
conf_check_range(
    const struct conf_key *k, long long v, char *err, size_t errlen)
{
	if (v < k->min || v > k->max) {
		snprintf(err, errlen, "value %lld out of range [%lld, %lld]", v,
		    k->min, k->max);
		return -1;
	}
	return 0;
}

/* conf_store - parse one value into its place in the struct */
static int
conf_store(const struct conf_key *k, void *base, const char *value, char *err,
    size_t errlen)
{
	void *var = (char *)base + k->off;
	long long v;
	char *end;
	int b;

	switch (k->type) {
	case CONF_STR:
		if (strlcpy(var, value, (size_t)k->max) >= (size_t)k->max) {
			snprintf(err, errlen, "value longer than %lld bytes",
			    k->max - 1);
			return -1;
		}
		return 0;
	case CONF_INT:
		errno = 0;
		v = strtoll(value, &end, 10);
		if (errno != 0 || end == value || *end != '\0') {
			snprintf(
			    err, errlen, "'%s' is not a whole number", value);
			return -1;
		}
		break;
	case CONF_BOOL:
		if (conf_parse_bool(value, &b) == -1) {
			snprintf(err, errlen, "'%s' is not yes or no", value);
			return -1;
		}
		*(int *)var = b;
		return 0;
	case CONF_SIZE:
		if (conf_parse_size(value, &v) == -1) {
			snprintf(err, errlen,
			    "'%s' is not a size (bytes, or with k, M, G)",
			    value);
			return -1;
		}
		break;
	case CONF_DURATION:
		if (conf_parse_duration(value, &v) == -1) {
			snprintf(err, errlen,
			    "'%s' is not a duration (seconds, or with s, m, "
			    "h, d, w)",
			    value);
			return -1;
		}
		break;
	case CONF_MODE:
		errno = 0;
		v = strtoll(value, &end, 8);
		if (errno != 0 || end == value || *end != '\0') {
			snprintf(
			    err, errlen, "'%s' is not an octal mode", value);
			return -1;
		}
		if (conf_check_range(k, v, err, errlen) == -1)
			return -1;
		*(int *)var = (int)v;
		return 0;
	case CONF_FUNC:
		return k->parse(value, var, err, errlen);
	default:
		snprintf(err, errlen, "internal error: bad key type");
		return -1;
	}
	if (conf_check_range(k, v, err, errlen) == -1)
		return -1;
	*(long long *)var = v;
	return 0;
}

/* conf_set - set one key of a table by name: 0, -1 bad value, -2 unknown */
int
conf_set(const struct conf_key *keys, size_t nkeys, void *base,
    const char *name, const char *value, char *err, size_t errlen)
{
	const struct conf_key *k;

	if ((k = conf_find(keys, nkeys, name)) == NULL) {
		snprintf(err, errlen, "unknown key");
		return -2;
	}
	return conf_store(k, base, value, err, errlen);
}

/* conf_defaults - give every key of a table its default value */
int
conf_defaults(const struct conf_key *keys, size_t nkeys, void *base)
{
	char err[256];
	size_t i;

	for (i = 0; i < nkeys; i++)
		if (conf_store(&keys[i], base, keys[i].def ? keys[i].def : "",
			err, sizeof(err)) == -1 &&
		    keys[i].def != NULL)
			return -1;
	return 0;
}

/* conf_reader - inih's line reader: counts lines, flags over-long ones */
static char *
conf_reader(char *str, int num, void *stream)
{
	struct conf_ctx *ctx = stream;
	size_t len;
	int c;

	if (fgets(str, num, ctx->fp) == NULL)
		return NULL;
	ctx->lineno++;
	len = strlen(str);
	if (len == (size_t)num - 1 && str[len - 1] != '\n') {
		/* Swallow the rest of the line; hand inih a line it rejects. */
		while ((c = getc(ctx->fp)) != EOF && c != '\n')
			;
		if (!ctx->overlong)
			ctx->overlong = ctx->lineno;
		(void)strlcpy(str, "[\n", (size_t)num);
	}
	return str;
}

/* conf_fail - record the first error of a load */
static int
conf_fail(
    struct conf_ctx *ctx, const char *section, const char *key, const char *why)
{
	if (!ctx->failed) {
		ctx->failed = ctx->lineno;
		snprintf(ctx->err, ctx->errlen, "%s:%d: [%s] %s: %s",
		    ctx->label, ctx->lineno, section, key, why);
	}
	return 0;
}

/* conf_handler - inih's callback: one key = value */
static int
conf_handler(
    void *user, const char *section, const char *name, const char *value)
{
	struct conf_ctx *ctx = user;
	char why[256] = "";
	int r;

	if (*section == '\0')
		return conf_fail(ctx, "", name, "key outside any section");
	if (!ctx->have_section || strcmp(section, ctx->cur_section) != 0) {
		memset(&ctx->sec, 0, sizeof(ctx->sec));
		if (strlcpy(ctx->cur_section, section,
			sizeof(ctx->cur_section)) >= sizeof(ctx->cur_section) ||
		    ctx->section_fn(ctx->section_arg, section, &ctx->sec, why,
			sizeof(why)) == -1) {
			ctx->have_section = 0;
			return conf_fail(
			    ctx, section, name, *why ? why : "unknown section");
		}
		ctx->have_section = 1;
	}
	r = -2;
	if (ctx->sec.keys != NULL)
		r = conf_set(ctx->sec.keys, ctx->sec.nkeys, ctx->sec.base, name,
		    value, why, sizeof(why));
	if (r == -2 && ctx->sec.pair != NULL)
		r = ctx->sec.pair(
		    ctx->sec.pair_arg, section, name, value, why, sizeof(why));
	if (r == -2)
		return conf_fail(ctx, section, name, "unknown key");
	if (r != 0)
		return conf_fail(ctx, section, name, why);
	return 1;
}

/* conf_load_file - read an open INI stream; label names it in errors */
int
conf_load_file(FILE *fp, const char *label, conf_section_fn *fn, void *arg,
    char *err, size_t errlen)
{
	struct conf_ctx ctx;
	int line;

	memset(&ctx, 0, sizeof(ctx));
	ctx.fp = fp;
	ctx.label = label;
	ctx.section_fn = fn;
	ctx.section_arg = arg;
	ctx.err = err;
	ctx.errlen = errlen;
	line = ini_parse_stream(conf_reader, &ctx, conf_handler, &ctx);
	if (ferror(fp)) {
		snprintf(err, errlen, "%s: read error", label);
		return -1;
	}
	if (line == 0 && !ctx.failed)
		return 0;
	if (ctx.failed && ctx.failed == line)
		return -1;
	if (ctx.overlong && ctx.overlong == line) {
		snprintf(err, errlen, "%s:%d: line longer than %d characters",
		    label, ctx.overlong, INI_MAX_LINE - 2);
		return -1;
	}
	snprintf(err, errlen,
	    "%s:%d: syntax error (expected [section] or "
	    "key = value)",
	    label, line);
	return -1;
}

/* conf_load - read a file; a missing file is fine when missing_ok */
int
conf_load(const char *path, int missing_ok, conf_section_fn *fn, void *arg,
    char *err, size_t errlen)
{
	FILE *fp;
	int r;

	if ((fp = fopen(path, "r")) == NULL) {
		if (errno == ENOENT && missing_ok)
			return 0;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	r = conf_load_file(fp, path, fn, arg, err, errlen);
	fclose(fp);
	return r;
}
