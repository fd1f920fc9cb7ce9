/*
 * spool_path.h - the names of everything in the spool tree.
 *
 * This part (spool-layout/) is the only code that knows spool paths and
 * file formats; see spool-layout/README for the specification.
 */
#ifndef MJQ_SPOOL_PATH_H
#define MJQ_SPOOL_PATH_H

#include <stddef.h>

#define SPOOL_QUEUE "QUEUE"
#define SPOOL_TMP "tmp"
#define SPOOL_HOLD "HOLD"
#define SPOOL_BAD "BAD"
#define SPOOL_STATE "state"
#define SPOOL_SOCKET "queueserv.sock"
#define SPOOL_PIDFILE "queueserv.pid"
#define SPOOL_STARTLOCK "queueserv.start"

#define SPOOL_DIR_MODE 0750
#define SPOOL_FILE_MODE 0640

#define SPOOL_PRIO_DEFAULT 10
#define SPOOL_PRIO_MAX 99

/* The functions a message is queued under, in QUEUE/.../<function>/. */
enum spool_function {
	SPOOL_FN_LIST,
	SPOOL_FN_OWNER,
	SPOOL_FN_REQUEST,
	SPOOL_FN_MAJORDOMO,
	SPOOL_FN_COUNT
};

const char *spool_function_name(enum spool_function fn);
int spool_function_lookup(const char *name, enum spool_function *fn);

/* The fixed directories under the spool root, in the order they are
 * made; and those of them that hold messages, in the order listings and
 * walks take them (QUEUE first).  Both end with NULL. */
extern const char *const spool_tops[];
extern const char *const spool_message_tops[];

int spool_path(char *buf, size_t len, const char *spool, const char *sub);
int spool_top_path(char *buf, size_t len, const char *spool, size_t i);
int spool_state_path(char *buf, size_t len, const char *message_path);
int spool_try_path(char *buf, size_t len, const char *message_path);
int spool_queue_dir(char *buf, size_t len, const char *spool, const char *top,
    int domain_prio, const char *domain, int list_prio, enum spool_function fn);
int spool_message_path(char *buf, size_t len, const char *spool,
    const char *top, int domain_prio, const char *domain, int list_prio,
    enum spool_function fn, const char *name);

#endif
