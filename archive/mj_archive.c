/*
 * mj_archive - a list's web archive (archive/README).
 *
 *   mj_archive [-C file] [-d] run DOMAIN LIST
 *       the posts in the list's archive inbox stored, and the pages they
 *       change written (the runner starts this after each post)
 *   mj_archive [-C file] [-d] [-n] import DOMAIN LIST MBOX|MAILDIR|DIR
 *       an old archive's posts stored (each once, however often it is
 *       imported) and the pages written (-n: not yet, they stay marked
 *       for the next run or rebuild); progress on a terminal
 *   mj_archive [-C file] [-d] remove DOMAIN LIST MESSAGE-ID
 *       a post out of the pages, the mbox, the feed and the index, a
 *       page that says so at its address (exit 67: no such post)
 *   mj_archive [-C file] [-d] rebuild DOMAIN LIST
 *       every page written again from the index (a new stylesheet, a
 *       new renderer, a web root lost)
 *
 * Exit: 0 done (or another mj_archive holds the list and drains it),
 * 64 bad arguments, 78 a configuration it cannot use, 75 anything that
 * a later run may get past (disk, database busy).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "archive.h"
#include "log.h"

/* mj_archive_usage - the synopsis, EX_USAGE */
static int
mj_archive_usage(void)
{
	fprintf(stderr,
	    "usage: mj_archive [-C file] [-d] run|rebuild DOMAIN "
	    "LIST\n       mj_archive [-C file] [-d] [-n] import DOMAIN "
	    "LIST MBOX|MAILDIR|DIR\n       mj_archive [-C file] [-d] "
	    "remove DOMAIN LIST MESSAGE-ID\n");
	return EX_USAGE;
}

/* mj_archive_cmd - one command on an opened list (arg: import's or
 * remove's; index_only: import's -n) */
static int
mj_archive_cmd(
    struct archive_list *al, const char *cmd, const char *arg, int index_only)
{
	long k;

	if (strcmp(cmd, "remove") == 0) {
		if ((k = archive_remove(al, arg)) == -1)
			return EX_TEMPFAIL;
		if (k == 0) {
			log_errx("%s@%s: no post %s in the archive", al->list,
			    al->domain, arg);
			return EX_NOUSER;
		}
		printf("%s@%s: %s removed\n", al->list, al->domain, arg);
		return 0;
	}
	if (strcmp(cmd, "import") == 0) {
		if ((k = archive_import(al, arg, index_only)) == -1)
			return EX_TEMPFAIL;
		printf("%s@%s: %ld posts imported\n", al->list, al->domain, k);
		return 0;
	}
	if (strcmp(cmd, "rebuild") == 0) {
		if (archive_pages_all(al) == -1 ||
		    (k = archive_pages_flush(al)) == -1)
			return EX_TEMPFAIL;
		printf("%s@%s: %ld pages written\n", al->list, al->domain, k);
		return 0;
	}
	if ((k = archive_ingest_run(al)) == -1)
		return EX_TEMPFAIL;
	return 0;
}

int
main(int argc, char **argv)
{
	const char *config = NULL;
	struct archive_settings as;
	struct archive_list al;
	struct settings s;
	char err[PATH_MAX + 256];
	int c, debug = 0, index_only = 0, r;

	setprogname("mj_archive");
	umask(022);
	while ((c = getopt(argc, argv, "C:dn")) != -1) {
		switch (c) {
		case 'C':
			config = optarg;
			break;
		case 'd':
			debug = 1;
			break;
		case 'n':
			index_only = 1;
			break;
		default:
			return mj_archive_usage();
		}
	}
	if (argc - optind < 3 ||
	    argc - optind != (strcmp(argv[optind], "import") == 0 ||
					 strcmp(argv[optind], "remove") == 0
				     ? 4
				     : 3) ||
	    (strcmp(argv[optind], "run") != 0 &&
		strcmp(argv[optind], "rebuild") != 0 &&
		strcmp(argv[optind], "import") != 0 &&
		strcmp(argv[optind], "remove") != 0))
		return mj_archive_usage();
	log_open("mj_archive", isatty(2) ? LOG_TO_STDERR : LOG_TO_SYSLOG);
	log_set_debug(debug);
	if (archive_settings_load(&s, &as,
		config ? config : SETTINGS_DEFAULT_FILE, config == NULL, err,
		sizeof(err)) == -1) {
		log_errx("%s", err);
		return EX_CONFIG;
	}
	/* The lock's holder drains; after letting it go it looks again,
	 * for a post whose own mj_archive found the lock held. */
	do {
		if ((r = archive_list_open(&al, &s, &as, argv[optind + 1],
			 argv[optind + 2], ARCHIVE_LIST_WRITE, err,
			 sizeof(err))) == -2)
			return 0;
		if (r == -1) {
			log_errx("%s", err);
			return EX_CONFIG;
		}
		r = mj_archive_cmd(
		    &al, argv[optind], argv[optind + 3], index_only);
		archive_list_close(&al);
	} while (
	    r == 0 && strcmp(argv[optind], "run") == 0 &&
	    archive_list_pending(&s, argv[optind + 1], argv[optind + 2]) == 1);
	return r;
}
