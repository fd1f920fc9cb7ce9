/*
 * subs_edit.h - change a list's subscribers file, one address at a time.
 */
#ifndef MJQ_SUBS_EDIT_H
#define MJQ_SUBS_EDIT_H

#include <stddef.h>

#include "lists_settings.h"
#include "lockedit.h"
#include "settings.h"

enum subs_op { SUBS_ADD, SUBS_REMOVE };

int subs_edit(const struct settings *s, const struct lists_settings *ls,
    const char *domain, const char *list, enum subs_op op, const char *addr);
int subs_edit_if(const struct settings *s, const struct lists_settings *ls,
    const char *domain, const char *list, enum subs_op op, const char *addr,
    long long issued);
int subs_edit_open(struct lockedit *le, char *path, size_t pathlen,
    const struct settings *s, const char *domain, const char *list,
    const char *addr);
int subs_edit_member(const struct settings *s, const char *domain,
    const char *list, const char *addr);

#endif
