/*
 * bounce_fam_exchange.c - Microsoft Exchange 2003, 2007 and later,
 * Office 365 and Outlook.com notification texts:
 *   Your message did not reach some or all of the intended recipients.
 *   ... did not reach the following recipient(s):
 *   gone@example.com on 29/04/2010 00:00
 *       The e-mail account does not exist at the organization ...
 *   Delivery has failed to these recipients or groups:
 *   gone@example.com<mailto:gone@example.com>
 *   The email address wasn't found at the destination domain. ...
 * Samples: lhost-exchange2003-*.eml, lhost-exchange2007-*.eml,
 * lhost-office365-*.eml, lhost-outlook-*.eml.  Format: Microsoft's
 * "non-delivery reports in Exchange Online" documentation.
 */
#include <stddef.h>

#include "bounce_family.h"

const struct bounce_family bounce_fam_exchange = {
    "Exchange",
    {"did not reach the following recipient", "Delivery has failed to these",
	"MSEXCH", "did not reach some or all", "couldn't be delivered",
	"could not be delivered to the following recipients"},
    {"did not reach the following recipient", "Delivery has failed to these",
	"couldn't be delivered", "following recipients"},
    {"^[[:space:]]*'?" FAM_ADDR "'? on ",
	"^[[:space:]]*'?" FAM_ADDR "'?[[:space:]]*(<mailto:|\\(|$)",
	"^Your message to " FAM_ADDR " couldn't be delivered"},
    0,
};
