/*
 * lists_settings.h - the list sections of mjq.conf (lists_settings.c):
 * [request], [dkim], [arc], [dmarc], [unsubscribe] and [tlsrpt], what
 * lists/, the
 * list functions (listfn/) and mj_unsubscribe read of the file.
 *
 * Every program that reads mjq.conf passes lists_settings_part to
 * settings_load, so that each accepts these sections and refuses an
 * unknown key in them.  lists_settings.c holds only the table and no
 * call into the rest of liblists: mj_enqueue links its object alone.
 */
#ifndef MJQ_LISTS_SETTINGS_H
#define MJQ_LISTS_SETTINGS_H

#include <limits.h>

#include "settings.h"

struct lists_settings {
	/* [request] (listfn/: request and moderation tokens, replies) */
	long long request_token_lifetime;
	long long request_reply_rate_limit;
	long long request_reply_rate_period;
	/* [dkim] (dkim_conf.c; a domain may override in its key dir) */
	int dkim_sign;
	char dkim_key_dir[PATH_MAX];
	char dkim_selectors[128];
	char dkim_ed25519_selector[64];
	/* [arc] (arc_ar.c, arc_seal.c through listfn/post_dmarc.c) */
	int arc_seal;
	char arc_trusted_authserv_ids[512];
	/* [dmarc] (dmarc.c through listfn/post_dmarc.c) */
	long long dmarc_cache_ttl_max;
	long long dmarc_negative_ttl;
	/* [unsubscribe] (rcpt_head.c, subs_edit.c, mj_unsubscribe) */
	char unsubscribe_secret_file[PATH_MAX];
	long long unsubscribe_token_lifetime;
	long long unsubscribe_address_per_hour; /* one-click POSTs, 0 none */
	long long unsubscribe_per_minute;	/* all of them, 0 none */
	/* [tlsrpt] (listfn/tlsrpt_sweep.c: daily TLS-RPT reports, RFC 8460) */
	int tlsrpt_enable;
	char tlsrpt_from[512];	       /* the reports' From: and sender */
	char tlsrpt_organization[256]; /* "": the From domain */
	char tlsrpt_contact[512];      /* "": the From address */
};

struct settings_part lists_settings_part(struct lists_settings *ls);

#endif
