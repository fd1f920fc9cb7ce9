/*
 * sched_list.h - intrusive doubly linked lists for the scheduler.
 *
 * Jobs, peers and entries sit on several lists at once (a job is on the
 * scheduler's job list, the by-time list and its message's list), so the
 * links live inside the objects and cost no allocation; every operation is
 * O(1).  Modelled on Postfix's QMGR_LIST macros.
 */
#ifndef SCHED_LIST_H
#define SCHED_LIST_H

#include <stddef.h>

#define SCHED_LIST(type)                                                       \
	struct {                                                               \
		struct type *head;                                             \
		struct type *tail;                                             \
	}

#define SCHED_LINK(type)                                                       \
	struct {                                                               \
		struct type *prev;                                             \
		struct type *next;                                             \
	}

#define SCHED_LIST_INIT(l) ((l).head = (l).tail = NULL)

/* Link obj between prv and nxt (either may be NULL at the ends). */
#define SCHED_LIST_LINK(l, prv, obj, nxt, f)                                   \
	do {                                                                   \
		(obj)->f.prev = (prv);                                         \
		(obj)->f.next = (nxt);                                         \
		if ((prv) != NULL)                                             \
			(prv)->f.next = (obj);                                 \
		else                                                           \
			(l).head = (obj);                                      \
		if ((nxt) != NULL)                                             \
			(nxt)->f.prev = (obj);                                 \
		else                                                           \
			(l).tail = (obj);                                      \
	} while (0)

#define SCHED_LIST_APPEND(l, obj, f)                                           \
	do {                                                                   \
		(obj)->f.prev = (l).tail;                                      \
		(obj)->f.next = NULL;                                          \
		if ((l).tail != NULL)                                          \
			(l).tail->f.next = (obj);                              \
		else                                                           \
			(l).head = (obj);                                      \
		(l).tail = (obj);                                              \
	} while (0)

#define SCHED_LIST_UNLINK(l, obj, f)                                           \
	do {                                                                   \
		if ((obj)->f.prev != NULL)                                     \
			(obj)->f.prev->f.next = (obj)->f.next;                 \
		else                                                           \
			(l).head = (obj)->f.next;                              \
		if ((obj)->f.next != NULL)                                     \
			(obj)->f.next->f.prev = (obj)->f.prev;                 \
		else                                                           \
			(l).tail = (obj)->f.prev;                              \
		(obj)->f.prev = (obj)->f.next = NULL;                          \
	} while (0)

#endif
