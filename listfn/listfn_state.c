/*
 * listfn_state.c - the state file a function makes for its message:
 * with the recipients it expanded to, or empty when the function did
 * the work itself (a request answered, a bounce counted), then marked
 * active so the runner delivers or ends it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lists.h"
#include "listfn_msg.h"
#include "listfn_state.h"
#include "log.h"

/* listfn_state_open - start m's state file: its header written, the
 * recipients to follow (spool_state_write_rcpt) */
int
listfn_state_open(struct listfn_env *env, struct listfn_msg *m,
    struct spool_state_init *init, struct spool_state_writer *w)
{
	struct stat sb;

	init->arrival = fstat(m->fd, &sb) == 0 ? (long long)sb.st_mtime
					       : (long long)m->claimed;
	init->msgid = m->msgid;
	if (spool_state_write_open(w, env->s->spool_dir, init) == -1) {
		log_warn("%s: cannot create its state file", m->name);
		return -1;
	}
	return 0;
}

/* listfn_state_commit - commit m's state file and mark it active: the
 * last step of every function's expansion */
int
listfn_state_commit(struct listfn_msg *m, struct spool_state_writer *w)
{
	if (spool_state_write_commit(w, &m->st, m->path) == -1) {
		log_warn("%s: cannot create its state file", m->name);
		return -1;
	}
	return spool_state_set_counts(&m->st, 0, 0, (int)getpid());
}

/* listfn_state - commit m's state file with these recipients (freed
 * here) and mark it active */
int
listfn_state(struct listfn_env *env, struct listfn_msg *m,
    struct spool_state_init *init, char **rcpts, size_t n)
{
	struct spool_state_writer *w;
	size_t i;
	int r = -1;

	if ((w = malloc(sizeof(*w))) == NULL) {
		listconf_free_vec(rcpts, n);
		return -1;
	}
	if (listfn_state_open(env, m, init, w) == 0) {
		for (i = 0; i < n; i++)
			if (spool_state_write_rcpt(w, rcpts[i]) == -1)
				break;
		if (i < n) {
			log_warn("%s: cannot write its state file", m->name);
			spool_state_write_abort(w);
		} else
			r = listfn_state_commit(m, w);
	}
	listconf_free_vec(rcpts, n);
	free(w);
	return r;
}

/* listfn_state_empty - the message is done with (a request answered, a
 * bounce counted): a state file without recipients, which the finish
 * path removes with the message */
int
listfn_state_empty(struct listfn_env *env, struct listfn_msg *m,
    const char *kind, const char *from)
{
	struct spool_state_init init;
	struct stat sb;

	memset(&init, 0, sizeof(init));
	init.sender = "";
	init.from = from;
	init.kind = kind;
	init.msgid = m->msgid;
	init.arrival = fstat(m->fd, &sb) == 0 ? (long long)sb.st_mtime
					      : (long long)m->claimed;
	if (spool_state_create(
		&m->st, env->s->spool_dir, m->path, &init, NULL, 0) == -1 ||
	    spool_state_set_counts(&m->st, 0, 0, (int)getpid()) == -1) {
		log_warn("%s: cannot create its state file", m->name);
		return -1;
	}
	return 0;
}
