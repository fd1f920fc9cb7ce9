/*
 * cluster_settings.c - the [cluster] section of mjq.conf: one table,
 * each row a key, its type, its default (text, parsed like the file),
 * its range and its place in struct cluster_settings.  Loaded with the
 * shared sections by common/settings.c, in the one reading of the file.
 * Nothing here calls the rest of libcluster or hiredis (mj_enqueue
 * links this object alone, to accept and check the section).
 */
#include <stddef.h>

#include "cluster_settings.h"

#define S(f) offsetof(struct cluster_settings, f)
#define STRKEY(n, d, f) CONF_STRKEY(struct cluster_settings, n, d, f)

static const struct conf_key cluster_keys[] = {
    STRKEY("redis", "", cluster_redis),
    STRKEY("password", "", cluster_password),
    {"tls", CONF_BOOL, "no", 0, 1, S(cluster_tls), NULL},
    STRKEY("tls_ca_file", "", cluster_tls_ca_file),
    STRKEY("node_name", "", cluster_node),
    {"lease_time", CONF_DURATION, "30s", 2, 3600, S(cluster_lease_time), NULL},
    {"expected_nodes", CONF_INT, "1", 1, 1000, S(cluster_expected_nodes), NULL},
    {"timeout_ms", CONF_INT, "250", 10, 60000, S(cluster_timeout_ms), NULL},
};

static const struct settings_table cluster_settings_tables[] = {
    SETTINGS_TABLE("cluster", cluster_keys),
};

/* cluster_settings_part - [cluster] for settings_load, its values into
 * cs */
struct settings_part
cluster_settings_part(struct cluster_settings *cs)
{
	struct settings_part p = {cluster_settings_tables,
	    sizeof(cluster_settings_tables) /
		sizeof(cluster_settings_tables[0]),
	    cs, sizeof(*cs), NULL, NULL};

	return p;
}
