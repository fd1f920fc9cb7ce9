/*
 * names.c - validation of names that become path components.
 *
 * The rules are deliberately narrow (see names.h): a name that passes can
 * be used as one path component with no quoting and cannot climb out of
 * its directory or hide from ls.
 */
#include <string.h>

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

/* name_addr_ok - 1 when an address can be a recipient line:
 * bounded, printable, no spaces or angle brackets, one @ not at an end */
int
name_addr_ok(const char *addr)
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
