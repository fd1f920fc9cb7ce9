/*
 * names.h - validation of names that become path components.
 *
 * Domain and list names reach the file system as directory and file name
 * parts, so they are checked before any path is built: lowercase letters,
 * digits, '.', '-', '_', '+'; no leading dot; no ".."; bounded length.
 * And the check of a mail address as every part keeps one (a recipient
 * line of a state file, a subscriber, a command's argument): one token,
 * bounded, printable, an @ with something on each side.
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
int name_addr_ok(const char *addr);

#endif
