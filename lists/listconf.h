/*
 * listconf.h - a list's configuration and subscribers (listconf.c).
 */
#ifndef MJQ_LISTCONF_H
#define MJQ_LISTCONF_H

#include <limits.h>
#include <stddef.h>

#include "head_rules.h"
#include "settings.h"
#include "names.h"
#include "subs_mode.h"

struct listconf {
	char owners[2048];
	char subject_prefix[128];
	char reply_to[NAME_ADDR_MAX + 1];
	long long max_message_size;
	int verp;
	int verp_rate; /* percent of posts sent VERP when verp is off */
	char archive[PATH_MAX];	   /* a maildir that keeps every post */
	char unsubscribe_url[512]; /* one-click links (RFC 8058), or "" */
	char pages_url[512];	   /* mj_listweb's URL, or "" */
	char archive_url[512];	   /* List-Archive's template, or "" */
	char archived_at_url[512]; /* Archived-At's template, or "" */
	int archive_web;	   /* posts into mj_archive's web archive */
	int archive_public;	   /* its pages in [archive] public_dir */
	/* digests (listfn/digest.c) */
	int digest;	       /* posts are collected for digests */
	long long digest_size; /* an issue when the posts reach it */
	long long digest_hour; /* an issue daily at this hour */
	/* request and bounce handling (request.c, bounce.c) */
	int subscribe_approval;
	char who_access[16];
	long long bounce_threshold;	   /* hundredths; 0 = never */
	long long bounce_weight_recipient; /* hundredths */
	long long bounce_weight_mailbox;   /* hundredths */
	long long bounce_max_age;
	long long bounce_incident_share; /* percent of a destination's */
	long long bounce_incident_min;	 /* recipients, at least */
	int bounce_judge; /* the runner counts its posts' failures: no DSN */
	int complaint_unsubscribe;	 /* an ARF abuse report unsubscribes */
	long long bounce_probes;	 /* probes before removal; 0 = none */
	long long bounce_probe_interval; /* seconds between probes */
	int dmarc_mitigation;		 /* enum dmarc_mitigation (dmarc.h) */
	/* who may post (posting.c) */
	int posting;	      /* enum posting_policy */
	int nonmember_action; /* enum posting_action */
	char moderators[2048];
	char accept_from[PATH_MAX];
	long long moderation_lifetime;
	/* content filter (content_filter.c) */
	int content_filter;
	char filter_types[1024];
	char pass_types[1024];
	int filter_action; /* enum content_filter_action */
	int convert_html;
	int collapse_alternatives;
	int emergency;		  /* every post held (posting_rules.c) */
	long long max_recipients; /* in To and Cc; 0: no limit */
	/* header rules (head_rules.c) */
	char remove_headers[HEAD_RULES_NAMES_MAX];
};
/* Whether a list can be read now (listconf_presence). */
enum listconf_presence {
	LISTCONF_PRESENT,
	LISTCONF_MISSING, /* lists dir, list dir or subscribers absent: wait */
	LISTCONF_REMOVED  /* removed on purpose: LISTCONF_REMOVED_FILE */
};
#define LISTCONF_REMOVED_FILE "removed"
enum listconf_presence listconf_presence(const struct settings *s,
    const char *domain, const char *list, char *why, size_t whylen);
int listconf_load(const struct settings *s, const char *domain,
    const char *list, struct listconf *lc, char *err, size_t errlen);
int listconf_subscribers_each(const struct settings *s, const char *domain,
    const char *list, int (*fn)(void *arg, const char *addr), void *arg,
    char *err, size_t errlen);
int listconf_subscribers_each_mode(const struct settings *s, const char *domain,
    const char *list,
    int (*fn)(void *arg, const char *addr, enum subs_mode mode), void *arg,
    char *err, size_t errlen);
int listconf_subscribers_find(const struct settings *s, const char *domain,
    const char *list, const char *const *addr, int *found, size_t n, char *err,
    size_t errlen);
int listconf_split(const char *text, char ***out, size_t *n);
void listconf_free_vec(char **v, size_t n);
int listconf_in(const char *text, const char *addr);

#endif
