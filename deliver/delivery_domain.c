/*
 * delivery_domain.c - the look-up every domain-keyed map of mjq.conf
 * shares: the exact domain, then ".parent" lines from the most
 * specific parent up (a.b.example -> .b.example -> .example), then "*".
 */
#include <string.h>

#include "delivery_domain.h"

/* delivery_domain_key - the domain of entry i */
static const char *
delivery_domain_key(const void *table, size_t size, size_t i)
{
	const char *const *key =
	    (const char *const *)(const void *)((const char *)table + i * size);

	return *key;
}

/* delivery_domain_find - exact, then parents, then "*" */
long
delivery_domain_find(
    const void *table, size_t n, size_t size, const char *domain)
{
	const char *d;
	long star = -1;
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(delivery_domain_key(table, size, i), domain) == 0)
			return (long)i;
	for (d = strchr(domain, '.'); d != NULL; d = strchr(d + 1, '.'))
		for (i = 0; i < n; i++)
			if (strcmp(delivery_domain_key(table, size, i), d) == 0)
				return (long)i;
	for (i = 0; i < n; i++)
		if (strcmp(delivery_domain_key(table, size, i), "*") == 0)
			star = (long)i;
	return star;
}
