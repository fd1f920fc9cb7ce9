/*
 * expand_texts.h - what a list owner adds to each post (expand_texts.c).
 */
#ifndef MJQ_EXPAND_TEXTS_H
#define MJQ_EXPAND_TEXTS_H

#include <stdio.h>

#include "lists.h"

struct listfn_env;
struct listfn_msg;

/* The list's header and footer texts (list_text.c) and its added
 * fields (head_rules.c), each NULL when it has none. */
struct expand_list_texts {
	char *head, *foot, *fields;
};

int expand_texts_load(struct listfn_env *env, struct listfn_msg *m,
    const struct listconf *lc, struct expand_list_texts *t);
void expand_texts_free(struct expand_list_texts *t);
int expand_texts_wrapped(FILE *fp, const struct expand_list_texts *t,
    const char *boundary, const char *orig, const char *end);

#endif
