/*
 * delivery_domain.h - the look-up every domain-keyed map of mjq.conf
 * shares (delivery_domain.c): [transport_map], source_pool_map.
 */
#ifndef MJQ_DELIVERY_DOMAIN_H
#define MJQ_DELIVERY_DOMAIN_H

#include <stddef.h>

/* delivery_domain_find - the entry for domain in a table of n entries
 * of size bytes, each starting with its char *domain: the domain
 * itself, then ".parent" entries from the nearest parent up, then "*";
 * -1 for none */
long delivery_domain_find(
    const void *table, size_t n, size_t size, const char *domain);

#endif
