/*
 * mj_listweb - a list's pages, a CGI program that any web server can run
 * (RFC 3875): the list's page with a subscribe form, the page a
 * confirmation mail links to, and a subscriber's options
 * (listweb_subscriber.c, listweb_confirm.c, listweb_options.c).
 *
 * It has mj_unsubscribe's properties and shares its parts: static, no
 * shell, a bounded body, the site's one-click secret, the request
 * bounds of [unsubscribe], and every change queued as the request the
 * mail interface would get (listweb_queue.c), so the runner stays the
 * only writer of list state.  It is a program of its own rather than
 * mj_unsubscribe grown: the one-click link's answers are a contract
 * with mailbox providers (RFC 8058) that stays small and fixed, while
 * these pages are for people and will grow.
 *
 * Every POST must come from this site: a browser's Origin or
 * Sec-Fetch-Site that names another is refused (403), and each form
 * carries a token (a form token, a confirmation token or the one-click
 * link's mac) that another site cannot know.  A GET never changes
 * anything.
 *
 * The configuration is /etc/mjq/mjq.conf, or $MJQ_CONF when the program
 * runs with its real user (never when it is installed set-user-ID).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cgi_query.h"
#include "cgi_req.h"
#include "cluster.h"
#include "listweb.h"
#include "log.h"
#include "spool_poke.h"

/* listweb_load - the configuration, the secret and the list: 0, or the
 * status answered */
static int
listweb_load(struct listweb *w, struct settings *s, struct lists_settings *ls,
    struct unsub_secret *us)
{
	struct cluster_settings cs; /* read to be checked, not used */
	struct settings_part parts[2];
	char err[PATH_MAX + 512];

	parts[0] = lists_settings_part(ls);
	parts[1] = cluster_settings_part(&cs);
	if (settings_load(s, parts, 2, cgi_config(SETTINGS_DEFAULT_FILE), 0,
		err, sizeof(err)) == -1 ||
	    unsub_secret_load(
		us, ls->unsubscribe_secret_file, err, sizeof(err)) == -1) {
		log_warnx("%s", err);
		return listweb_busy(w, 503), 503;
	}
	w->s = s;
	w->ls = ls;
	w->us = us;
	if (listconf_presence(s, w->domain, w->list, err, sizeof(err)) !=
	    LISTCONF_PRESENT)
		return listweb_refuse(
			   w, 404, "Not Found", "There is no such list here."),
		       404;
	if (listconf_load(s, w->domain, w->list, &w->lc, err, sizeof(err)) ==
	    -1) {
		log_warnx("%s", err);
		return listweb_busy(w, 503), 503;
	}
	return 0;
}

/* listweb_post - a POST's checks: same origin, a readable body; 0 */
static int
listweb_post(struct listweb *w)
{
	int r;

	if (!cgi_same_origin())
		return listweb_refuse(w, 403, "Forbidden",
			   "This form was sent from another site."),
		       403;
	if ((r = cgi_body(w->body, sizeof(w->body), &w->blen)) != 0)
		return r == 1 ? listweb_refuse(w, 413, "Content Too Large",
				    "The request is too large.")
			      : listweb_refuse(w, 400, "Bad Request",
				    "The request could not be read."),
		       400;
	return 0;
}

/* listweb_route - the page the query names */
static int
listweb_route(struct listweb *w)
{
	char token[SPOOL_TOKEN_LEN + 2], m[3 * SPOOL_TOKEN_LEN + 4];
	struct unsub_link l;

	if (cgi_query_field(w->query, "m", m, sizeof(m)) == 0)
		return listweb_moderate(w, m);
	if (cgi_query_field(w->query, "q", token, sizeof(token)) == 0)
		return listweb_held_queue(w, token);

	if (cgi_query_field(w->query, "c", token, sizeof(token)) == 0 ||
	    (w->method == CGI_POST &&
		cgi_query_field(w->body, "c", token, sizeof(token)) == 0))
		return listweb_confirm(w, token);
	if (cgi_query_field(w->query, "s", token, sizeof(token)) == 0 ||
	    cgi_query_field(w->query, "a", token, sizeof(token)) == 0) {
		if (unsub_link_parse(w->query, &l) == -1)
			return listweb_refuse(w, 400, "Bad Request",
			    "This link is incomplete or damaged.");
		return listweb_options(w, &l);
	}
	if (w->method == CGI_POST)
		return listweb_subscribe(w);
	return listweb_list_page(w);
}

int
main(void)
{
	static struct listweb w;
	struct lists_settings ls;
	struct unsub_secret us;
	struct settings s;

	setprogname("mj_listweb");
	umask(027);
	log_open("mj_listweb", LOG_TO_SYSLOG);
	w.now = time(NULL);
	w.method = cgi_method();
	w.query = getenv("QUERY_STRING");
	if (w.query == NULL)
		w.query = "";
	(void)strlcpy(w.list, "-", sizeof(w.list));
	(void)strlcpy(w.domain, "-", sizeof(w.domain));
	if (w.method == CGI_OTHER)
		return listweb_refuse(&w, 405, "Method Not Allowed",
		    "Only GET and POST are answered here.");
	if (unsub_link_list(w.query, w.list, w.domain) == -1)
		return listweb_refuse(&w, 400, "Bad Request",
		    "This address does not name a list.");
	if (listweb_load(&w, &s, &ls, &us) != 0)
		return 0;
	if (w.method == CGI_POST && listweb_post(&w) != 0)
		return 0;
	listweb_route(&w);
	if (w.method == CGI_POST)
		spool_poke(s.spool_dir, (int)s.enqueue_poke_timeout_ms);
	return 0;
}
