/*
 * smtp.h - libsmtp, the SMTP client: a session (connect, greeting, EHLO),
 * a transaction (MAIL, RCPT, DATA with dot-stuffing), replies, STARTTLS
 * and its policy (OpenSSL), and the DNS look-ups that turn a nexthop
 * into addresses to try (MX, A/AAAA), DANE records (TLSA) and TXT
 * records (DMARC policies), and MTA-STS (RFC 8461): the policy and TXT
 * parsers, MX patterns, and TLS-RPT (RFC 8460): a session's result
 * type, the _smtp._tls record.  The policy's HTTPS fetch is a program of
 * its own (stsfetch/mj_stsfetch), so that no runner links libcurl.
 */
#ifndef MJQ_SMTP_H
#define MJQ_SMTP_H

#include "dns_txt.h"
#include "mx_parse.h"
#include "mx_resolve.h"
#include "mx_tlsa.h"
#include "smtp_data.h"
#include "smtp_reply.h"
#include "smtp_session.h"
#include "smtp_tls.h"
#include "smtp_xact.h"
#include "mta_sts.h"
#include "tlsrpt.h"

#endif
