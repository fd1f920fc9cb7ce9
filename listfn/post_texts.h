/*
 * post_texts.h - what a list owner adds to each post (post_texts.c).
 */
#ifndef MJQ_POST_TEXTS_H
#define MJQ_POST_TEXTS_H

#include <stdio.h>

#include "lists.h"

struct listfn_env;
struct listfn_msg;

/* The list's header and footer texts (list_text.c) and its added
 * fields (head_rules.c), each NULL when it has none. */
struct post_texts {
	char *head, *foot, *fields;
};

int post_texts_load(struct listfn_env *env, struct listfn_msg *m,
    const struct listconf *lc, struct post_texts *t);
void post_texts_free(struct post_texts *t);
int post_texts_wrapped(FILE *fp, const struct post_texts *t,
    const char *boundary, const char *orig, const char *end);

#endif
