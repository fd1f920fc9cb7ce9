/*
 * fuzz_mta_sts - libFuzzer target: the MTA-STS parsers (smtp/mta_sts.c).
 *
 * Any bytes as a policy file, as the TXT records of _mta-sts (up to the
 * first NUL) and as an MX host name against each parsed pattern: the
 * parsers return 0 or -1, never read past the input, and what they give
 * is bounded: a mode of the enum, max_age within the RFC's ceiling, at
 * most MTA_STS_MX_MAX patterns each NUL-terminated host names, an id of
 * 1 to 32 letters and digits.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "smtp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* fuzz_policy - the policy parser's result and its bounds */
static void
fuzz_policy(const uint8_t *data, size_t size)
{
	struct mta_sts_policy p;
	char why[200];
	size_t i;
	int r;

	r = mta_sts_policy_parse(
	    (const char *)data, size, &p, why, sizeof(why));
	if (r == -1) {
		if (memchr(why, '\0', sizeof(why)) == NULL)
			abort();
		return;
	}
	if (r != 0 || p.mode < MTA_STS_ENFORCE || p.mode > MTA_STS_NONE ||
	    p.max_age < 0 || p.max_age > MTA_STS_MAX_AGE ||
	    p.nmx > MTA_STS_MX_MAX || (p.mode != MTA_STS_NONE && p.nmx == 0))
		abort();
	for (i = 0; i < p.nmx; i++) {
		if (memchr(p.mx[i], '\0', MTA_STS_NAME_MAX) == NULL)
			abort();
		/* A pattern matches itself without its wildcard label. */
		if (strncmp(p.mx[i], "*.", 2) != 0 &&
		    !mta_sts_mx_match(p.mx[i], p.mx[i]))
			abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char text[4096], id[MTA_STS_ID_MAX + 1];
	size_t i, n;

	if (size > MTA_STS_POLICY_MAX + 16)
		return 0;
	fuzz_policy(data, size);
	n = size < sizeof(text) - 1 ? size : sizeof(text) - 1;
	memcpy(text, data, n);
	text[n] = '\0';
	if (mta_sts_txt_parse(text, id, sizeof(id)) == 0) {
		n = strlen(id);
		if (n < 1 || n > MTA_STS_ID_MAX)
			abort();
		for (i = 0; i < n; i++)
			if (!isalnum((unsigned char)id[i]))
				abort();
	} else if (id[0] != '\0')
		abort();
	(void)mta_sts_mx_match("*.example.com", text);
	(void)mta_sts_mx_match(text, "mx.example.com");
	return 0;
}
