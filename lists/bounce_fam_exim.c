/*
 * bounce_fam_exim.c - Exim and the reports written after it (GMX,
 * MXLogic, Zoho, mail.com, Mail.ru):
 *   This message was created automatically by mail delivery software.
 *   A message that you sent could not be delivered to one or more of its
 *   recipients. This is a permanent error. The following address(es)
 *   failed:
 *     gone@example.com
 *       SMTP error from remote mail server after RCPT TO:<gone@...>:
 *       550 5.1.1 <gone@example.com>: Recipient address rejected
 *   ------ This is a copy of the message, including all the headers.
 * GMX quotes the address ("gone@example.com":), MXLogic brackets it
 * (<gone@example.com>: 550 ...), Zoho puts the reason beside it.
 * Samples: lhost-exim-*.eml, lhost-gmx-*.eml, lhost-mxlogic-*.eml,
 * lhost-zoho-*.eml, lhost-mailru-*.eml.  Format: Exim's spec, chapter
 * "Message processing" (bounce messages) and its X-Failed-Recipients.
 */
#include <stddef.h>

#include "bounce_family.h"

const struct bounce_family bounce_fam_exim = {
    "Exim",
    {"mail delivery software", "address(es) failed", "following address",
	"could not be delivered to one or more"},
    {"address(es) failed", "following address", "permanent error",
	"could not be delivered to one or more"},
    {"^[[:space:]]*\"?<?" FAM_ADDR ">?\"?:?[[:space:]]*$",
	"^[[:space:]]*<" FAM_ADDR ">:", "^[[:space:]]*" FAM_ADDR " [^ ]"},
    0,
};
