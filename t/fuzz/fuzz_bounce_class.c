/*
 * fuzz_bounce_class - libFuzzer target: the bounce classifier.
 *
 * Its input is what any receiving server or any sender of a bounce
 * writes (an SMTP reply, a Diagnostic-Code, an NDR's prose), so any
 * bytes: it must return one of the five classes, never crash or read
 * past the text.  The first byte chooses whether a Status is given
 * apart (from the next 8 bytes, as a DSN's Status field would be), and
 * a permanent answer for a reply must not turn into a recipient failure
 * when only its code says temporary.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lists.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char status[9], *text;
	enum bounce_class c;

	if (size > 0 && (data[0] & 1) && size >= 9) {
		memcpy(status, data + 1, 8);
		status[8] = '\0';
		c = bounce_class_reply(
		    (const char *)data + 9, size - 9, status);
	} else
		c = bounce_class_reply((const char *)data, size, NULL);
	if ((unsigned)c >= BOUNCE_CLASSES)
		abort();
	/* A temporary reply ("4xx" with a temporary status, or none) is
	 * never a recipient failure. */
	if ((text = malloc(size + 11)) == NULL)
		return 0;
	memcpy(text, "451 4.0.0 ", 10);
	memcpy(text + 10, data, size);
	text[size + 10] = '\0';
	if (bounce_class_reply(text, size + 10, "4.0.0") == BOUNCE_RECIPIENT)
		abort();
	if (strlen(bounce_class_name(c)) == 0)
		abort();
	free(text);
	return 0;
}
