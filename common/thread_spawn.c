/*
 * thread_spawn.c - a helper thread that leaves signals to the main
 * thread: its protocol loop handles them, so a delivery worker, the
 * shared table's waiter or the state files' syncer must not take one.
 * The new thread inherits the mask in force at pthread_create, so the
 * caller's mask is closed around the call and restored after it.
 */
#include <signal.h>

#include "thread_spawn.h"

/* thread_spawn - fn(arg) on a new thread with every signal blocked */
int
thread_spawn(pthread_t *t, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	int e;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	e = pthread_create(t, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return e;
}
