/*
 * bounce_rules.c - the rules that judge a failed delivery, as data: one
 * rule a row, with a reply that motivated it (real servers' words,
 * addresses and hosts replaced).  bounce_class.c applies them in this
 * order:
 *   1. bounce_first_codes: a code about the sender (the list's own
 *      address) is never the recipient's fault: policy.
 *   2. bounce_first_rules: texts naming a policy (a blocklist, spam,
 *      DMARC, a rate) decide before any code: "550 5.1.1 ... too many
 *      recipients this hour" is a rate limit whatever its code says.
 *   3. a policy code (X.7.X, or X.6.X about the message's content)
 *      anywhere in the reply: a relay's summary
 *      ("5.1.0 - Unknown address error 550-'5.7.1 ... Access denied'")
 *      quotes the receiver's own code after its own.
 *   4. bounce_code_rules on the first specific code in the reply text,
 *      when detailed (not X.Y.0): the receiver's own code.
 *   5. a Status field whose code is a policy one: policy.
 *   6. bounce_text_rules on the text.
 *   7. bounce_code_rules on the reply's code of a subject alone (X.Y.0,
 *      "other" within the subject: "553 5.3.0 ... No such user here").
 *   8. bounce_code_rules on the Status field (which an MTA may have
 *      made up from a bare reply code).
 *   9. the reply code: 4xx transient, 5xx unknown.
 * A message that expired in a queue (X.4.7, in the Status or first in
 * the reply) quotes its last reply as history: only the texts judge it
 * (2 and 6; "too many recipients" policy, "Please try again later"
 * transient, whatever 4.7.1 or 4.5.3 it came with), else transient.
 * t/730-bounce.bats checks every row's example against its row
 * (mj_bounceclass -r), and t/data/bounce-classes more replies.
 */
#include <stddef.h>

#include "bounce_rules.h"

#define R BOUNCE_RECIPIENT
#define M BOUNCE_MAILBOX
#define P BOUNCE_POLICY
#define T BOUNCE_TRANSIENT

const struct bounce_code_rule bounce_first_codes[] = {
    {1, 7, P, P,
	"553 5.1.7 The sender address <list-owner@example.org> is not a valid "
	"RFC-5321 address."},
    {1, 8, P, P,
	"553 5.1.8 <list-owner@example.org>: Sender address rejected: Domain "
	"not found"},
    {-1, -1, P, P, NULL},
};

const struct bounce_code_rule bounce_code_rules[] = {
    {1, 1, R, T,
	"550 5.1.1 <gone@example.com>: Recipient address rejected: User "
	"unknown in local recipient table"},
    {1, 2, R, T,
	"550 5.1.2 <gone@dead.example>: Recipient address rejected: Domain not "
	"found"},
    {1, 3, R, T, "501 5.1.3 Bad recipient address syntax"},
    {1, 6, R, T,
	"550 5.1.6 Recipient addresses in this domain no longer accepts mail"},
    {1, 10, R, T,
	"550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient not found by "
	"SMTP address lookup"},
    {2, 1, R, T,
	"550-5.2.1 The email account that you tried to reach is disabled."},
    {2, 2, M, M,
	"552-5.2.2 The email account that you tried to reach is over quota."},
    {2, 3, P, P, "552 5.2.3 Message size exceeds fixed maximum message size"},
    {4, 4, R, T,
	"5.4.4 Host or domain name not found. Name service error for "
	"name=dead.example type=A: Host not found"},
    {5, 3, P, P, "452 4.5.3 Recipients limit reached"},
    {3, -1, BOUNCE_UNKNOWN, T, "552 5.3.4 Message size exceeds fixed limit"},
    {6, -1, P, P, "552 5.6.0 Headers too large (32 max)"},
    {7, -1, P, P,
	"554 5.7.1 <list@example.org>: Client host rejected: Access denied"},
    {-1, -1, R, R, NULL},
};

const struct bounce_text_rule bounce_first_rules[] = {
    /* a local delivery program's own error: the server's, not the
     * address's */
    {"couldn't create", BOUNCE_UNKNOWN,
	"x-unix; procmail: Couldn't create \"/var/spool/mail/gone\" id: "
	"example.org: No such user"},
    /* a locked account: the mailbox is there, not usable for now */
    {"temporary locked", M,
	"550 5.7.1 <gone@example.com>: Recipient address rejected: User "
	"gone@example.com temporary locked. Please try again later!"},
    {"account is locked", M, "550 5.2.1 account is locked"},
    /* cPanel's Exim says this of every failure: it decides nothing */
    {"may not exist, they may be blacklisted", BOUNCE_UNKNOWN,
	"The mail server could not deliver mail to gone@example.net.  The "
	"account or domain may not exist, they may be blacklisted, or missing "
	"the proper dns entries."},
    /* refused at MAIL FROM: the sender, whatever the code says */
    {"after MAIL FROM", P,
	"SMTP error from remote mail server after MAIL "
	"FROM:<list-owner@example.org> SIZE=1022: 553 5.1.1 "
	"<list-owner@example.org>... No such user"},
    {"in reply to MAIL FROM", P,
	"host mx.example.com[192.0.2.7] said: 550 5.1.0 "
	"<list-owner@example.org>: Sender rejected (in reply to MAIL FROM "
	"command)"},
    {"sender address rejected", P,
	"550 5.1.0 <list-owner@example.org>: Sender address rejected: User "
	"unknown in local recipient table"},
    {"sender verify", P, "550 Sender verify failed"},
    /* refused before any recipient: the receiver refuses the sender */
    {"after initial connection", P,
	"SMTP error from remote mail server after initial connection: 550 "
	"Access denied"},
    {"after EHLO", P,
	"SMTP error from remote mail server after EHLO list.example.org: 550 "
	"Access denied"},
    {"after HELO", P,
	"SMTP error from remote mail server after HELO list.example.org: 550 "
	"Access denied"},
    {"refused to talk to me", P,
	"host mx.example.net[203.0.113.127] refused to talk to me: 421 Service "
	"not available"},
    {"not accepting connections", P,
	"554 mx.example.com ESMTP not accepting connections"},
    {"service refuse", P,
	"421 mwinf5c77 ME Service refuse. Veuillez essayer plus tard. Service "
	"refused, please try later."},
    {"mailer error", BOUNCE_UNKNOWN,
	"554 5.3.0 <gone@example.net>: Recipient address rejected: Mailer "
	"error"},
    {"connection refused", P,
	"<gone@example.ne.jp>... Deferred: Connection refused by "
	"mx.example.ne.jp."},
    {"not a member of", P,
	"You are not a member of this mailing list <list@example.org>."},
    {"dns ptr", P, "554-No SMTP service 554-Bad DNS PTR resource record."},
    /* Google Groups: the group refused the post (not a member, no
     * permission), in the poster's language */
    {"groups.google.com", P,
	"... you may not have permission to post messages to the group. ... "
	"https://groups.google.com/support/"},
    /* "user unknown" only after the message was read: a filter's
     * verdict on the message (NTT docomo, au), not a dead address */
    {"unknown user*in reply to end of DATA", P,
	"550 Unknown user gone@docomo.example.ne.jp (in reply to end of DATA "
	"command)"},
    {"user unknown*in reply to end of DATA", P,
	"550 5.1.1 <gone@example.jp>... User unknown (in reply to end of DATA "
	"command)"},
    {"spamhaus", P,
	"550 rejected because 192.0.2.1 is in a black list at "
	"zen.spamhaus.org"},
    {"spamcop", P,
	"554 Service unavailable; Client host [192.0.2.1] blocked using "
	"bl.spamcop.net"},
    {"barracuda", P,
	"554 Service unavailable; Client host blocked using Barracuda "
	"Reputation"},
    {"blocked using", P,
	"554 Service unavailable; Client host [192.0.2.1] blocked using "
	"dnsbl.example.net"},
    {"block list", P,
	"550 5.7.1 ... part of their network is on our block list (S3140)"},
    {"blocklist", P, "550 Your IP 192.0.2.1 is on a blocklist"},
    {"black list", P, "550 rejected because 192.0.2.1 is in a black list"},
    {"blacklist", P, "554 IP blacklisted"},
    {"too many recipients", P, "550 5.1.1 too many recipients this hour"},
    {"too many connections", P, "421 Too many connections from your IP"},
    {"too many messages", P, "450 Too many messages from your host, slow down"},
    {"too quickly", P,
	"450-4.2.1 The user you are trying to contact is receiving mail too "
	"quickly."},
    {"rate limit", P, "421 rate limit exceeded for 192.0.2.1"},
    {"unusual rate", P,
	"421-4.7.0 Our system has detected an unusual rate of unsolicited mail "
	"originating from your IP address."},
    {"dmarc", P,
	"550 5.7.26 Unauthenticated email from example.org is not accepted due "
	"to domain's DMARC policy."},
    {"unauthenticated", P,
	"550-5.7.26 This mail has been blocked because the sender is "
	"unauthenticated."},
    {"spf check", P, "550 SPF check failed"},
    {"spam", P,
	"550-5.7.1 Our system has detected that this message is likely "
	"unsolicited mail. To reduce the amount of spam sent to Gmail, this "
	"message has been blocked."},
    {"unsolicited", P, "550 Message rejected as unsolicited"},
    {"reputation", P, "550 5.7.1 Rejected due to poor IP reputation"},
    {"complaints", P,
	"421 4.7.0 [TSS04] Messages from 192.0.2.1 temporarily deferred due to "
	"unexpected volume or user complaints"},
    {"virus", P, "554 5.7.0 Message contains a virus"},
    {"reverse dns", P,
	"550 Client host rejected: cannot find your reverse DNS"},
    {"reverse hostname", P,
	"450 4.7.1 Client host rejected: cannot find your reverse hostname, "
	"[192.0.2.1]"},
    {"ptr record", P,
	"550 5.7.25 The IP address sending this message does not have a PTR "
	"record setup"},
    {"relay access denied", P,
	"554 5.7.1 <list@example.org>: Relay access denied"},
    {"relaying denied", P, "550 5.7.1 Relaying denied"},
    {"relay not permitted", P, "550 relay not permitted"},
    {"not permitted to relay", P, "550 not permitted to relay"},
    {"unable to relay", P, "550 5.7.1 Unable to relay for gone@example.com"},
    {"administrative prohibition", P, "550 Administrative prohibition"},
    {NULL, P, NULL},
};

const struct bounce_text_rule bounce_text_rules[] = {
    /* policy: what a receiver says of the sender or the message */
    {"account is blocked", R,
	"550 5.5.0 Le compte du destinataire est bloque. The recipient account "
	"is blocked."},
    {"blocked", P, "550 Mail from 192.0.2.1 blocked"},
    {"not allowed", P, "554 Host network not allowed"},
    {"after end of data", P,
	"SMTP error from remote mail server after end of data: 550 5.2.0 "
	"message refused"},
    {"dkim", P, "550 DKIM signature did not verify"},
    {"spf", P, "550 SPF validation failed"},
    {"policy", P, "554 Message not accepted for policy reasons."},
    {"too many", P, "421 too many errors from your host"},
    {"not authorized", P, "550 You are not authorized to send mail"},
    {"permission denied", P, "550 Permission denied"},
    {"content rejected", P, "554 Content rejected"},
    {"message rejected", P, "554 Message rejected"},
    /* mailbox: full or over quota */
    {"over quota", M,
	"552 The email account that you tried to reach is over quota."},
    {"overquota", M, "552 overquota"},
    {"quota exceeded", M, "552 Mailbox quota exceeded"},
    {"exceeded storage", M,
	"552 Requested mail action aborted: exceeded storage allocation"},
    {"mailbox full", M, "552 <full@example.com>: mailbox full"},
    {"mailbox is full", M, "The users mailbox is full."},
    {"mailbox size limit", M, "552 mailbox size limit exceeded"},
    {"insufficient disk space", M, "452 insufficient disk space in mailbox"},
    /* transient: greylisting, whatever it is rejected as */
    {"greylist", T, "450 4.2.0 Recipient address rejected: Greylisted"},
    {"graylist", T, "451 Graylisted, please try again"},
    /* recipient: no such user, account, mailbox or domain */
    {"user unknown", R, "550 <gone@example.com>... User unknown"},
    {"unknown user", R, "550 Unknown user gone@example.com"},
    {"no such user", R, "550 No Such User Here"},
    {"unknown recipient", R, "550 unknown recipient"},
    {"recipient unknown", R, "550 recipient unknown"},
    {"unknown address", R, "550 unknown address"},
    {"recipient not found", R,
	"550 Recipient not found by SMTP address lookup"},
    {"recipientnotfound", R, "550 RESOLVER.ADR.RecipientNotFound"},
    {"invalid recipient", R, "550 Invalid recipient <gone@example.com>"},
    {"invalid mailbox", R, "550 Invalid mailbox"},
    {"no such recipient", R, "550 no such recipient here"},
    {"not a valid recipient", R, "550 not a valid recipient"},
    {"not exist", R, "550 <gone@example.co.jp>... User not exist"},
    {"doesn't exist", R, "550 mailbox doesn't exist"},
    {"doesn't have a", R,
	"554 delivery error: dd This user doesn't have a yahoo.com account"},
    {"not listed in", R,
	"User gone (gone@example.com) not listed in Domino Directory"},
    {"name is not recognized", R, "The recipient name is not recognized"},
    {"no mailbox", R, "Sorry, no mailbox here by that name."},
    {"no such mailbox", R, "550 no such mailbox"},
    {"mailbox not found", R,
	"552 1 Requested mail action aborted, mailbox not found"},
    {"mailbox unavailable", R,
	"550 5.5.0 Requested action not taken: mailbox unavailable"},
    {"mailbox disabled", R, "550 mailbox disabled"},
    {"account*is disabled", R,
	"550 The email account that you tried to reach is disabled."},
    {"account has been disabled", R, "550 account has been disabled"},
    {"account disabled", R, "550 account disabled"},
    {"account is suspended", R, "550 account is suspended"},
    {"recipient address rejected: access denied", R,
	"550 5.4.1 Recipient address rejected: Access denied."},
    {"unrouteable address", R, "550 Unrouteable address"},
    {"host unknown", R,
	"550 Host unknown (Authoritative answer from name server)"},
    {"host or domain name not found", R,
	"Host or domain name not found. Name service error for "
	"name=dead.example type=A: Host not found"},
    {"unknown host", R, "gone@dead.example ... unknown host"},
    {"no mx record", R,
	"<gone@dead.example>: No mx record found for domain=dead.example"},
    {"invalid final delivery userid", R,
	"Invalid final delivery userid: gone@example.co.jp"},
    {"recipient address rejected", R,
	"550 <gone@example.jp>: Recipient address rejected."},
    /* Lotus Notes, Japanese: "not in the directory's list" */
    {"ディレクトリのリストにありません", R,
	"ディレクトリのリストにありません kijitora@u1.example.co.jp"},
    {"no SMTP service", R, "an MX or SRV record indicated no SMTP service"},
    {"domain is not reachable", R,
	"554 The mail could not be delivered to the recipient because the "
	"domain is not reachable."},
    {"domain not found", R, "550 Domain not found"},
    {"no such domain", R, "550 no such domain"},
    {"does not accept mail", R,
	"556 Domain nullmx.example does not accept mail (nullMX)"},
    /* transient: come back later */
    {"try again later", T, "451 try again later"},
    {"temporarily", T, "451 Message temporarily deferred"},
    {"temporary", T, "451 Temporary local problem"},
    {"deferred", T, "421 Deferred"},
    {"timed out", T,
	"4.4.1 connect to mx.example.com[192.0.2.9]:25: Connection timed out"},
    {NULL, T, NULL},
};
