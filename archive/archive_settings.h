/*
 * archive_settings.h - the [archive] section of mjq.conf
 * (archive_settings.c): where lists' archives and their public pages
 * are kept.  Only mj_archive checks it; the other programs accept the
 * section unchecked (common/settings.c).
 */
#ifndef MJQ_ARCHIVE_SETTINGS_H
#define MJQ_ARCHIVE_SETTINGS_H

#include <limits.h>
#include <stddef.h>

#include "settings.h"

struct archive_settings {
	char archive_dir[PATH_MAX];	     /* indexes, private pages */
	char archive_public_dir[PATH_MAX];   /* public lists' pages */
	long long archive_feed_entries;	     /* posts in feed.atom */
	long long archive_max_replies;	     /* replies listed on a post */
	char archive_search_url[512];	     /* mj_archsearch's URL, or "" */
	long long archive_search_per_minute; /* searches in all; 0: any */
	long long archive_search_address_per_minute; /* per client */
};

int archive_settings_load(struct settings *s, struct archive_settings *as,
    const char *path, int missing_ok, char *err, size_t errlen);

#endif
