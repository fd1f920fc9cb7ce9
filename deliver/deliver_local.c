/*
 * deliver_local.c - the transports that stay on this host: pipe (a
 * command run with execve, never a shell), maildir (tmp/ then new/, with
 * fsync, for archives and the demo) and discard.
 *
 * These run in worker threads: they touch only their batch, and a child
 * is started with posix_spawn (no fork of a threaded process), its
 * signals reset and its stdin a private read-only open of the message.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <sysexits.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "deliver_local.h"
#include "deliver_spawn.h"
#include "io.h"
#include "deliver_batch.h"
#include "lists.h"

#define DELIVER_ARGS_MAX 64

/* deliver_discard - every recipient delivered, nothing written */
void
deliver_discard(struct deliver_batch *b)
{
	(void)strlcpy(b->relay, "discard", sizeof(b->relay));
	deliver_batch_all(b, DELIVER_SENT, 0, "2.0.0", "discarded");
}

/* deliver_subst - text with ${sender}, ${recipient}, ${user} and
 * ${domain} replaced; -1 when it does not fit */
static int
deliver_subst(const char *in, const char *sender, const char *rcpt, char *out,
    size_t outlen)
{
	const char *at = strrchr(rcpt, '@');
	size_t ulen = at ? (size_t)(at - rcpt) : strlen(rcpt), n = 0, vlen;
	const char *v;

	while (*in != '\0') {
		if (strncmp(in, "${sender}", 9) == 0)
			v = sender, vlen = strlen(sender), in += 9;
		else if (strncmp(in, "${recipient}", 12) == 0)
			v = rcpt, vlen = strlen(rcpt), in += 12;
		else if (strncmp(in, "${user}", 7) == 0)
			v = rcpt, vlen = ulen, in += 7;
		else if (strncmp(in, "${domain}", 9) == 0)
			v = at ? at + 1 : "", vlen = strlen(v), in += 9;
		else
			v = in, vlen = 1, in++;
		if (n + vlen + 1 > outlen)
			return -1;
		memcpy(out + n, v, vlen);
		n += vlen;
	}
	out[n] = '\0';
	return 0;
}

/* deliver_per_rcpt - the word names a recipient: one per recipient */
static int
deliver_per_rcpt(const char *word)
{
	return strstr(word, "${recipient}") || strstr(word, "${user}") ||
	       strstr(word, "${domain}");
}

/* deliver_argv - split the command and substitute; argv strings are in
 * one malloc'd block returned in *block */
static int
deliver_argv(
    const struct deliver_batch *b, char **argv, size_t max, char **block)
{
	char *copy, *word, *save = NULL, *buf, *p;
	size_t argc = 0, i, size = 0, left;

	for (i = 0; i < b->n; i++)
		size += strlen(b->addr[i]) + 1;
	size =
	    (size + strlen(b->sender) + 1) * 2 + strlen(b->nexthop) * 4 + 4096;
	if ((copy = strdup(b->nexthop)) == NULL)
		return -1;
	if ((buf = malloc(size)) == NULL) {
		free(copy);
		return -1;
	}
	p = buf;
	left = size;
	for (word = strtok_r(copy, " \t", &save); word != NULL;
	     word = strtok_r(NULL, " \t", &save)) {
		size_t reps = deliver_per_rcpt(word) ? b->n : 1;
		for (i = 0; i < reps; i++) {
			if (argc + 1 >= max || deliver_subst(word, b->sender,
						   b->addr[i], p, left) == -1)
				goto fail;
			argv[argc++] = p;
			left -= strlen(p) + 1;
			p += strlen(p) + 1;
		}
	}
	argv[argc] = NULL;
	free(copy);
	*block = buf;
	return argc > 0 ? 0 : -1;
fail:
	free(copy);
	free(buf);
	return -1;
}

/* Exit codes as Postfix's sys_exits.c maps them. */
static const struct {
	int code;
	const char *dsn, *text;
} deliver_sysexits[] = {
    {EX_USAGE, "5.3.0", "command line usage error"},
    {EX_DATAERR, "5.6.0", "data format error"},
    {EX_NOINPUT, "5.3.0", "cannot open input"},
    {EX_NOUSER, "5.1.1", "user unknown"},
    {EX_NOHOST, "5.1.2", "host name unknown"},
    {EX_UNAVAILABLE, "5.3.0", "service unavailable"},
    {EX_SOFTWARE, "5.3.0", "internal software error"},
    {EX_OSERR, "4.3.0", "system resource problem"},
    {EX_OSFILE, "5.3.0", "critical OS file missing"},
    {EX_CANTCREAT, "5.2.0", "cannot create user output file"},
    {EX_IOERR, "5.3.0", "input/output error"},
    {EX_TEMPFAIL, "4.3.0", "temporary failure"},
    {EX_PROTOCOL, "5.5.0", "remote error in protocol"},
    {EX_NOPERM, "5.7.0", "permission denied"},
    {EX_CONFIG, "5.3.5", "local configuration error"},
};

/* deliver_pipe_status - the outcome of the command's wait status */
static void
deliver_pipe_status(struct deliver_batch *b, int status, const char *out)
{
	char text[300];
	size_t i;

	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		deliver_batch_all(
		    b, DELIVER_SENT, 0, "2.0.0", "delivered via pipe");
		return;
	}
	if (WIFSIGNALED(status)) {
		snprintf(text, sizeof(text), "command killed by signal %d%s%s",
		    WTERMSIG(status), *out ? ": " : "", out);
		deliver_batch_all(b, DELIVER_DEFERRED, 0, "4.3.0", text);
		return;
	}
	for (i = 0; i < sizeof(deliver_sysexits) / sizeof(deliver_sysexits[0]);
	     i++)
		if (deliver_sysexits[i].code == WEXITSTATUS(status))
			break;
	if (i < sizeof(deliver_sysexits) / sizeof(deliver_sysexits[0])) {
		snprintf(text, sizeof(text), "command exit %d (%s)%s%s",
		    WEXITSTATUS(status), deliver_sysexits[i].text,
		    *out ? ": " : "", out);
		deliver_batch_all(b,
		    deliver_sysexits[i].dsn[0] == '5' ? DELIVER_BOUNCED
						      : DELIVER_DEFERRED,
		    0, deliver_sysexits[i].dsn, text);
		return;
	}
	/* Not a sysexits code: a broken command is not the mail's fault. */
	snprintf(text, sizeof(text), "command exit %d%s%s", WEXITSTATUS(status),
	    *out ? ": " : "", out);
	deliver_batch_all(b, DELIVER_DEFERRED, 0, "4.3.0", text);
}

/* deliver_pipe - run the command of the nexthop over the batch */
void
deliver_pipe(struct deliver_batch *b)
{
	char *argv[DELIVER_ARGS_MAX], *block = NULL, path[64], out[200];
	char env_sender[NAME_ADDR_MAX + 8], env_rcpt[NAME_ADDR_MAX + 12];
	char *envp[] = {"PATH=/usr/bin:/bin", env_sender, env_rcpt, NULL};
	int in = -1, po = -1, status, timed_out;
	size_t n;
	pid_t pid;

	(void)strlcpy(b->relay, "pipe", sizeof(b->relay));
	snprintf(env_sender, sizeof(env_sender), "SENDER=%s", b->sender);
	snprintf(env_rcpt, sizeof(env_rcpt), "RECIPIENT=%s", b->addr[0]);
	if (deliver_argv(b, argv, DELIVER_ARGS_MAX, &block) == -1) {
		deliver_batch_all(b, DELIVER_DEFERRED, 0, "4.3.5",
		    "pipe command too long or empty");
		return;
	}
	/* A private open file description: its own offset at 0. */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", b->datafd);
	if ((in = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		deliver_batch_all(
		    b, DELIVER_DEFERRED, 0, "4.3.0", strerror(errno));
		goto done;
	}
	if ((errno = deliver_spawn(
		 argv, envp, in, DELIVER_SPAWN_ERR_PIPE, &pid, &po)) != 0) {
		snprintf(out, sizeof(out), "cannot run %s: %s", argv[0],
		    strerror(errno));
		deliver_batch_all(b, DELIVER_DEFERRED, 0, "4.3.0", out);
		goto done;
	}
	/* The first line of what the command says goes into the DSN. */
	timed_out = deliver_spawn_read(po,
			clock_now() + (double)b->params->pipe_timeout, out,
			sizeof(out) - 1, &n) == -1;
	out[n < sizeof(out) - 1 ? n : sizeof(out) - 1] = '\0';
	out[strcspn(out, "\r\n")] = '\0';
	status = deliver_spawn_wait(pid, timed_out);
	if (timed_out)
		deliver_batch_all(b, DELIVER_DEFERRED, 0, "4.4.2",
		    "command timed out (pipe_timeout)");
	else
		deliver_pipe_status(b, status, out);
done:
	if (in != -1)
		close(in);
	if (po != -1)
		close(po);
	free(block);
}

/* deliver_mkdirs - a maildir and its three subdirectories */
static int
deliver_mkdirs(const char *dir)
{
	static const char *const sub[] = {"", "/tmp", "/new", "/cur"};
	char path[PATH_MAX], *p;
	size_t i;

	for (i = 0; i < 4; i++) {
		if ((size_t)snprintf(path, sizeof(path), "%s%s", dir, sub[i]) >=
		    sizeof(path))
			return -1;
		if (mkdir(path, 0700) == 0 || errno == EEXIST)
			continue;
		if (errno != ENOENT || i > 0)
			return -1;
		/* Parents first, for the root of a new maildir tree. */
		for (p = path + 1; (p = strchr(p, '/')) != NULL; p++) {
			*p = '\0';
			if (mkdir(path, 0700) == -1 && errno != EEXIST)
				return -1;
			*p = '/';
		}
		if (mkdir(path, 0700) == -1 && errno != EEXIST)
			return -1;
	}
	return 0;
}

/* deliver_copy - the delivered text after a prefix and the recipient's
 * own header fields (head, or NULL), into fd */
static int
deliver_copy(int fd, int datafd, off_t size, const char *prefix,
    const char *head, size_t headlen)
{
	char buf[65536];
	off_t off = 0;
	ssize_t n;
	size_t plen = strlen(prefix);

	if (io_write_all(fd, prefix, plen) == -1 ||
	    (head != NULL && io_write_all(fd, head, headlen) == -1))
		return -1;
	while (off < size) {
		if ((n = pread(datafd, buf, sizeof(buf), off)) <= 0)
			return -1;
		if (io_write_all(fd, buf, (size_t)n) == -1)
			return -1;
		off += n;
	}
	return 0;
}

/* deliver_maildir_one - one recipient into the maildir of the nexthop */
static int
deliver_maildir_one(
    struct deliver_batch *b, const char *rcpt, char *why, size_t whylen)
{
	static atomic_uint seq;
	char dir[PATH_MAX], tmp[PATH_MAX], new[PATH_MAX], host[64];
	char name[160], prefix[2 * NAME_ADDR_MAX + 64], *head = NULL;
	struct timeval tv;
	size_t headlen = 0;
	int fd, r = -1;

	if (deliver_subst(b->nexthop, b->sender, rcpt, dir, sizeof(dir)) ==
		-1 ||
	    strchr(rcpt, '/') != NULL || strstr(dir, "/.") != NULL) {
		snprintf(why, whylen, "unusable maildir path");
		return -1;
	}
	if (gethostname(host, sizeof(host)) == -1)
		(void)strlcpy(host, "localhost", sizeof(host));
	host[strcspn(host, "/:")] = '\0';
	gettimeofday(&tv, NULL);
	snprintf(name, sizeof(name), "%lld.M%ldP%ldQ%u.%s",
	    (long long)tv.tv_sec, (long)tv.tv_usec, (long)getpid(),
	    atomic_fetch_add(&seq, 1), host);
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s/tmp/%s", dir, name) >=
		sizeof(tmp) ||
	    (size_t)snprintf(new, sizeof(new), "%s/new/%s", dir, name) >=
		sizeof(new)) {
		snprintf(why, whylen, "maildir path too long");
		return -1;
	}
	snprintf(prefix, sizeof(prefix),
	    "Return-Path: <%s>\nDelivered-To: %s\n", b->sender, rcpt);
	if (b->head != NULL &&
	    rcpt_head_make(b->head, rcpt, &head, &headlen) == -1) {
		snprintf(why, whylen, "cannot make the recipient's header");
		return -1;
	}
	if (deliver_mkdirs(dir) == -1 ||
	    (fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) ==
		-1) {
		snprintf(why, whylen, "cannot create %.200s: %s", tmp,
		    strerror(errno));
		goto done;
	}
	if (deliver_copy(fd, b->datafd,
		rcpt_head_whole(b->head) ? 0 : b->datasize, prefix, head,
		headlen) == -1 ||
	    fsync(fd) == -1) {
		snprintf(why, whylen, "cannot write %.200s: %s", tmp,
		    strerror(errno));
		close(fd);
		unlink(tmp);
		goto done;
	}
	if (close(fd) == -1 || link(tmp, new) == -1) {
		snprintf(why, whylen, "cannot deliver %.200s: %s", new,
		    strerror(errno));
		unlink(tmp);
		goto done;
	}
	unlink(tmp);
	/* the delivery counts only once new/ holds the name for sure; if
	 * not, take the file back (a retry delivers it again) and defer */
	if (io_fsync_parent(new) == -1) {
		snprintf(why, whylen, "cannot sync %.200s: %s", new,
		    strerror(errno));
		unlink(new);
		goto done;
	}
	r = 0;
done:
	free(head);
	return r;
}

/* deliver_maildir - each recipient gets its own file */
void
deliver_maildir(struct deliver_batch *b)
{
	char why[300];
	size_t i;

	(void)strlcpy(b->relay, "maildir", sizeof(b->relay));
	for (i = 0; i < b->n; i++) {
		if (deliver_maildir_one(b, b->addr[i], why, sizeof(why)) == 0)
			deliver_batch_set(&b->res[i], DELIVER_SENT, 0, "2.0.0",
			    "delivered to maildir");
		else
			deliver_batch_set(
			    &b->res[i], DELIVER_DEFERRED, 0, "4.3.0", why);
	}
}
