/*
 * archive_post.c - the runner's side of the web archive.  A post
 * accepted for a list with archive_web = yes is collected into
 * $spool/state/archive/<domain>/<list>/posts/ (A1 in spool-layout/README,
 * "Archive") in its first processing, before its state file commits,
 * exactly as digest_collect does: a crash in between collects it again
 * under the same name.  Then mj_archive (beside the runner, or
 * ../archive/ in the build tree) is started, detached, to store it and
 * make its pages (A2-A4); the runner does not wait for it, and never
 * links SQLite or the renderer.  The runners' minute sweep starts
 * mj_archive again for an inbox left with posts (the program missing
 * or killed).
 */
#include <sys/stat.h>
#include <sys/wait.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "archive_post.h"
#include "log.h"
#include "selfpath.h"
#include "spool_archive.h"

/* archive_post_exec - in the grandchild: mj_archive -C conf run domain
 * list, its output to /dev/null, its own session */
static void
archive_post_exec(
    const char *prog, const char *conf, const char *domain, const char *list)
{
	char *argv[] = {(char *)prog, "-C", (char *)conf, "run", (char *)domain,
	    (char *)list, NULL};
	int fd;

	if ((fd = open("/dev/null", O_RDWR | O_CLOEXEC)) != -1) {
		(void)dup2(fd, 0);
		(void)dup2(fd, 1);
	}
	(void)setsid();
	execv(prog, argv);
	_exit(127);
}

/* archive_post_start - mj_archive started on the list's inbox, detached
 * (a double fork: the runner reaps the child at once, init the
 * program); 0 or -1 */
static int
archive_post_start(
    const struct listfn_env *env, const char *domain, const char *list)
{
	char prog[PATH_MAX], err[PATH_MAX + 64];
	pid_t pid;
	int status;

	if (selfpath_sibling("mj_archive", "archive", prog, sizeof(prog), err,
		sizeof(err)) == -1) {
		log_warnx("%s@%s: archive: %s", list, domain, err);
		return -1;
	}
	if ((pid = fork()) == -1) {
		log_warn("%s@%s: archive: fork", list, domain);
		return -1;
	}
	if (pid == 0) {
		if (fork() == 0)
			archive_post_exec(
			    prog, env->s->config_file, domain, list);
		_exit(0);
	}
	while (waitpid(pid, &status, 0) == -1)
		if (errno != EINTR)
			return -1;
	return 0;
}

/* archive_post - the post into the archive inbox; mj_archive started */
int
archive_post(struct listfn_env *env, struct listfn_msg *m,
    const struct listconf *lc, const char *text, size_t len)
{
	int k;

	if (!lc->archive_web)
		return 0;
	if ((k = spool_archive_collect(env->s->spool_dir, m->domain, m->list,
		 m->domain_prio, m->list_prio, m->name, text, len)) == -1) {
		log_warn("%s: cannot collect it for the archive", m->name);
		return -1;
	}
	if (k == 1)
		log_info("%s: collected for the archive of %s@%s", m->name,
		    m->list, m->domain);
	(void)archive_post_start(env, m->domain, m->list);
	return 0; /* a start that failed is made by the sweep */
}

/* archive_post_sweep_list - spool_archive_lists's callback */
static int
archive_post_sweep_list(void *arg, const char *domain, const char *list)
{
	struct listfn_env *env = ((void **)arg)[0];
	int *started = ((void **)arg)[1];
	char dir[PATH_MAX];
	struct spool_digest_entry *e;
	size_t n;

	if (spool_archive_dir(
		dir, sizeof(dir), env->s->spool_dir, domain, list) == -1 ||
	    spool_digest_entries(dir, &e, &n) == -1)
		return 0;
	free(e);
	if (n > 0 && archive_post_start(env, domain, list) == 0)
		(*started)++;
	return 0;
}

/* archive_post_sweep - mj_archive for every inbox left with posts */
int
archive_post_sweep(struct listfn_env *env)
{
	int started = 0;
	void *arg[2] = {env, &started};

	if (spool_archive_lists(
		env->s->spool_dir, archive_post_sweep_list, arg) == -1)
		log_warn("archive: cannot read the inboxes");
	return started;
}
