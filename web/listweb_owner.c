/*
 * listweb_owner.c - the owner's read-only view of a list, shown on the
 * held posts' page when the held command came from an owner (the token
 * says "owner yes"): the subscribers by delivery mode, each address
 * whose delivery is disabled with since when and why, the failures the
 * runners judged per class and the complaints (state/bounce-counts),
 * and the open incidents (state/incidents) - the figures mj_queueserv
 * status shows for the list.  It reads files whole, without locks, as
 * mj_queueserv does (lockedit renames).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "archive.h"
#include "listweb.h"
#include "spool_bounce_count.h"
#include "spool_incident.h"

static const char *const listweb_classes[SPOOL_BOUNCE_CLASSES] = {
    "recipient", "mailbox", "policy", "transient", "unknown"};

/* listweb_owner_modes - the subscribers, counted by mode */
static void
listweb_owner_modes(const struct listweb *w)
{
	struct subs_mode_ent *v = NULL;
	size_t n = 0, i, count[SUBS_NMODES] = {0};
	char err[512];
	int m;

	printf("<h2>Subscribers</h2>\n");
	if (subs_mode_list(
		w->s, w->domain, w->list, &v, &n, err, sizeof(err)) == -1) {
		printf("<p>The subscribers cannot be read now.</p>\n");
		return;
	}
	for (i = 0; i < n; i++)
		count[v[i].mode]++;
	free(v);
	printf("<table>\n<tr><th>mode</th><th>subscribers</th></tr>\n");
	for (m = 0; m < SUBS_NMODES; m++)
		printf("<tr><td>%s</td><td>%zu</td></tr>\n",
		    subs_mode_name((enum subs_mode)m), count[m]);
	printf("<tr><td>all</td><td>%zu</td></tr>\n</table>\n", n);
}

/* listweb_owner_disabled - the addresses disabled by their bounces */
static void
listweb_owner_disabled(const struct listweb *w)
{
	struct subs_disabled *v = NULL;
	size_t n = 0, i;

	printf("<h2>Delivery disabled</h2>\n");
	if (subs_disabled_load(w->s, w->domain, w->list, &v, &n) == -1) {
		printf("<p>The disabled addresses cannot be read now.</p>\n");
		return;
	}
	if (n == 0)
		printf("<p>None.</p>\n");
	else
		printf("<table>\n<tr><th>address</th><th>since</th>"
		       "<th>probes</th><th>why</th></tr>\n");
	for (i = 0; i < n; i++) {
		printf("<tr><td>");
		listweb_page_esc(v[i].addr);
		printf("</td><td>");
		archive_html_date(stdout, (time_t)v[i].since);
		printf("</td><td>%d</td><td>", v[i].probes);
		listweb_page_esc(v[i].why);
		printf("</td></tr>\n");
	}
	printf("%s", n ? "</table>\n" : "");
	free(v);
}

/* listweb_owner_bounces - the list's judged failures and complaints */
static void
listweb_owner_bounces(const struct listweb *w, const char *name)
{
	struct spool_bounce_count *v = NULL, *b = NULL;
	size_t n = 0, i;

	printf("<h2>Bounces</h2>\n");
	if (spool_bounce_count_list(w->s->spool_dir, &v, &n) == -1) {
		printf("<p>The counts cannot be read now.</p>\n");
		return;
	}
	for (i = 0; i < n && b == NULL; i++)
		if (strcmp(v[i].list, name) == 0)
			b = &v[i];
	printf("<table>\n<tr><th>class</th><th>failures</th></tr>\n");
	for (i = 0; i < SPOOL_BOUNCE_CLASSES; i++)
		printf("<tr><td>%s</td><td>%llu</td></tr>\n",
		    listweb_classes[i], b ? b->judged[i] : 0ULL);
	printf("<tr><td>complaints</td><td>%llu</td></tr>\n</table>\n",
	    b ? b->complaints : 0ULL);
	free(v);
}

/* listweb_owner_incidents - the list's open incidents */
static void
listweb_owner_incidents(const struct listweb *w, const char *name)
{
	struct spool_incident *v = NULL;
	size_t n = 0, i, shown = 0;

	printf("<h2>Incidents</h2>\n");
	if (spool_incident_list(w->s->spool_dir, w->now, &v, &n) == -1) {
		printf("<p>The incidents cannot be read now.</p>\n");
		return;
	}
	for (i = 0; i < n; i++) {
		if (strcmp(v[i].list, name) != 0)
			continue;
		printf("%s<li>", shown++ == 0 ? "<ul>\n" : "");
		listweb_page_esc(v[i].dest);
		printf(": ");
		listweb_page_esc(v[i].class);
		printf(", %lld of %lld recipients, since ", v[i].count,
		    v[i].total);
		archive_html_date(stdout, (time_t)v[i].since);
		printf("</li>\n");
	}
	printf("%s", shown ? "</ul>\n" : "<p>None open.</p>\n");
	free(v);
}

/* listweb_owner - the owner's view, into the page */
void
listweb_owner(const struct listweb *w)
{
	char name[NAME_ADDR_MAX + 1];

	if ((size_t)snprintf(name, sizeof(name), "%s@%s", w->list, w->domain) >=
	    sizeof(name))
		return; /* cannot be: sized for both */
	listweb_owner_modes(w);
	listweb_owner_disabled(w);
	listweb_owner_bounces(w, name);
	listweb_owner_incidents(w, name);
}
