/*
 * mjq-members - a list owner's bulk membership: add, remove, list and
 * set-mode, the addresses read from a file or stdin, one a line.
 *
 *   mjq-members [-C conf] [-n] [--welcome | --no-welcome]
 *               [--goodbye | --no-goodbye] [-f file]
 *               list@domain add | remove | list | set-mode MODE
 *
 * The change is one streamed pass under the subscribers lock
 * (lists/subs_bulk.c): runners and other editors wait for it, and a
 * failure halfway leaves the old file.  The summary goes to stdout, a
 * refused line (not an address, banned, not subscribed) to stderr with
 * its line number.  Run as root, it becomes the owner of the list's
 * directory first.  Exit 0 every line done, 1 some lines refused (the
 * rest done), else sysexits(3): 64 usage, 67 no such list, 75 the lock
 * or a file failed (nothing changed), 77 cannot become the list's
 * owner, 78 mjq.conf.
 */
#include <sys/stat.h>
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "cluster.h"
#include "lists.h"
#include "log.h"
#include "members_input.h"
#include "members_welcome.h"
#include "spool_poke.h"

/* What the command was asked. */
struct members_run {
	const char *domain, *list, *verb;
	struct subs_bulk b;
	struct members_input in;
	FILE *welcome; /* (add --welcome, remove --goodbye) the addresses
			  added or removed, to be told */
	size_t sent;
};

/* The greetings asked for. */
#define MEMBERS_WELCOME 1
#define MEMBERS_GOODBYE 2

static const char usage[] =
    "usage: mjq-members [-C conf] [-n] [--welcome | --no-welcome]\n"
    "                   [--goodbye | --no-goodbye] [-f file]\n"
    "                   list@domain add | remove | list | set-mode MODE\n";

/* members_told - subs_bulk's told: a refusal reported, an added address
 * or removed kept for its welcome or goodbye */
static int
members_told(
    void *arg, const char *addr, unsigned long line, enum subs_bulk_result r)
{
	struct members_run *mr = arg;

	if (r == SUBS_BULK_NOT_MEMBER)
		fprintf(stderr,
		    "mjq-members: %s line %lu: <%s> is not "
		    "subscribed\n",
		    mr->in.name, line, addr);
	else if (r == SUBS_BULK_REPEATED)
		fprintf(stderr, "mjq-members: %s line %lu: <%s> given again\n",
		    mr->in.name, line, addr);
	else if (r == SUBS_BULK_DONE && mr->welcome != NULL &&
		 fprintf(mr->welcome, "%s\n", addr) < 0)
		return -1;
	return 0;
}

/* members_become_owner - run as root, become the owner of the list's
 * directory (as mlmmj-sub does), so that the files written stay the
 * mjq user's and the runners can read them; 0, or -1 (logged) */
static int
members_become_owner(const struct settings *s, const struct members_run *mr)
{
	char path[PATH_MAX];
	struct stat sb;
	gid_t gid;

	if (geteuid() != 0)
		return 0;
	if (list_path(path, sizeof(path), s, mr->domain, mr->list, ".") == -1 ||
	    stat(path, &sb) == -1) {
		log_warn("cannot stat the list directory of %s@%s", mr->list,
		    mr->domain);
		return -1;
	}
	if (sb.st_uid == 0)
		return 0;
	gid = sb.st_gid;
	if (setgroups(1, &gid) == -1 || setgid(sb.st_gid) == -1 ||
	    setuid(sb.st_uid) == -1) {
		log_warn("cannot become the owner (uid %ld) of %s",
		    (long)sb.st_uid, path);
		return -1;
	}
	return 0;
}

/* members_next - subs_bulk's next: the input's next good address */
static int
members_next(void *arg, char *addr, size_t size, unsigned long *line)
{
	struct members_run *mr = arg;

	return members_input_next(&mr->in, addr, size, line);
}

/* members_list_one - one subscriber, with its mode when not each */
static int
members_list_one(void *arg, const char *addr, enum subs_mode mode)
{
	(void)arg;
	if (mode == SUBS_EACH)
		return printf("%s\n", addr) < 0 ? -1 : 0;
	return printf("%s %s\n", addr, subs_mode_name(mode)) < 0 ? -1 : 0;
}

/* members_summary - one line of what was done (would be, on a dry run) */
static void
members_summary(const struct members_run *mr)
{
	const size_t *c = mr->b.count;
	const char *w = mr->b.dry_run ? "would be " : "";

	printf("%s@%s: ", mr->list, mr->domain);
	if (mr->b.op == SUBS_BULK_ADD)
		printf("%zu %sadded, %zu already there, %zu invalid, %zu "
		       "banned",
		    c[SUBS_BULK_DONE], w, c[SUBS_BULK_ALREADY], mr->in.invalid,
		    mr->in.banned);
	else if (mr->b.op == SUBS_BULK_REMOVE)
		printf("%zu %sremoved, %zu not subscribed, %zu invalid",
		    c[SUBS_BULK_DONE], w, c[SUBS_BULK_NOT_MEMBER],
		    mr->in.invalid);
	else
		printf("%zu %sset to %s, %zu already %s, %zu not subscribed, "
		       "%zu invalid",
		    c[SUBS_BULK_DONE], w, subs_mode_name(mr->b.mode),
		    c[SUBS_BULK_ALREADY], subs_mode_name(mr->b.mode),
		    c[SUBS_BULK_NOT_MEMBER], mr->in.invalid);
	if (mr->welcome != NULL)
		printf(mr->b.op == SUBS_BULK_REMOVE ? ", %zu sent the goodbye"
						    : ", %zu welcomed",
		    mr->sent);
	printf("%s\n", mr->b.dry_run ? " (dry run: nothing changed)" : "");
}

/* members_args - the options and arguments into mr; -1 usage */
static int
members_args(int argc, char **argv, struct members_run *mr, const char **conf,
    const char **file, int *greet)
{
	static const struct option opts[] = {
	    {"dry-run", no_argument, NULL, 'n'},
	    {"welcome", no_argument, NULL, 'w'},
	    {"no-welcome", no_argument, NULL, 'W'},
	    {"goodbye", no_argument, NULL, 'g'},
	    {"no-goodbye", no_argument, NULL, 'G'},
	    {"file", required_argument, NULL, 'f'}, {NULL, 0, NULL, 0}};
	static char target[NAME_LIST_MAX + NAME_DOMAIN_MAX + 2];
	char *at;
	int c, mode;

	while ((c = getopt_long(argc, argv, "C:nwWgGf:", opts, NULL)) != -1) {
		if (c == 'C')
			*conf = optarg;
		else if (c == 'n')
			mr->b.dry_run = 1;
		else if (c == 'w' || c == 'W')
			*greet = (*greet & ~MEMBERS_WELCOME) |
				 (c == 'w' ? MEMBERS_WELCOME : 0);
		else if (c == 'g' || c == 'G')
			*greet = (*greet & ~MEMBERS_GOODBYE) |
				 (c == 'g' ? MEMBERS_GOODBYE : 0);
		else if (c == 'f')
			*file = optarg;
		else
			return -1;
	}
	if (argc - optind < 2 ||
	    strlcpy(target, argv[optind], sizeof(target)) >= sizeof(target) ||
	    (at = strchr(target, '@')) == NULL)
		return -1;
	*at = '\0';
	mr->list = target, mr->domain = at + 1, mr->verb = argv[optind + 1];
	if (name_check_list(mr->list) != NULL ||
	    name_check_domain(mr->domain) != NULL)
		return -1;
	if (strcmp(mr->verb, "set-mode") == 0) {
		if (argc - optind != 3 ||
		    (mode = subs_mode_parse(
			 argv[optind + 2], strlen(argv[optind + 2]))) == -1)
			return -1;
		mr->b.op = SUBS_BULK_MODE, mr->b.mode = (enum subs_mode)mode;
		return 0;
	}
	if (argc - optind != 2)
		return -1;
	if (strcmp(mr->verb, "add") == 0)
		mr->b.op = SUBS_BULK_ADD;
	else if (strcmp(mr->verb, "remove") == 0)
		mr->b.op = SUBS_BULK_REMOVE;
	else if (strcmp(mr->verb, "list") != 0)
		return -1;
	return 0;
}

/* members_change - add, remove or set-mode; an exit code */
static int
members_change(const struct settings *s, struct members_run *mr, int greet)
{
	struct bans bans = {NULL, 0};
	char err[PATH_MAX + 256];
	int r;

	if (mr->b.op == SUBS_BULK_ADD) {
		if (bans_load(s, mr->domain, mr->list, &bans) == -1)
			return EX_TEMPFAIL;
		mr->in.bans = &bans;
	}
	if (!mr->b.dry_run &&
	    ((mr->b.op == SUBS_BULK_ADD && (greet & MEMBERS_WELCOME)) ||
		(mr->b.op == SUBS_BULK_REMOVE && (greet & MEMBERS_GOODBYE))) &&
	    (mr->welcome = tmpfile()) == NULL) {
		log_warn("cannot make a temporary file");
		bans_free(&bans);
		return EX_TEMPFAIL;
	}
	mr->b.next = members_next, mr->b.told = members_told;
	mr->b.arg = mr;
	r = subs_bulk_run(s, mr->domain, mr->list, &mr->b, err, sizeof(err));
	bans_free(&bans);
	free(mr->in.buf);
	if (r == -1) {
		log_warnx(
		    "%s@%s: %s: nothing changed", mr->list, mr->domain, err);
		return EX_TEMPFAIL;
	}
	if (mr->welcome != NULL) {
		if (members_welcome(s, mr->domain, mr->list,
			mr->b.op == SUBS_BULK_REMOVE, mr->welcome,
			&mr->sent) == -1)
			log_warn("%s@%s: the %s could not be queued for "
				 "every address %s",
			    mr->list, mr->domain,
			    mr->b.op == SUBS_BULK_REMOVE ? "goodbye"
							 : "welcome",
			    mr->b.op == SUBS_BULK_REMOVE ? "removed" : "added");
		else if (mr->sent > 0)
			(void)spool_poke(
			    s->spool_dir, (int)s->enqueue_poke_timeout_ms);
	}
	members_summary(mr);
	return mr->in.invalid + mr->in.banned +
			   mr->b.count[SUBS_BULK_NOT_MEMBER] +
			   mr->b.count[SUBS_BULK_REPEATED] >
		       0
		   ? 1
		   : 0;
}

int
main(int argc, char **argv)
{
	struct lists_settings ls;
	struct cluster_settings cs;
	struct settings_part part[2] = {
	    lists_settings_part(&ls), cluster_settings_part(&cs)};
	struct settings s;
	struct members_run mr;
	const char *conf = SETTINGS_DEFAULT_FILE, *file = "-";
	char err[512];
	int greet = 0;

	memset(&mr, 0, sizeof(mr));
	log_open("mjq-members", LOG_TO_STDERR);
	if (members_args(argc, argv, &mr, &conf, &file, &greet) == -1) {
		fputs(usage, stderr);
		return EX_USAGE;
	}
	if (settings_load(&s, part, 2, conf, 0, err, sizeof(err)) == -1) {
		fprintf(stderr, "mjq-members: %s\n", err);
		return EX_CONFIG;
	}
	if (listconf_presence(&s, mr.domain, mr.list, err, sizeof(err)) !=
	    LISTCONF_PRESENT) {
		fprintf(stderr, "mjq-members: no list %s@%s: %s\n", mr.list,
		    mr.domain, err);
		return EX_NOUSER;
	}
	/* the input is opened as the caller, who may read it */
	if (strcmp(mr.verb, "list") == 0 || strcmp(file, "-") == 0)
		mr.in.fp = stdin, mr.in.name = "stdin";
	else if ((mr.in.fp = fopen(file, "re")) == NULL) {
		log_warn("cannot read %s", file);
		return EX_NOINPUT;
	} else
		mr.in.name = file;
	if (members_become_owner(&s, &mr) == -1)
		return EX_NOPERM;
	/* the one-click links' bound, as subs_edit notes a removal */
	mr.b.since_keep = ls.unsubscribe_token_lifetime + UNSUB_QUEUE_GRACE;
	if (strcmp(mr.verb, "list") != 0)
		return members_change(&s, &mr, greet);
	if (listconf_subscribers_each_mode(&s, mr.domain, mr.list,
		members_list_one, NULL, err, sizeof(err)) == -1 ||
	    fflush(stdout) == EOF) {
		fprintf(stderr, "mjq-members: %s@%s: %s\n", mr.list, mr.domain,
		    err);
		return EX_TEMPFAIL;
	}
	return 0;
}
