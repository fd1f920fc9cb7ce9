/*
 * post_footer.h - a list's header and footer texts put into a post,
 * MIME-aware (post_footer.c).
 */
#ifndef MJQ_POST_FOOTER_H
#define MJQ_POST_FOOTER_H

#include <stddef.h>

/* What a post becomes.  body NULL: the post as it came. */
struct post_footer {
	char *body; /* the new body (malloc'd), or NULL */
	size_t blen;
	int wrap;	  /* the post's MIME fields moved inside: the caller
			   * drops them (post_footer_moves) and writes fields */
	char fields[160]; /* when wrap: the wrapper's MIME fields */
};

int post_footer_make(const char *text, size_t len, const char *head,
    const char *foot, const char *domain, const char *list,
    struct post_footer *out);
int post_footer_part(char **out, size_t *outlen, const char *boundary,
    const char *text, const char *eol);
int post_footer_moves(const char *p, size_t n);
int post_footer_sealed(const char *text, size_t len);
void post_footer_free(struct post_footer *f);

#endif
