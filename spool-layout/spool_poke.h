/*
 * spool_poke.h - tell mj_queueserv that there is new mail (spool_poke.c).
 */
#ifndef MJQ_SPOOL_POKE_H
#define MJQ_SPOOL_POKE_H

int spool_poke(const char *spool, int timeout_ms);

#endif
