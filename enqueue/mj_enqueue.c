/*
 * mj_enqueue - put one message into the mjq spool, durably, and poke.
 *
 * Run by the MTA from an alias or .forward pipe, once per message, so it
 * does the least that is safe: parse the flags, copy stdin into a tmp
 * file, commit it into QUEUE/ (spool_commit.c), poke mj_queueserv, exit.
 * Its exit code is its interface (sysexits): 0 queued (99 with -S),
 * 64 bad arguments, 65 unusable input, 67 no such list, 75 try again.
 * It reads the whole of mjq.conf and refuses a wrong key anywhere, the
 * list sections included: of liblists it links only their table
 * (lists_settings.o), not the list code.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cluster.h"
#include "enqueue.h"
#include "lists.h"

/* enqueue_rel - a spool path as the operator sees it, relative to the
 * spool root */
static const char *
enqueue_rel(const struct settings *s, const char *path)
{
	size_t n = strlen(s->spool_dir);

	if (strncmp(path, s->spool_dir, n) == 0 && path[n] == '/')
		return path + n + 1;
	return path;
}

/* enqueue_list_exists - 0, EX_NOUSER for an unknown list or domain, or
 * EX_TEMPFAIL when the lists directory itself cannot be read */
static int
enqueue_list_exists(const struct settings *s, const struct enqueue_args *a)
{
	char path[PATH_MAX];
	struct stat st;

	if (s->lists_dir[0] == '\0')
		return 0;
	if (stat(s->lists_dir, &st) == -1) {
		/* A missing lists directory is a broken install or an
		 * unmounted file system: defer, never bounce everything. */
		fprintf(stderr,
		    "mj_enqueue: cannot read lists directory %s: "
		    "%s\n",
		    s->lists_dir, strerror(errno));
		return EX_TEMPFAIL;
	}
	if (list_path(path, sizeof(path), s, a->domain,
		a->function == SPOOL_FN_MAJORDOMO ? NULL : a->list,
		NULL) == -1) {
		fprintf(stderr, "mj_enqueue: list path too long\n");
		return EX_USAGE;
	}
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return 0;
	if (errno != ENOENT && errno != ENOTDIR && errno != 0) {
		fprintf(stderr, "mj_enqueue: cannot check list %s: %s\n", path,
		    strerror(errno));
		return EX_TEMPFAIL;
	}
	if (a->function == SPOOL_FN_MAJORDOMO)
		fprintf(
		    stderr, "mj_enqueue: no lists in domain %s\n", a->domain);
	else
		fprintf(stderr, "mj_enqueue: no such list %s@%s\n", a->list,
		    a->domain);
	return EX_NOUSER;
}

/* enqueue_commit - copy stdin into tmp/ and commit it into QUEUE/ */
static int
enqueue_commit(const struct settings *s, const struct enqueue_args *a)
{
	struct enqueue_copy copy;
	struct spool_tmp tmp;
	struct spool_name name;
	char dir[PATH_MAX], final[PATH_MAX] = "";
	int r;

	if (spool_tmp_open(&tmp, s->spool_dir) == -1) {
		fprintf(stderr, "mj_enqueue: cannot create spool file %s: %s\n",
		    enqueue_rel(s, tmp.path), strerror(errno));
		return EX_TEMPFAIL;
	}
	memset(&copy, 0, sizeof(copy));
	copy.args = a;
	copy.max_size = s->enqueue_max_message_size;
	copy.have_sender = a->have_sender;
	(void)strlcpy(copy.sender, a->sender, sizeof(copy.sender));
	if ((r = enqueue_copy(&copy, 0, tmp.fd)) != 0) {
		if (r == -1) {
			fprintf(stderr,
			    "mj_enqueue: cannot write spool file "
			    "%s: %s\n",
			    enqueue_rel(s, tmp.path), strerror(errno));
			r = EX_TEMPFAIL;
		}
		spool_tmp_discard(&tmp);
		return r;
	}
	if (spool_tmp_sync(&tmp) == -1) {
		fprintf(stderr, "mj_enqueue: cannot write spool file %s: %s\n",
		    enqueue_rel(s, tmp.path), strerror(errno));
		spool_tmp_discard(&tmp);
		return EX_TEMPFAIL;
	}
	if (spool_queue_dir(dir, sizeof(dir), s->spool_dir, SPOOL_QUEUE,
		a->domain_prio, a->domain, a->list_prio, a->function) == -1 ||
	    spool_name_init(&name, time(NULL), getpid(), a->list, a->sublist,
		a->command) == -1 ||
	    spool_tmp_link(&tmp, dir, &name, final, sizeof(final)) == -1) {
		fprintf(stderr, "mj_enqueue: cannot commit spool file %s: %s\n",
		    enqueue_rel(s, *final ? final : dir), strerror(errno));
		spool_tmp_discard(&tmp);
		return EX_TEMPFAIL;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	struct enqueue_args a;
	struct lists_settings ls;   /* read to be checked, not used */
	struct cluster_settings cs; /* likewise */
	struct settings_part parts[2];
	struct settings s;
	char err[512];
	int r;

	setprogname("mj_enqueue");
	umask(027);
	if ((r = enqueue_args_parse(&a, argc, argv)) != 0)
		return r;
	parts[0] = lists_settings_part(&ls);
	parts[1] = cluster_settings_part(&cs);
	if (settings_load(&s, parts, 2,
		a.config ? a.config : SETTINGS_DEFAULT_FILE, a.config == NULL,
		err, sizeof(err)) == -1) {
		fprintf(stderr, "mj_enqueue: %s\n", err);
		return EX_TEMPFAIL;
	}
	if ((r = enqueue_list_exists(&s, &a)) != 0)
		return r;
	if ((r = enqueue_commit(&s, &a)) != 0)
		return r;
	enqueue_poke(&s, a.config);
	return a.stop ? ENQUEUE_EX_STOP : 0;
}
