/*
 * fuzz_conf - libFuzzer target: the configuration loader.
 *
 * Any bytes as mjq.conf: the loader (with the list sections and
 * [cluster], as every program reads it) must return 0 or -1 with a message that
 * starts with the file's label, and never crash or overrun.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "lists.h"
#include "settings.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lists_settings ls;
	struct cluster_settings cs;
	struct settings_part parts[2] = {
	    lists_settings_part(&ls), cluster_settings_part(&cs)};
	struct settings s;
	char err[512] = "";
	FILE *fp;

	if ((fp = fmemopen((void *)data, size, "r")) == NULL)
		return 0;
	if (settings_load_file(
		&s, parts, 2, fp, "fuzz.conf", err, sizeof(err)) == -1 &&
	    strncmp(err, "fuzz.conf", 9) != 0)
		abort();
	fclose(fp);
	return 0;
}
