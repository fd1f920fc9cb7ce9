/*
 * delivery_source.c - sending-address pools: the [delivery] keys
 *
 *   source_pool = NAME ADDRESS[*WEIGHT] ...   a pool (one line each)
 *   source_pool_map = DESTINATION NAME        x.org, .x.org or *
 *   source_pool_list = LIST NAME              list or list@domain
 *   source_helo_name = ADDRESS HOSTNAME       EHLO name of an address
 *
 * Each key may be given again (or continued on indented lines): every
 * line adds one entry.  Names are resolved at the end, so the order of
 * the lines does not matter.  An address is kept once however many
 * pools hold it: a receiver throttles the address, not the pool, so
 * the scheduler keeps one state per (destination, address).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "delivery_domain.h"
#include "delivery_source.h"
#include "names.h"

/* delivery_source_word - the next space-separated word of *p into buf;
 * 0 none left, -1 too long */
static int
delivery_source_word(const char **p, char *buf, size_t len)
{
	size_t n;

	*p += strspn(*p, " \t,");
	if ((n = strcspn(*p, " \t,")) == 0)
		return 0;
	if (n >= len)
		return -1;
	memcpy(buf, *p, n);
	buf[n] = '\0';
	*p += n;
	return 1;
}

/* delivery_source_addr - an address as text (IPv6 may be in brackets)
 * into src; -1 when it is none */
static int
delivery_source_addr(const char *text, struct delivery_source *src)
{
	struct sockaddr_in *s4 = (struct sockaddr_in *)&src->sa;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&src->sa;
	char buf[SPOOL_DEST_SOURCE_MAX + 3];
	size_t n = strlen(text);

	memset(src, 0, sizeof(*src));
	if (n >= 2 && text[0] == '[' && text[n - 1] == ']' && n < sizeof(buf)) {
		memcpy(buf, text + 1, n - 2);
		buf[n - 2] = '\0';
	} else if (strlcpy(buf, text, sizeof(buf)) >= sizeof(buf))
		return -1;
	if (inet_pton(AF_INET, buf, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		src->salen = sizeof(*s4);
	} else if (inet_pton(AF_INET6, buf, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		src->salen = sizeof(*s6);
	} else
		return -1;
	if (inet_ntop(src->sa.ss_family,
		src->sa.ss_family == AF_INET ? (void *)&s4->sin_addr
					     : (void *)&s6->sin6_addr,
		src->addr, sizeof(src->addr)) == NULL)
		return -1;
	return 0;
}

/* delivery_source_intern - the index of an address among the sources,
 * added when new; -1 no memory */
static long
delivery_source_intern(
    struct delivery_sources *ds, const struct delivery_source *src)
{
	struct delivery_source *s;
	size_t i;

	for (i = 0; i < ds->nsrc; i++)
		if (strcmp(ds->src[i].addr, src->addr) == 0)
			return (long)i;
	if ((s = reallocarray(ds->src, ds->nsrc + 1, sizeof(*s))) == NULL)
		return -1;
	ds->src = s;
	s[ds->nsrc] = *src;
	return (long)ds->nsrc++;
}

/* delivery_source_member - "ADDRESS[*WEIGHT]" into pool pl */
static int
delivery_source_member(struct delivery_sources *ds, struct delivery_pool *pl,
    char *word, char *err, size_t errlen)
{
	struct delivery_pool_member *m;
	struct delivery_source src;
	char *star = strrchr(word, '*'), *end;
	long w = 1, idx;

	if (star != NULL) {
		*star = '\0';
		errno = 0;
		w = strtol(star + 1, &end, 10);
		if (errno != 0 || *end != '\0' || end == star + 1 || w < 1 ||
		    w > DELIVER_POOL_WEIGHT_MAX) {
			snprintf(err, errlen, "bad weight \"%s\" (1 to %d)",
			    star + 1, DELIVER_POOL_WEIGHT_MAX);
			return -1;
		}
	}
	if (delivery_source_addr(word, &src) == -1) {
		snprintf(
		    err, errlen, "not an IPv4 or IPv6 address: \"%s\"", word);
		return -1;
	}
	if ((idx = delivery_source_intern(ds, &src)) == -1 ||
	    (m = reallocarray(pl->m, pl->n + 1, sizeof(*m))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	pl->m = m;
	m[pl->n].src = (size_t)idx;
	m[pl->n++].weight = (int)w;
	return 0;
}

/* delivery_source_name_ok - a pool name: letters, digits, "-", "_" */
static int
delivery_source_name_ok(const char *name)
{
	for (; *name; name++)
		if (!isalnum((unsigned char)*name) && *name != '-' &&
		    *name != '_')
			return 0;
	return 1;
}

/* delivery_source_pool - "NAME ADDRESS[*WEIGHT] ..." */
static int
delivery_source_pool(
    struct delivery_sources *ds, const char *value, char *err, size_t errlen)
{
	struct delivery_pool *pl;
	char name[64], word[SPOOL_DEST_SOURCE_MAX + 16];
	size_t i;
	int r;

	if ((r = delivery_source_word(&value, name, sizeof(name))) == 0)
		return 0; /* empty: no pool */
	if (r == -1 || !delivery_source_name_ok(name)) {
		snprintf(err, errlen,
		    "bad pool name (letters, digits, - and _, "
		    "up to 63)");
		return -1;
	}
	for (i = 0; i < ds->npool; i++)
		if (strcmp(ds->pool[i].name, name) == 0) {
			snprintf(err, errlen, "pool %s is defined twice", name);
			return -1;
		}
	if ((pl = reallocarray(ds->pool, ds->npool + 1, sizeof(*pl))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	ds->pool = pl;
	pl += ds->npool;
	memset(pl, 0, sizeof(*pl));
	if ((pl->name = strdup(name)) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	ds->npool++;
	while ((r = delivery_source_word(&value, word, sizeof(word))) == 1)
		if (delivery_source_member(ds, pl, word, err, errlen) == -1)
			return -1;
	if (r == -1 || pl->n == 0) {
		snprintf(err, errlen, "pool %s: want NAME ADDRESS[*WEIGHT] ...",
		    name);
		return -1;
	}
	return 0;
}

/* delivery_source_pair - "KEY NAME" into one of the maps; check: the
 * key's own test (NULL: any) */
static int
delivery_source_pair(struct delivery_pool_map **map, size_t *n,
    const char *value, const char *(*check)(const char *), char *err,
    size_t errlen)
{
	char key[NAME_ADDR_MAX + 1], name[DELIVER_SOURCE_HELO_MAX];
	struct delivery_pool_map *m;
	const char *why;
	int r1, r2;

	if ((r1 = delivery_source_word(&value, key, sizeof(key))) == 0)
		return 0; /* empty: no entry */
	r2 = delivery_source_word(&value, name, sizeof(name));
	if (r1 == -1 || r2 != 1 || value[strspn(value, " \t,")] != '\0') {
		snprintf(err, errlen, "want two words");
		return -1;
	}
	if (check != NULL && (why = check(key)) != NULL) {
		snprintf(err, errlen, "\"%s\": %s", key, why);
		return -1;
	}
	if ((m = reallocarray(*map, *n + 1, sizeof(*m))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	*map = m;
	m += *n;
	memset(m, 0, sizeof(*m));
	if ((m->domain = strdup(key)) == NULL ||
	    (m->name = strdup(name)) == NULL) {
		free(m->domain);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	(*n)++;
	return 0;
}

/* delivery_source_check_dest - a source_pool_map key */
static const char *
delivery_source_check_dest(const char *key)
{
	if (strcmp(key, "*") == 0)
		return NULL;
	return name_check_domain(key[0] == '.' ? key + 1 : key);
}

/* delivery_source_check_list - a source_pool_list key */
static const char *
delivery_source_check_list(const char *key)
{
	char list[NAME_ADDR_MAX + 1];
	const char *at = strchr(key, '@');

	if (at == NULL)
		return name_check_list(key);
	if ((size_t)(at - key) >= sizeof(list))
		return "too long";
	memcpy(list, key, at - key);
	list[at - key] = '\0';
	return name_check_list(list) ? name_check_list(list)
				     : name_check_domain(at + 1);
}

/* delivery_source_check_addr - a source_helo_name key */
static const char *
delivery_source_check_addr(const char *key)
{
	struct delivery_source src;

	return delivery_source_addr(key, &src) == 0
		   ? NULL
		   : "not an IPv4 or IPv6 address";
}

/* delivery_sources_set - one of the four keys */
int
delivery_sources_set(struct delivery_sources *ds, const char *key,
    const char *value, char *err, size_t errlen)
{
	if (strcmp(key, "source_pool") == 0)
		return delivery_source_pool(ds, value, err, errlen);
	if (strcmp(key, "source_pool_map") == 0)
		return delivery_source_pair(&ds->dmap, &ds->ndmap, value,
		    delivery_source_check_dest, err, errlen);
	if (strcmp(key, "source_pool_list") == 0)
		return delivery_source_pair(&ds->lmap, &ds->nlmap, value,
		    delivery_source_check_list, err, errlen);
	if (strcmp(key, "source_helo_name") == 0)
		return delivery_source_pair(&ds->helo, &ds->nhelo, value,
		    delivery_source_check_addr, err, errlen);
	return -2;
}

/* delivery_sources_resolve - each map line's pool by name */
static int
delivery_sources_resolve(const struct delivery_sources *ds,
    struct delivery_pool_map *map, size_t n, const char *key, char *err,
    size_t errlen)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < ds->npool; j++)
			if (strcmp(ds->pool[j].name, map[i].name) == 0)
				break;
		if (j == ds->npool) {
			snprintf(err, errlen,
			    "%s %s names pool %s, which no source_pool "
			    "defines",
			    key, map[i].domain, map[i].name);
			return -1;
		}
		map[i].pool = j;
	}
	return 0;
}

/* delivery_sources_finish - resolve the pool names and the EHLO names */
int
delivery_sources_finish(struct delivery_sources *ds, char *err, size_t errlen)
{
	struct delivery_source src;
	size_t i, j;

	if (delivery_sources_resolve(ds, ds->dmap, ds->ndmap, "source_pool_map",
		err, errlen) == -1 ||
	    delivery_sources_resolve(
		ds, ds->lmap, ds->nlmap, "source_pool_list", err, errlen) == -1)
		return -1;
	for (i = 0; i < ds->nhelo; i++) {
		(void)delivery_source_addr(ds->helo[i].domain, &src);
		for (j = 0; j < ds->nsrc; j++)
			if (strcmp(ds->src[j].addr, src.addr) == 0)
				break;
		if (j == ds->nsrc) {
			snprintf(err, errlen,
			    "source_helo_name %s: no source_pool holds "
			    "that address",
			    ds->helo[i].domain);
			return -1;
		}
		if (strlcpy(ds->src[j].helo, ds->helo[i].name,
			sizeof(ds->src[j].helo)) >= sizeof(ds->src[j].helo)) {
			snprintf(err, errlen, "source_helo_name %s: too long",
			    ds->helo[i].domain);
			return -1;
		}
	}
	return 0;
}

/* delivery_source_map_free - free a map's lines */
static void
delivery_source_map_free(struct delivery_pool_map *m, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(m[i].domain);
		free(m[i].name);
	}
	free(m);
}

/* delivery_sources_free - free everything */
void
delivery_sources_free(struct delivery_sources *ds)
{
	size_t i;

	for (i = 0; i < ds->npool; i++) {
		free(ds->pool[i].name);
		free(ds->pool[i].m);
	}
	free(ds->pool);
	free(ds->src);
	delivery_source_map_free(ds->dmap, ds->ndmap);
	delivery_source_map_free(ds->lmap, ds->nlmap);
	delivery_source_map_free(ds->helo, ds->nhelo);
	memset(ds, 0, sizeof(*ds));
}

/* delivery_source_probe - bind a socket to the address, then close it */
int
delivery_source_probe(
    const struct delivery_source *src, char *why, size_t whylen)
{
	int fd, e;

	if ((fd = socket(src->sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0)) ==
	    -1) {
		snprintf(why, whylen, "socket: %s", strerror(errno));
		return -1;
	}
	if (bind(fd, (const struct sockaddr *)&src->sa, src->salen) == -1) {
		e = errno;
		(void)close(fd);
		snprintf(why, whylen, "%s", strerror(e));
		return -1;
	}
	if (close(fd) == -1) {
		snprintf(why, whylen, "close: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* delivery_pool_find - the list's line first ("list@domain", then
 * "list"), then the recipient domain's (domain, ".parent", "*") */
long
delivery_pool_find(const struct delivery_sources *ds, const char *list,
    const char *listdomain, const char *domain)
{
	char full[NAME_ADDR_MAX + 1];
	size_t i;
	long k;

	if (list != NULL && list[0] != '\0') {
		snprintf(full, sizeof(full), "%s@%s", list,
		    listdomain ? listdomain : "");
		for (i = 0; i < ds->nlmap; i++)
			if (strcmp(ds->lmap[i].domain, full) == 0)
				return (long)ds->lmap[i].pool;
		for (i = 0; i < ds->nlmap; i++)
			if (strcmp(ds->lmap[i].domain, list) == 0)
				return (long)ds->lmap[i].pool;
	}
	if ((k = delivery_domain_find(
		 ds->dmap, ds->ndmap, sizeof(*ds->dmap), domain)) == -1)
		return -1;
	return (long)ds->dmap[k].pool;
}
