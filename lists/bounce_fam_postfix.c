/*
 * bounce_fam_postfix.c - Postfix's notification text (bounce(8)
 * templates), read when its delivery-status part is missing:
 *   This is the mail system at host mx.example.com.
 *   ...
 *   <gone@example.com>: host mx.example.com[192.0.2.7] said: 550 5.1.1
 *       <gone@example.com>: Recipient address rejected: User unknown
 *   <list@example.org> (expanded from <alias@example.org>): unknown user
 * and its notice of an SMTP session's error to the postmaster:
 *   Transcript of session follows.
 *    In:  RCPT TO:<gone@example.com> ORCPT=rfc822;gone@example.com
 *    Out: 451 4.3.0 Error: queue file write error
 * Samples: lhost-postfix-*.eml.  Format: Postfix bounce(5) templates.
 */
#include <stddef.h>

#include "bounce_family.h"

const struct bounce_family bounce_fam_postfix = {
    "Postfix",
    {"This is the mail system at host", "This is the Postfix program",
	"Postfix", " In:  RCPT TO:"},
    {NULL},
    {"^<" FAM_ADDR ">(:| \\(expanded from)", "^ In: +RCPT TO:<" FAM_ADDR ">"},
    0,
};
