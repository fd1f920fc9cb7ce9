/*
 * bounce_fam_japan.c - Japanese carriers and filters: au/KDDI (au one
 * net, EZweb), NTT docomo, m-FILTER, X1/X3 gateways:
 *   Your mail sent on: Thu, 29 Apr 2013 23:45:22 +0900
 *        Could not be delivered to: <gone@example.ne.jp>
 *        As their mailbox is full.
 *   Each of the following recipients was rejected by a remote mail server.
 *       Recipient: <gone@example.com>
 *   ---The following addresses had delivery errors---
 *   gone@example.co.jp [User unknown]
 * Samples: lhost-kddi-*.eml, lhost-ezweb-*.eml, lhost-mfilter-*.eml,
 * lhost-x1-*.eml, lhost-x3-*.eml, rhost-nttdocomo-*.eml.
 */
#include <stddef.h>

#include "bounce_family.h"

const struct bounce_family bounce_fam_japan = {
    "Japanese carriers",
    {"Could not be delivered to", "Recipient:", "delivery errors", "m-FILTER",
	"au one net", "ezweb", "docomo"},
    {NULL},
    {"Could not be delivered to: *<" FAM_ADDR ">",
	"^[[:space:]]*Recipient: *<" FAM_ADDR ">", "^" FAM_ADDR " \\[",
	"^[[:space:]]*" FAM_ADDR "[[:space:]]*$"},
    0,
};
