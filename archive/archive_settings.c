/*
 * archive_settings.c - the [archive] section of mjq.conf: one table,
 * each row a key, its type, its default, its range and its place in
 * struct archive_settings, loaded with the shared sections in the one
 * reading of the file (common/settings.c).
 */
#include <stddef.h>

#include "archive_settings.h"
#include "cluster.h"
#include "lists.h"

#define S(f) offsetof(struct archive_settings, f)
#define STRKEY(n, d, f) CONF_STRKEY(struct archive_settings, n, d, f)

static const struct conf_key archive_keys[] = {
    STRKEY("dir", "/var/lib/mjq/archive", archive_dir),
    STRKEY("public_dir", "/var/www/mjq-archive", archive_public_dir),
    {"feed_entries", CONF_INT, "20", 1, 1000, S(archive_feed_entries), NULL},
    {"max_replies", CONF_INT, "100", 1, 100000, S(archive_max_replies), NULL},
    STRKEY("search_url", "", archive_search_url),
    {"search_requests_per_minute", CONF_INT, "600", 0, 1000000,
	S(archive_search_per_minute), NULL},
    {"search_address_requests_per_minute", CONF_INT, "30", 0, 1000000,
	S(archive_search_address_per_minute), NULL},
};

static const struct settings_table archive_settings_tables[] = {
    SETTINGS_TABLE("archive", archive_keys),
};

/* archive_settings_part - [archive] for settings_load, its values into
 * as */
static struct settings_part
archive_settings_part(struct archive_settings *as)
{
	struct settings_part p = {archive_settings_tables,
	    sizeof(archive_settings_tables) /
		sizeof(archive_settings_tables[0]),
	    as, sizeof(*as), NULL, NULL};

	return p;
}

/* archive_settings_load - mjq.conf read with the parts the archive's
 * programs check: the list sections, [cluster], [archive]; 0, or -1
 * with err */
int
archive_settings_load(struct settings *s, struct archive_settings *as,
    const char *path, int missing_ok, char *err, size_t errlen)
{
	struct lists_settings ls;
	struct cluster_settings cs;
	struct settings_part parts[3];

	parts[0] = lists_settings_part(&ls);
	parts[1] = cluster_settings_part(&cs);
	parts[2] = archive_settings_part(as);
	return settings_load(s, parts, 3, path, missing_ok, err, errlen);
}
