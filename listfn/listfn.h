/*
 * listfn.h - the list functions, the Majordomo part of a runner: what is
 * done to a claimed message by its function (a post expanded to its
 * list, owner mail, a request, a moderator's command, an incoming
 * bounce), the mail the functions make (replies, notices, DSNs) and the
 * sweep of expired held posts, and the daily TLS-RPT reports.  They work
 * against an environment and a view of the message (listfn_msg.h), not the
 * runner's state.  The one header other parts include.
 *
 * A runner enters through two doors: listfn_first (a message's first
 * processing, listfn_first.h) and listfn_text (each text to send,
 * listfn_text.h); behind them the functions choose post, owner mail,
 * request or digest themselves.  Beside the doors: moving a message
 * aside, the DSNs the runner's outcomes need, and the sweeps.  post.h
 * and text_file.h are here only for the fuzz target that checks the
 * header a post is sent with (t/fuzz/fuzz_header.c); no part calls them.
 */
#ifndef MJQ_LISTFN_H
#define MJQ_LISTFN_H

#include "archive_post.h"
#include "digest.h"
#include "dsn.h"
#include "listfn_aside.h"
#include "listfn_clock.h"
#include "listfn_first.h"
#include "listfn_msg.h"
#include "listfn_text.h"
#include "moderate_expire.h"
#include "post.h"
#include "text_file.h"
#include "tlsrpt_sweep.h"

#endif
