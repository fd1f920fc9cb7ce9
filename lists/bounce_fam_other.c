/*
 * bounce_fam_other.c - the forms many smaller MTAs and providers share,
 * tried last on any report:
 *   <gone@example.com>: 550 ...                 (many)
 *   There was an error delivering your mail to <gone@example.com>.
 *                                               (DragonFly Mail Agent)
 *   gone@example.com: 550 5.1.1 ...             (OpenSMTPD)
 *   gone@example.com ... unknown host           (MMDF, PP)
 *   Invalid final delivery userid: gone@example.com  (IMail)
 *      * gone@example.com                      (X3, Barracuda)
 *   Unknown user: gone@example.com             (IMail)
 *   undeliverable to gone@example.com          (IMail)
 *   Recipient address: gone@example.com        (Oracle Messaging Server)
 *   The following recipients returned permanent errors: gone@example.com.
 *   kijitora:00000:<gone@example.com> : ...    (SendGrid)
 *   Sent <<< RCPT TO:<gone@example.com>         (Trend Micro InterScan)
 * Samples: lhost-dragonfly-*.eml, lhost-opensmtpd-*.eml,
 * lhost-x3-*.eml, lhost-imailserver-*.eml, lhost-messagingserver-*.eml,
 * lhost-x6-*.eml, lhost-sendgrid-*.eml.
 */
#include <stddef.h>

#include "bounce_family.h"

const struct bounce_family bounce_fam_other = {
    "other",
    {NULL},
    {NULL},
    {"^[^<>]{0,40}<" FAM_ADDR ">[[:space:]]*(:|$)",
	"(delivering your mail to|undeliverable to|permanent errors:|delivered "
	"to:) *<?" FAM_ADDR,
	"^[[:space:]]*" FAM_ADDR ": ", "RCPT TO: *<" FAM_ADDR ">",
	"^[[:space:]]*" FAM_ADDR " \\.\\.\\. ",
	"^[[:space:]]*[*-] " FAM_ADDR "[[:space:]]*$",
	"^[[:space:]]*(Unknown user|Recipient address|Recipient|Invalid "
	"recipient|Addressee|Invalid final delivery userid): *<?" FAM_ADDR,
	"^[[:space:]]*" FAM_ADDR "[[:space:]]*$"},
    0,
};
