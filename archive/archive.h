/*
 * archive.h - the list's web archive (archive/README): the one header
 * other parts include (the search CGI and the moderation pages to come
 * render through it).
 */
#ifndef MJQ_ARCHIVE_H
#define MJQ_ARCHIVE_H

#include "archive_body.h"
#include "archive_html.h"
#include "archive_import.h"
#include "archive_ingest.h"
#include "archive_list.h"
#include "archive_pages.h"
#include "archive_remove.h"
#include "archive_search.h"
#include "archive_settings.h"

#endif
