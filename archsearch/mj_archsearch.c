/*
 * mj_archsearch - the search of a list's web archive, a CGI program
 * (mj_archsearch(8)).  GET ?l=list@domain&q=words[&o=offset]: a page of
 * up to 50 posts, newest-ranked first, each linked to its page under the
 * list's archive_url.  Like mj_unsubscribe: static pages only, no
 * shell, every input bounded (the query's length and terms, the
 * offset, SQLite's steps: archive/archive_search.c), the index opened
 * read-only; a list that does not exist, has no web archive or a
 * private one answers the same 404.
 *
 * MJQ_CONF in the environment names mjq.conf (default
 * SYSCONFDIR/mjq/mjq.conf).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "archive.h"
#include "cgi_query.h"
#include "log.h"
#include "spool_unsub_rate.h"

#define MJ_ARCHSEARCH_OFFSET_MAX 10000

/* mj_archsearch_fail - an error page with status */
static int
mj_archsearch_fail(int status, const char *reason)
{
	printf("Status: %d %s\r\nContent-Type: text/plain; charset=utf-8\r\n"
	       "X-Content-Type-Options: nosniff\r\n\r\n%s\n",
	    status, reason, reason);
	return 0;
}

/* mj_archsearch_list - l=list@domain into list and domain */
static int
mj_archsearch_list(
    const char *q, char *list, size_t llen, char *domain, size_t dlen)
{
	char l[NAME_LIST_MAX + NAME_DOMAIN_MAX + 2], *at;

	if (cgi_query_field(q, "l", l, sizeof(l)) == -1 ||
	    (at = strchr(l, '@')) == NULL)
		return -1;
	*at = '\0';
	if (name_check_list(l) != NULL || name_check_domain(at + 1) != NULL ||
	    strlcpy(list, l, llen) >= llen ||
	    strlcpy(domain, at + 1, dlen) >= dlen)
		return -1;
	return 0;
}

/* mj_archsearch_rate - the request counted per client address
 * (REMOTE_ADDR) and in all, each per minute; -1 (answered 429 or 503)
 * when a bound is reached or the count cannot be kept */
static int
mj_archsearch_rate(const struct settings *s, const struct archive_settings *as)
{
	struct spool_unsub_bound addr = {
	    as->archive_search_address_per_minute, 60};
	struct spool_unsub_bound all = {as->archive_search_per_minute, 60};
	const char *ip = getenv("REMOTE_ADDR");
	char key[80];

	snprintf(key, sizeof(key), "search %s",
	    ip != NULL && strspn(ip, "0123456789abcdefABCDEF.:") == strlen(ip)
		? ip
		: "-");
	switch (spool_rate_file_take(s->spool_dir, SPOOL_SEARCH_RATE_FILE, key,
	    &addr, &all, time(NULL))) {
	case SPOOL_UNSUB_OK:
		return 0;
	case SPOOL_UNSUB_ADDR_FULL:
		printf("Retry-After: 60\r\n");
		mj_archsearch_fail(429, "Too Many Requests");
		return -1;
	case SPOOL_UNSUB_ALL_FULL:
		printf("Retry-After: 60\r\n");
		mj_archsearch_fail(503, "Service Unavailable");
		return -1;
	default:
		log_warn("search: cannot count the request in %s",
		    SPOOL_SEARCH_RATE_FILE);
		mj_archsearch_fail(503, "Service Unavailable");
		return -1;
	}
}

int
main(void)
{
	const char *query = getenv("QUERY_STRING"),
		   *m = getenv("REQUEST_METHOD");
	const char *conf = getenv("MJQ_CONF");
	char list[NAME_LIST_MAX + 1], domain[NAME_DOMAIN_MAX + 1];
	char text[ARCHIVE_SEARCH_MAX + 1], off[16], err[PATH_MAX + 256];
	struct archive_settings as;
	struct archive_list al;
	struct settings s;
	long long offset = 0;
	char *end;

	setprogname("mj_archsearch");
	log_open("mj_archsearch", LOG_TO_SYSLOG);
	if (m == NULL || (strcmp(m, "GET") != 0 && strcmp(m, "HEAD") != 0))
		return mj_archsearch_fail(405, "Method Not Allowed");
	if (query == NULL || strlen(query) > 4 * ARCHIVE_SEARCH_MAX ||
	    mj_archsearch_list(
		query, list, sizeof(list), domain, sizeof(domain)) == -1)
		return mj_archsearch_fail(400, "Bad Request");
	if (cgi_query_field(query, "q", text, sizeof(text)) == -1)
		text[0] = '\0';
	if (cgi_query_field(query, "o", off, sizeof(off)) == 0) {
		offset = strtoll(off, &end, 10);
		if (*end != '\0' || offset < 0 ||
		    offset > MJ_ARCHSEARCH_OFFSET_MAX)
			return mj_archsearch_fail(400, "Bad Request");
	}
	if (archive_settings_load(&s, &as, conf ? conf : SETTINGS_DEFAULT_FILE,
		0, err, sizeof(err)) == -1) {
		log_errx("%s", err);
		return mj_archsearch_fail(500, "Internal Server Error");
	}
	if (mj_archsearch_rate(&s, &as) == -1)
		return 0;
	if (archive_list_open(&al, &s, &as, domain, list, ARCHIVE_LIST_READ,
		err, sizeof(err)) != 0)
		return mj_archsearch_fail(404, "Not Found");
	if (!al.lc.archive_web || !al.lc.archive_public) {
		archive_list_close(&al);
		return mj_archsearch_fail(404, "Not Found");
	}
	printf("Content-Type: text/html; charset=utf-8\r\n"
	       "X-Content-Type-Options: nosniff\r\n"
	       "Content-Security-Policy: default-src 'none'; style-src *; "
	       "form-action 'self'\r\n\r\n");
	if (strcmp(m, "HEAD") != 0 &&
	    archive_search_page(&al, stdout, text, offset) == -1)
		log_warnx("%s@%s: search failed", list, domain);
	archive_list_close(&al);
	return fflush(stdout) == 0 ? 0 : 1;
}
