/*
 * names.c - validation of names that become path components.
 *
 * The rules are deliberately narrow (see names.h): a name that passes can
 * be used as one path component with no quoting and cannot climb out of
 * its directory or hide from ls.  An address is held to the one grammar
 * of a stored Mailbox (name_addr_check), whatever reads or writes it.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "names.h"

/* name_check - NULL when the name is acceptable, else the reason */
const char *
name_check(const char *name, size_t maxlen)
{
	const unsigned char *p;
	size_t len;

	if ((len = strlen(name)) == 0)
		return "empty name";
	if (len > maxlen)
		return "name too long";
	if (name[0] == '.')
		return "name starts with a dot";
	if (strstr(name, "..") != NULL)
		return "name contains \"..\"";
	for (p = (const unsigned char *)name; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		    *p == '.' || *p == '-' || *p == '_' || *p == '+')
			continue;
		if (*p >= 'A' && *p <= 'Z')
			return "name contains upper case (names are "
			       "lowercase)";
		if (*p == '/')
			return "name contains '/'";
		if (*p < 0x20 || *p == 0x7f)
			return "name contains a control character";
		return "name contains a character other than a-z 0-9 . - _ +";
	}
	return NULL;
}

/* name_check_domain - a list's domain */
const char *
name_check_domain(const char *name)
{
	return name_check(name, NAME_DOMAIN_MAX);
}

/* name_check_list - a list name */
const char *
name_check_list(const char *name)
{
	return name_check(name, NAME_LIST_MAX);
}

/* addr_atext - c may stand in a Dot-string atom of a stored address:
 * RFC 5321's atext (RFC 5322 3.2.3) but '#', which begins a comment in
 * the files that hold addresses */
static int
addr_atext(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') ||
	       (c != '\0' && strchr("!$%&'*+-/=?^_`{|}~", c) != NULL);
}

/* addr_local - what is wrong with a local part of n bytes (a
 * Dot-string: atoms joined by single dots), or NULL */
static const char *
addr_local(const char *p, size_t n)
{
	size_t i;

	if (n == 0)
		return "empty local part";
	if (p[0] == '.' || p[n - 1] == '.')
		return "local part begins or ends with a dot";
	for (i = 0; i < n; i++) {
		if (p[i] == '.' && p[i + 1] == '.')
			return "two dots in a row in the local part";
		if (p[i] != '.' && !addr_atext((unsigned char)p[i]))
			return p[i] == '"' || p[i] == '\\'
				   ? "a quoted local part (not accepted: "
				     "the subscribers file cannot hold one)"
				   : "a character the local part cannot "
				     "hold (one of ( ) < > [ ] : ; @ , \\ \")";
	}
	return NULL;
}

/* addr_literal - what is wrong with an address literal [...] (RFC 5321
 * 4.1.3: an IPv4 address, or IPv6: and an IPv6 address), or NULL */
static const char *
addr_literal(const char *d, size_t n)
{
	char ip[64];
	unsigned char buf[16];
	int v6;

	if (n < 3 || d[n - 1] != ']' || n - 2 >= sizeof(ip))
		return "malformed address literal";
	v6 = n > 7 && strncasecmp(d + 1, "IPv6:", 5) == 0;
	memcpy(ip, d + 1 + (v6 ? 5 : 0), n - 2 - (v6 ? 5 : 0));
	ip[n - 2 - (v6 ? 5 : 0)] = '\0';
	if (inet_pton(v6 ? AF_INET6 : AF_INET, ip, buf) != 1)
		return "malformed address literal";
	return NULL;
}

/* addr_domain - what is wrong with a domain of n bytes (RFC 5321
 * 4.1.2: labels of letters, digits and inner hyphens, joined by dots;
 * or an address literal), or NULL */
static const char *
addr_domain(const char *d, size_t n)
{
	size_t i, label = 0;

	if (n == 0)
		return "empty domain";
	if (d[0] == '[')
		return addr_literal(d, n);
	if (n > NAME_DOMAIN_MAX)
		return "domain too long";
	if (d[n - 1] == '.')
		return "domain ends with a dot";
	for (i = 0; i <= n; i++) {
		if (i == n || d[i] == '.') {
			if (label == 0)
				return "empty label in the domain";
			if (d[i - 1] == '-')
				return "a domain label ends with '-'";
			label = 0;
			continue;
		}
		if (!isalnum((unsigned char)d[i]) && d[i] != '-')
			return "a character a domain cannot hold (letters, "
			       "digits, '-' and '.' only)";
		if (label == 0 && d[i] == '-')
			return "a domain label begins with '-'";
		if (++label > 63)
			return "a domain label over 63 characters";
	}
	return NULL;
}

/* name_addr_check - NULL when addr is a Mailbox as mjq stores one, else
 * what is wrong with it.  The grammar is RFC 5321 4.1.2's
 *
 *     Mailbox = Local-part "@" ( Domain / address-literal )
 *
 * with a Dot-string local part (a quoted one is refused: the files of
 * addresses cannot hold its blanks and quotes safely), without '#' (a
 * comment in those files), in US-ASCII; bounded by NAME_ADDR_MAX. */
const char *
name_addr_check(const char *addr)
{
	const unsigned char *p;
	const char *at, *why;
	size_t len = strlen(addr);

	if (len == 0)
		return "empty address";
	if (len > NAME_ADDR_MAX)
		return "address too long";
	for (p = (const unsigned char *)addr; *p; p++) {
		if (*p == ' ' || *p == '\t')
			return "a blank in the address";
		if (*p < 0x20 || *p == 0x7f)
			return "a control character in the address";
		if (*p >= 0x80)
			return "a character outside US-ASCII in the address";
		if (*p == '#')
			return "'#' in the address (it begins a comment in "
			       "a subscribers file)";
	}
	if (addr[0] == '"')
		return "a quoted local part (not accepted: the subscribers "
		       "file cannot hold one)";
	if ((at = strrchr(addr, '@')) == NULL)
		return "no @ in the address";
	if ((why = addr_local(addr, (size_t)(at - addr))) != NULL)
		return why;
	return addr_domain(at + 1, strlen(at + 1));
}

/* name_rcpt_ok - 1 when an address can be a recipient line of a spool
 * state file: bounded, printable, no blanks or angle brackets, an @ not
 * at an end.  Looser than name_addr_check on purpose: a DSN goes to
 * whatever envelope sender the MTA handed over, and a message queued
 * before the grammar tightened stays readable. */
int
name_rcpt_ok(const char *addr)
{
	const unsigned char *p;
	const char *at;
	size_t len = strlen(addr);

	if (len == 0 || len > NAME_ADDR_MAX)
		return 0;
	for (p = (const unsigned char *)addr; *p; p++)
		if (*p <= 0x20 || *p >= 0x7f || *p == '<' || *p == '>')
			return 0;
	if ((at = strrchr(addr, '@')) == NULL || at == addr || at[1] == '\0')
		return 0;
	return 1;
}

/* name_addr_ok - 1 when an address can be stored (name_addr_check) */
int
name_addr_ok(const char *addr)
{
	return name_addr_check(addr) == NULL;
}
