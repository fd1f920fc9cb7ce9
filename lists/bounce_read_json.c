/*
 * bounce_read_json.c - providers that report bounces as JSON in a mail
 * (Amazon SES through SNS: a "Message" string holding the notification,
 * its quotes escaped).  Each row of json_forms names the array of failed
 * recipients and, in each of its objects, the keys of the address, the
 * Status and the diagnostic (keys as written, quotes escaped or not);
 * a type key whose value says the bounce is temporary makes a 5.x.x
 * Status 4.x.x (SES's "bounceType":"Transient").
 *   {"bounce":{"bounceType":"Permanent","bouncedRecipients":[{
 *    "emailAddress":"gone@example.com","action":"failed",
 *    "status":"5.1.1","diagnosticCode":"smtp; 550 5.1.1 user unknown"}]}}
 * Complaints ("complainedRecipients") are not bounces and are not read.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bounce_read.h"

#define JSON_VALUE_MAX 1024

static const struct {
	const char *provider, *array, *addr, *status, *diag;
	const char *type, *temporary; /* the bounce's kind, and the value
					 that says it is temporary */
} json_forms[] = {
    {"Amazon SES", "bouncedRecipients", "emailAddress", "status",
	"diagnosticCode", "bounceType", "Transient"},
};

/* json_value - the string value of key within (p, end), unescaped into
 * out; 0 found, -1 not */
static int
json_value(
    const char *p, const char *end, const char *key, char *out, size_t outlen)
{
	size_t k = strlen(key), n = 0;
	const char *q;

	for (q = p; q + k <= end; q++) {
		if (memcmp(q, key, k) != 0 || q == p || q[-1] != '"')
			continue;
		for (q += k; q < end && (*q == '\\' || *q == '"'); q++)
			;
		for (; q < end && (*q == ' ' || *q == ':' || *q == '\\'); q++)
			;
		if (q >= end || *q != '"')
			return -1;
		for (q++; q < end && *q != '"' && n + 1 < outlen; q++)
			if (*q != '\\')
				out[n++] = *q;
			else if (q + 1 < end && q[1] == '\\')
				q++; /* an escaped backslash before a quote */
		out[n] = '\0';
		if (n > 0 && out[n - 1] == '\\')
			out[--n] = '\0';
		return 0;
	}
	return -1;
}

/* json_objects - each {...} object of the array starting at p */
static size_t
json_objects(const char *p, const char *end, size_t form, int temporary,
    struct bounce_found *bf)
{
	char addr[JSON_VALUE_MAX], st[16], diag[JSON_VALUE_MAX];
	const char *o, *c;
	size_t found = 0;

	for (o = p; o < end && *o != ']';) {
		if (*o++ != '{')
			continue;
		if ((c = memchr(o, '}', (size_t)(end - o))) == NULL)
			break;
		if (json_value(
			o, c, json_forms[form].addr, addr, sizeof(addr)) == 0) {
			if (json_value(o, c, json_forms[form].status, st,
				sizeof(st)) == -1)
				st[0] = '\0';
			if (temporary && st[0] == '5')
				st[0] = '4';
			if (json_value(o, c, json_forms[form].diag, diag,
				sizeof(diag)) == -1)
				diag[0] = '\0';
			if (bounce_found_add(bf, json_forms[form].provider,
				addr, strlen(addr), st, diag,
				strlen(diag)) != -1)
				found++;
		}
		o = c + 1;
	}
	return found;
}

/* bounce_read_json - the failed recipients a JSON notification names */
size_t
bounce_read_json(const char *p, size_t len, struct bounce_found *bf)
{
	const char *end = p + len, *a;
	char kind[32];
	size_t i, found = 0;
	int temporary;

	for (i = 0; i < sizeof(json_forms) / sizeof(json_forms[0]); i++) {
		if ((a = memmem(p, len, json_forms[i].array,
			 strlen(json_forms[i].array))) == NULL)
			continue;
		if ((a = memchr(a, '[', (size_t)(end - a))) == NULL)
			continue;
		temporary = json_value(p, end, json_forms[i].type, kind,
				sizeof(kind)) == 0 &&
			    strcmp(kind, json_forms[i].temporary) == 0;
		found += json_objects(a + 1, end, i, temporary, bf);
	}
	return found;
}
