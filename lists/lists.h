/*
 * lists.h - liblists, what a list is: its configuration and subscribers
 * (streamed reading, atomic edits), the set of addresses seen, MIME and
 * command parsing of requests, reading a stored message's header, DKIM
 * signing and DMARC policies.
 * No spool knowledge beyond address lengths.
 */
#ifndef MJQ_LISTS_H
#define MJQ_LISTS_H

#include "addr_set.h"
#include "cmd_mime.h"
#include "cmd_parse.h"
#include "dkim_canon.h"
#include "dkim_conf.h"
#include "dkim_sign.h"
#include "dmarc.h"
#include "header.h"
#include "listconf.h"
#include "posting.h"
#include "subs_edit.h"

#endif
