/*
 * mj_unsubscribe - the one-click unsubscribe front door (RFC 8058), a CGI
 * program that any web server can run (RFC 3875).
 *
 * Like mj_enqueue it does the least that is safe: check the link (list,
 * address, issue time and an HMAC under the site's secret), and on a POST
 * of List-Unsubscribe=One-Click commit a request into the spool, poke the
 * server and answer.  A GET only shows a page with one button, so a link
 * scanner that fetches every URL in a mail unsubscribes nobody.  It never
 * edits list files and never waits for a runner.
 *
 * Answers: 200 done (also for an address that is not subscribed: who is
 * a member is told to nobody), 400 a malformed link or body, 403 a token
 * that does not verify, 404 no such list, 405 another method, 410 a link
 * older than token_lifetime, 413 a body over UNSUB_BODY_MAX, 429 the
 * address asked more than address_requests_per_hour, 503 the secret or
 * the spool cannot be used now, or more than requests_per_minute came in
 * all.  Each is one log line.
 *
 * The configuration is /etc/mjq/mjq.conf, or $MJQ_CONF when the program
 * runs with its real user (never when it is installed set-user-ID).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cgi_req.h"
#include "cluster.h"
#include "lists.h"
#include "log.h"
#include "spool_poke.h"
#include "unsub.h"

/* unsub_list_exists - 1 the list can be read, 0 there is no such list
 * (or it was removed on purpose), -1 it cannot be told now (the lists
 * directory or the list's files missing: not mounted, being restored) */
static int
unsub_list_exists(const struct settings *s, const struct unsub_link *l)
{
	char why[PATH_MAX + 100], path[PATH_MAX];
	struct stat st;

	switch (listconf_presence(s, l->domain, l->list, why, sizeof(why))) {
	case LISTCONF_PRESENT:
		return 1;
	case LISTCONF_REMOVED:
		return 0;
	case LISTCONF_MISSING:
		break;
	}
	/* No such list: the lists directory is there, the list's is not. */
	if (stat(s->lists_dir, &st) == 0 &&
	    list_path(path, sizeof(path), s, l->domain, l->list, "") == 0 &&
	    stat(path, &st) == -1 && (errno == ENOENT || errno == ENOTDIR))
		return 0;
	return -1;
}

/* unsub_take - count a POST that would queue a request, per address
 * and list and in all (unsub_rate) */
static int
unsub_take(const struct settings *s, const struct lists_settings *ls,
    const struct unsub_link *l)
{
	char key[sizeof(l->addr) + sizeof(l->list) + sizeof(l->domain) + 3];

	if ((size_t)snprintf(key, sizeof(key), "%s %s@%s", l->addr, l->list,
		l->domain) >= sizeof(key))
		return -1; /* cannot be: key holds the three */
	return unsub_rate(s, ls, key, time(NULL));
}

/* unsub_refuse - one refusal, logged and answered */
static int
unsub_refuse(int status, const char *reason, const struct unsub_link *l,
    const char *text, int head)
{
	log_notice("%s %s@%s for <%s>: %d %s", l ? "refused" : "refused link",
	    l ? l->list : "-", l ? l->domain : "-", l ? l->addr : "-", status,
	    text);
	unsub_page_error(status, reason, l, text, head);
	return 0;
}

int
main(void)
{
	struct lists_settings ls;
	struct listconf lc;
	struct cluster_settings cs; /* read to be checked, not used */
	struct settings_part parts[2];
	struct settings s;
	struct unsub_secret us;
	struct unsub_link l;
	enum cgi_method method;
	char err[512], body[UNSUB_BODY_MAX + 1];
	size_t blen;
	int head, r;

	setprogname("mj_unsubscribe");
	umask(027);
	log_open("mj_unsubscribe", LOG_TO_SYSLOG);
	method = cgi_method();
	head = method == CGI_HEAD;
	if (method == CGI_OTHER)
		return unsub_refuse(405, "Method Not Allowed", NULL,
		    "Only GET and POST are answered here.", 0);
	if (unsub_link_parse(getenv("QUERY_STRING"), &l) == -1)
		return unsub_refuse(400, "Bad Request", NULL,
		    "This unsubscribe link is incomplete or damaged.", head);
	parts[0] = lists_settings_part(&ls);
	parts[1] = cluster_settings_part(&cs);
	if (settings_load(&s, parts, 2, cgi_config(SETTINGS_DEFAULT_FILE), 0,
		err, sizeof(err)) == -1 ||
	    unsub_secret_load(
		&us, ls.unsubscribe_secret_file, err, sizeof(err)) == -1) {
		log_warnx("%s", err);
		return unsub_refuse(503, "Service Unavailable", &l,
		    "Unsubscribing by link is not possible right now.", head);
	}
	switch (unsub_token_check(&us, l.list, l.domain, l.addr, l.issued,
	    l.mac, time(NULL), ls.unsubscribe_token_lifetime)) {
	case UNSUB_FORGED:
		return unsub_refuse(403, "Forbidden", &l,
		    "This unsubscribe link is not valid.", head);
	case UNSUB_EXPIRED:
		return unsub_refuse(410, "Gone", &l,
		    "This unsubscribe link has expired.", head);
	case UNSUB_OK:
		break;
	}
	if ((r = unsub_list_exists(&s, &l)) != 1)
		return r == 0 ? unsub_refuse(404, "Not Found", &l,
				    "There is no such list.", head)
			      : unsub_refuse(503, "Service Unavailable", &l,
				    "The list cannot be read right now.", head);
	if (method != CGI_POST) {
		/* Without the list's config, the page has no options link. */
		if (listconf_load(
			&s, l.domain, l.list, &lc, err, sizeof(err)) == -1)
			lc.pages_url[0] = '\0';
		unsub_page_confirm(&l, lc.pages_url, head);
		return 0;
	}
	if ((r = cgi_body(body, sizeof(body), &blen)) != 0)
		return r == 1 ? unsub_refuse(413, "Content Too Large", &l,
				    "The request body is too large.", 0)
			      : unsub_refuse(400, "Bad Request", &l,
				    "The request body could not be read.", 0);
	if (!unsub_cgi_one_click(body, blen))
		return unsub_refuse(400, "Bad Request", &l,
		    "The request does not ask for List-Unsubscribe=One-Click.",
		    0);
	if ((r = unsub_take(&s, &ls, &l)) == 429)
		return unsub_refuse(429, "Too Many Requests", &l,
		    "This address has asked too often; please try again later.",
		    0);
	if (r != 0)
		return unsub_refuse(503, "Service Unavailable", &l,
		    r == 503 ? "Too many requests right now; please try again "
			       "later."
			     : "Your request could not be recorded right now.",
		    0);
	if (unsub_commit(&s, &l) == -1) {
		log_warn("%s@%s: cannot queue the unsubscribe of <%s>", l.list,
		    l.domain, l.addr);
		return unsub_refuse(503, "Service Unavailable", &l,
		    "Your request could not be recorded right now.", 0);
	}
	spool_poke(s.spool_dir, (int)s.enqueue_poke_timeout_ms);
	log_info("%s@%s: one-click unsubscribe of <%s> queued", l.list,
	    l.domain, l.addr);
	unsub_page_done(&l);
	return 0;
}
