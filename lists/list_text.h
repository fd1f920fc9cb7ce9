/*
 * list_text.h - a text an owner keeps in the list's directory (footer,
 * header, welcome, goodbye), read with its variables replaced
 * (list_text.c).
 */
#ifndef MJQ_LIST_TEXT_H
#define MJQ_LIST_TEXT_H

#include <stddef.h>
#include <stdio.h>

#include "listconf.h"
#include "settings.h"

#define LIST_TEXT_MAX (64 * 1024)

/* Where each copy's own one-click link goes ($UNSUBSCRIBE_URL in a
 * post's footer): ASCII, so it passes through any charset a footer is
 * converted to, and made of bytes no footer text writes (US, 0x1f). */
#define LIST_TEXT_LINK "\037mjq-unsubscribe-url\037"
/* The same in a quoted-printable body (post_footer.c): on a line of its
 * own between soft line breaks, the link written there encoded. */
#define LIST_TEXT_LINK_QP "\037mjq-unsubscribe-url-qp\037"

/* What both marks begin with: a poster's text never keeps it
 * (list_text_defuse), so the only mark in a text is the footer's. */
#define LIST_TEXT_LINK_STEM "\037mjq-unsubscribe-url"

int list_text_defuse(const char *text, size_t len, char **out);
int list_text_load(const struct settings *s, const struct listconf *lc,
    const char *domain, const char *list, const char *file, char **out,
    char *err, size_t errlen);
int list_text_load_linked(const struct settings *s, const struct listconf *lc,
    const char *domain, const char *list, const char *file, char **out,
    char *err, size_t errlen);
const char *list_text_link(const char *text, size_t len, size_t *mlen, int *qp);
void list_text_qp(const char *link, const char *eol, char *out);
char *list_text_unlinked(const char *text, size_t len, const char *domain,
    const char *list, size_t *outlen);

#endif
