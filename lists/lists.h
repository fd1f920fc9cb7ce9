/*
 * lists.h - liblists, what a list is: its configuration and subscribers
 * (streamed reading, atomic edits), the set of addresses seen, MIME and
 * command parsing of requests, reading a stored message's header, the
 * failed addresses a delivery report names, DKIM
 * signing, ARC sealing and DMARC policies, each copy's own header fields
 * (one-click link and signature) and one-click tokens; the list sections
 * of mjq.conf (lists_settings.h).  The one header other parts include.
 * No spool knowledge.
 */
#ifndef MJQ_LISTS_H
#define MJQ_LISTS_H

#include "addr_set.h"
#include "arc.h"
#include "archive_url.h"
#include "arf_parse.h"
#include "autoreply.h"
#include "bans.h"
#include "bounce_charset.h"
#include "bounce_class.h"
#include "bounce_parse.h"
#include "bounce_read.h"
#include "bounce_report.h"
#include "bounce_rules.h"
#include "bounce_score.h"
#include "cmd_mime.h"
#include "cmd_mime_ext.h"
#include "cmd_mime_words.h"
#include "cmd_parse.h"
#include "content_filter.h"
#include "dkim_canon.h"
#include "dkim_conf.h"
#include "dkim_sign.h"
#include "dmarc.h"
#include "head_rules.h"
#include "header.h"
#include "html_text.h"
#include "list_head.h"
#include "list_path.h"
#include "list_text.h"
#include "list_walk.h"
#include "listconf.h"
#include "lists_settings.h"
#include "post_footer.h"
#include "posting.h"
#include "posting_rules.h"
#include "rcpt_head.h"
#include "subs_disabled.h"
#include "subs_bulk.h"
#include "subs_edit.h"
#include "subs_mode.h"
#include "text_utf8.h"
#include "unsub_link.h"
#include "unsub_rate.h"
#include "unsub_token.h"

#endif
