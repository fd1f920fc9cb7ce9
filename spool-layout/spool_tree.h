/*
 * spool_tree.h - create or check the top of the spool tree.
 */
#ifndef MJQ_SPOOL_TREE_H
#define MJQ_SPOOL_TREE_H

#include <stddef.h>

int spool_tree_create(const char *spool, char *what, size_t whatlen);

#endif
