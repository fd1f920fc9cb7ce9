/*
 * delivery_source.h - sending-address pools, the [delivery] keys
 * source_pool, source_pool_map, source_pool_list and source_helo_name
 * (delivery_source.c): the local addresses mail leaves from, grouped
 * into named pools with weights, which pool a destination domain or a
 * list sends from, and the EHLO name of each address.  Without a pool
 * mail leaves from the address the kernel picks, as it always did.
 */
#ifndef MJQ_DELIVERY_SOURCE_H
#define MJQ_DELIVERY_SOURCE_H

#include <stddef.h>
#include <sys/socket.h>

#include "spool_dest.h"

#define DELIVER_SOURCE_HELO_MAX 256
#define DELIVER_POOL_WEIGHT_MAX 1000

/* One local address (IPv4 or IPv6), in any number of pools. */
struct delivery_source {
	char addr[SPOOL_DEST_SOURCE_MAX + 1]; /* as inet_ntop writes it */
	struct sockaddr_storage sa;	      /* port 0 */
	socklen_t salen;
	char helo[DELIVER_SOURCE_HELO_MAX]; /* "": smtp_helo_name */
};

struct delivery_pool_member {
	size_t src; /* index into sources */
	int weight;
};

struct delivery_pool {
	char *name;
	struct delivery_pool_member *m;
	size_t n;
};

/* A source_pool_map or source_pool_list line; domain first, as
 * delivery_domain_find wants. */
struct delivery_pool_map {
	char *domain; /* "x.org", ".x.org", "*"; or "list", "list@domain" */
	char *name;   /* the pool's name as written */
	size_t pool;  /* its index, set by delivery_sources_finish */
};

struct delivery_sources {
	struct delivery_source *src;
	size_t nsrc;
	struct delivery_pool *pool;
	size_t npool;
	struct delivery_pool_map *dmap, *lmap; /* by domain, by list */
	size_t ndmap, nlmap;
	struct delivery_pool_map *helo; /* address, name: until finish */
	size_t nhelo;
};

/* delivery_sources_set - one of the keys into ds; 0, -1 bad value, -2
 * not one of them */
int delivery_sources_set(struct delivery_sources *ds, const char *key,
    const char *value, char *err, size_t errlen);
/* delivery_sources_finish - pool names and addresses resolved; -1 with
 * err for a name no source_pool defines */
int delivery_sources_finish(
    struct delivery_sources *ds, char *err, size_t errlen);
void delivery_sources_free(struct delivery_sources *ds);
/* delivery_source_probe - can src be bound now?  0, or -1 with why */
int delivery_source_probe(
    const struct delivery_source *src, char *why, size_t whylen);
/* delivery_pool_find - the pool of a list ("list@domain", then "list")
 * or else of a recipient domain (domain, ".parent", "*"); -1 none */
long delivery_pool_find(const struct delivery_sources *ds, const char *list,
    const char *listdomain, const char *domain);

#endif
