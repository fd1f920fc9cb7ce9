/*
 * qr_dest.c - the runner's destinations, interned: each recipient the
 * scheduler is given points at one, by the name the scheduler knows it
 * by, so that a batch and the shared table can tell its plain nexthop
 * and its source address from that name without parsing it.
 */
#include <stdlib.h>
#include <string.h>

#include "fnv.h"
#include "qr_dest.h"

/* A look-up key: a transport and the scheduler's name. */
struct qr_dest_key {
	enum deliver_transport transport;
	const char *name;
};

/* qr_dest_eq - htab_find's test: is node this destination? */
static int
qr_dest_eq(const struct htab_node *n, const void *key)
{
	const struct qr_dest *d = (const struct qr_dest *)n;
	const struct qr_dest_key *k = key;

	return d->transport == k->transport && strcmp(d->name, k->name) == 0;
}

/* qr_dest_hash - of a transport and a name */
static uint64_t
qr_dest_hash(enum deliver_transport t, const char *name)
{
	return fnv1a_str(fnv1a_byte(FNV1A_BASIS, (unsigned char)t), name);
}

/* qr_dest_lookup - the interned destination, or NULL */
static struct qr_dest *
qr_dest_lookup(struct qr_dests *ds, enum deliver_transport t, const char *name)
{
	struct qr_dest_key key = {t, name};

	return (struct qr_dest *)htab_find(
	    &ds->tab, qr_dest_hash(t, name), qr_dest_eq, &key);
}

/* qr_dest_source - the source's text, or "" */
const char *
qr_dest_source(const struct qr_dest *d)
{
	return d->source != NULL ? d->source->addr : "";
}

/* qr_dest_get - find or make */
struct qr_dest *
qr_dest_get(struct qr_dests *ds, enum deliver_transport t, const char *nexthop,
    const struct delivery_source *source)
{
	char buf[DELIVER_NEXTHOP_MAX + SPOOL_DEST_SOURCE_MAX + 4];
	const char *name = nexthop; /* without a source, the name */
	struct qr_dest *d;

	if (source != NULL) {
		if (spool_dest_name(buf, sizeof(buf), nexthop, source->addr) ==
		    -1)
			return NULL;
		name = buf;
	}
	if ((d = qr_dest_lookup(ds, t, name)) != NULL)
		return d;
	if ((d = calloc(1, sizeof(*d))) == NULL)
		return NULL;
	if ((d->name = strdup(name)) == NULL ||
	    (d->nexthop = strdup(nexthop)) == NULL) {
		free(d->name);
		free(d);
		return NULL;
	}
	d->transport = t;
	d->source = source;
	d->hnode.hash = qr_dest_hash(t, name);
	if (htab_insert(&ds->tab, &d->hnode) == -1) {
		free(d->name);
		free(d->nexthop);
		free(d);
		return NULL;
	}
	return d;
}

/* qr_dest_find - by the scheduler's transport and name */
struct qr_dest *
qr_dest_find(struct qr_dests *ds, const char *transport, const char *name)
{
	enum deliver_transport t;

	if (delivery_transport_lookup(transport, &t) == -1)
		return NULL;
	return qr_dest_lookup(ds, t, name);
}

/* qr_dest_drop - htab_drain's callback: one destination */
static void
qr_dest_drop(struct htab_node *n, void *arg)
{
	struct qr_dest *d = (struct qr_dest *)n;

	(void)arg;
	free(d->name);
	free(d->nexthop);
	free(d);
}

/* qr_dest_init - no destination yet */
void
qr_dest_init(struct qr_dests *ds)
{
	htab_init(&ds->tab, &ds->mem);
}

/* qr_dest_free - every destination */
void
qr_dest_free(struct qr_dests *ds)
{
	if (ds->tab.mem != NULL)
		htab_drain(&ds->tab, qr_dest_drop, NULL);
}
