/*
 * list_head.h - the header fields that name a list in its mail, RFC 2369
 * and 2919 (list_head.c): written once here for posts, digest issues
 * and each copy's own fields.
 */
#ifndef MJQ_LIST_HEAD_H
#define MJQ_LIST_HEAD_H

#include <stddef.h>
#include <stdio.h>

#include "names.h"

struct listconf;

/* Room for the list's unsubscribe mailto (list_head_mailto), its NUL
 * included */
#define LIST_HEAD_MAILTO_MAX (NAME_DOMAIN_MAX + NAME_LIST_MAX + 64)

/* list_head_write - a list's fields into fp: List-Id, List-Post,
 * List-Help, List-Unsubscribe (unless each copy gets its own one-click
 * one, list_head_unsub), List-Subscribe, List-Owner, Precedence: list,
 * X-Loop, then List-Archive and (msgid not NULL) Archived-At */
void list_head_write(FILE *fp, const struct listconf *lc, const char *list,
    const char *domain, const char *msgid);
/* list_head_mailto - the list's unsubscribe mailto
 * (mailto:majordomo@DOMAIN?body=unsubscribe%20LIST) into out; its
 * length, or -1 when it does not fit */
int list_head_mailto(
    char *out, size_t outlen, const char *list, const char *domain);
/* list_head_unsub - List-Unsubscribe into out: the mailto alone (link
 * NULL), or the one-click link before it and List-Unsubscribe-Post
 * (RFC 8058); its length, or -1 when it does not fit */
int list_head_unsub(char *out, size_t outlen, const char *list,
    const char *domain, const char *link);

#endif
