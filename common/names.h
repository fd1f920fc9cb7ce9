/*
 * names.h - validation of names that become path components.
 *
 * Domain and list names reach the file system as directory and file name
 * parts, so they are checked before any path is built: lowercase letters,
 * digits, '.', '-', '_', '+'; no leading dot; no ".."; bounded length.
 * And the check of a mail address as every part keeps one (a recipient
 * line of a state file, a subscriber, a command's argument, a one-click
 * link): RFC 5321's Mailbox with a dot-atom local part, no '#' (a
 * comment in a subscribers file), no quotes, blanks or control
 * characters, US-ASCII, bounded.  A spool state file's recipient line
 * is checked more loosely (name_rcpt_ok): one printable token with an @.
 */
#ifndef MJQ_NAMES_H
#define MJQ_NAMES_H

#include <stddef.h>

#define NAME_DOMAIN_MAX 253
#define NAME_LIST_MAX 64
#define NAME_ADDR_MAX 512

const char *name_check(const char *name, size_t maxlen);
const char *name_check_domain(const char *name);
const char *name_check_list(const char *name);
const char *name_addr_check(const char *addr);
int name_addr_ok(const char *addr);
int name_rcpt_ok(const char *addr);

#endif
