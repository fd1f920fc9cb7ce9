/*
 * fuzz_spool_name - libFuzzer target: queue file names.
 *
 * Whatever parses must format back to exactly the same text (the parser
 * accepts nothing the writer could not have written), and must be a
 * single safe path component.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "spool_name.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char text[512], back[SPOOL_NAME_MAX + 1];
	struct spool_name n;

	if (size >= sizeof(text))
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (spool_name_parse(text, &n) == -1)
		return 0;
	if (spool_name_format(&n, back, sizeof(back)) == -1 ||
	    strcmp(back, text) != 0 || strchr(text, '/') != NULL ||
	    text[0] == '.')
		abort();
	return 0;
}
