/*
 * deliver_spawn.h - a child program for the runner's threads: started
 * with posix_spawn, its output read through a pipe until a deadline,
 * then reaped (the pipe transport's command, mj_stsfetch).
 */
#ifndef MJQ_DELIVER_SPAWN_H
#define MJQ_DELIVER_SPAWN_H

#include <stddef.h>
#include <sys/types.h>

/* What the child's standard error is. */
enum deliver_spawn_err {
	DELIVER_SPAWN_ERR_PIPE, /* the pipe, with its standard output */
	DELIVER_SPAWN_ERR_KEEP	/* the runner's own */
};

int deliver_spawn(char *const argv[], char *const envp[], int in,
    enum deliver_spawn_err, pid_t *pid, int *outfd);
int deliver_spawn_read(
    int fd, double deadline, char *buf, size_t cap, size_t *total);
int deliver_spawn_wait(pid_t pid, int kill_first);

#endif
