/*
 * mj_subsedit - add or remove one subscriber with subs_edit, as the
 * confirm command does, for the concurrency tests (t/720-subs-edit.bats).
 *
 *   mj_subsedit -C conf domain list add|remove address
 *   mj_subsedit -C conf domain list set address mode
 *
 * Exit 0 changed, 1 already so, 2 error, 3 (set) not subscribed.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "settings.h"
#include "cluster.h"
#include "lists.h"

int
main(int argc, char **argv)
{
	struct lists_settings ls;
	struct cluster_settings cs;
	struct settings_part part[2] = {
	    lists_settings_part(&ls), cluster_settings_part(&cs)};
	struct settings s;
	char err[512];
	int r;

	if (argc < 7 || argc > 8 || strcmp(argv[1], "-C") != 0 ||
	    (argc == 8) != (strcmp(argv[5], "set") == 0)) {
		fprintf(stderr, "usage: mj_subsedit -C conf domain list "
				"add|remove address | set address mode\n");
		return 2;
	}
	log_open("mj_subsedit", LOG_TO_STDERR);
	if (settings_load(&s, part, 2, argv[2], 0, err, sizeof(err)) == -1) {
		fprintf(stderr, "mj_subsedit: %s\n", err);
		return 2;
	}
	if (argc == 8) {
		if ((r = subs_mode_parse(argv[7], strlen(argv[7]))) == -1)
			return 2;
		r = subs_mode_set(
		    &s, argv[3], argv[4], argv[6], (enum subs_mode)r);
		return r == 1 ? 0 : r == 0 ? 1 : r == 2 ? 3 : 2;
	}
	r = subs_edit(&s, &ls, argv[3], argv[4],
	    strcmp(argv[5], "remove") == 0 ? SUBS_REMOVE : SUBS_ADD, argv[6]);
	return r == 1 ? 0 : r == 0 ? 1 : 2;
}
