/*
 * sched_select.h - which entry goes next (sched_select.c): round-robin
 * over a job's ready peers, parking a peer whose queue is full
 */
#ifndef MJQ_SCHED_SELECT_H
#define MJQ_SCHED_SELECT_H

struct sched_transport;
struct sched_peer;
struct sched_entry;

struct sched_entry *sched_select_entry(struct sched_transport *, double now);
void sched_select_ready(struct sched_peer *);

#endif
