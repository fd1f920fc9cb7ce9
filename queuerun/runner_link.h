/*
 * runner_link.h - the runner's half of the mj_queueserv protocol.
 *
 * Lines over the socketpair the server made at spawn (fd 3 by default):
 *
 *   runner -> server                   server -> runner
 *   hello <pid>        at start        time <s>.<us>   handshake
 *   time <s>.<us>      echo, if idle   run             walk now
 *   busy time <s>.<us> reply, if busy  rescan          walk again when
 *   beat idle|busy <in-hand> <done>                     you can
 *   bye idle|limit|drain|error         before exiting
 *
 * A beat goes out on every change between idle and busy, at least every
 * runner_hang_timeout / 4, and on every run or rescan as its
 * acknowledgement, before the walk starts: until then the server
 * coalesces further pokes into the rescan already on its way.  The
 * server takes a runner silent for runner_hang_timeout for hung.  The runner
 * leaves after runner_idle_timeout idle (unless kept), after
 * runner_max_messages messages, when its server's end closes, and on
 * SIGTERM; in the last three cases it drains first.
 */
#ifndef MJQ_RUNNER_LINK_H
#define MJQ_RUNNER_LINK_H

#include "queuerun.h"
#include "settings.h"

struct runner_link_opts {
	int fd;	  /* the socketpair */
	int keep; /* one of the pool's min_runners: no idle exit */
};

int runner_link_serve(struct queuerun *q, const struct settings *s,
    const struct runner_link_opts *o);

#endif
