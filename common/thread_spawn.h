/*
 * thread_spawn.h - a helper thread that leaves signals to the main
 * thread (thread_spawn.c).
 */
#ifndef MJQ_THREAD_SPAWN_H
#define MJQ_THREAD_SPAWN_H

#include <pthread.h>

/* thread_spawn - fn(arg) on a new thread with every signal blocked;
 * 0, or pthread_create's error number */
int thread_spawn(pthread_t *t, void *(*fn)(void *), void *arg);

#endif
