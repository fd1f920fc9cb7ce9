/*
 * spool_edit.h - a small file under $spool/state/ read and rewritten whole
 * under its lock (spool_edit.c): the reply counts, the one-click request
 * counts, the open incidents.
 */
#ifndef MJQ_SPOOL_EDIT_H
#define MJQ_SPOOL_EDIT_H

#include "lockedit.h"

/* spool_edit_open - lock and read spool's file (a path under the spool,
 * "state/..."), state/ made first when missing; 0, or -1 with errno */
int spool_edit_open(struct lockedit *le, const char *spool, const char *file);

#endif
