/*
 * listfn.h - the list functions, the Majordomo part of a runner: what is
 * done to a claimed message by its function (a post expanded to its
 * list, owner mail, a request, a moderator's command, an incoming
 * bounce), the mail the functions make (replies, notices, DSNs) and the
 * sweep of expired held posts, and the daily TLS-RPT reports.  They work
 * against an environment and a view of the message (listfn_msg.h), not the
 * runner's state.  The one header other parts include.
 */
#ifndef MJQ_LISTFN_H
#define MJQ_LISTFN_H

#include "archive_post.h"
#include "digest.h"
#include "digest_expand.h"
#include "dsn.h"
#include "listfn_aside.h"
#include "listfn_clock.h"
#include "listfn_list.h"
#include "listfn_state.h"
#include "listfn_text.h"
#include "expand_list.h"
#include "expand_owner.h"
#include "expand_sign.h"
#include "listfn_aside.h"
#include "listfn_list.h"
#include "listfn_msg.h"
#include "listfn_text.h"
#include "moderate_expire.h"
#include "request.h"
#include "tlsrpt_sweep.h"

#endif
