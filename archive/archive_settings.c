/*
 * archive_settings.c - the [archive] section of mjq.conf: one table,
 * each row a key, its type, its default, its range and its place in
 * struct archive_settings, loaded with the shared sections in the one
 * reading of the file (common/settings.c).
 */
#include <stddef.h>

#include "archive_settings.h"

#define S(f) offsetof(struct archive_settings, f)
#define STRKEY(n, d, f) CONF_STRKEY(struct archive_settings, n, d, f)

static const struct conf_key archive_keys[] = {
    STRKEY("dir", "/var/lib/mjq/archive", archive_dir),
    STRKEY("public_dir", "/var/www/mjq-archive", archive_public_dir),
    {"feed_entries", CONF_INT, "20", 1, 1000, S(archive_feed_entries), NULL},
    {"max_replies", CONF_INT, "100", 1, 100000, S(archive_max_replies), NULL},
    STRKEY("search_url", "", archive_search_url),
};

static const struct settings_table archive_settings_tables[] = {
    SETTINGS_TABLE("archive", archive_keys),
};

/* archive_settings_part - [archive] for settings_load, its values into
 * as */
struct settings_part
archive_settings_part(struct archive_settings *as)
{
	struct settings_part p = {archive_settings_tables,
	    sizeof(archive_settings_tables) /
		sizeof(archive_settings_tables[0]),
	    as, sizeof(*as), NULL, NULL};

	return p;
}
