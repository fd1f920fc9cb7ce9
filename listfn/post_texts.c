/*
 * post_texts.c - what a list owner adds to each post, read at each
 * activation of a post (post.c): the header and footer texts
 * (lists/list_text.c, put in by lists/post_footer.c) and the
 * custom_headers fields (lists/head_rules.c); and the texts as parts of
 * a post wrapped for DMARC.
 */
#include <stdio.h>
#include <stdlib.h>

#include "post_texts.h"
#include "listfn_msg.h"
#include "lists.h"
#include "log.h"

/* post_texts_free - let them go */
void
post_texts_free(struct post_texts *t)
{
	free(t->head);
	free(t->foot);
	free(t->fields);
	t->head = t->foot = t->fields = NULL;
}

/* post_texts_load - the list's header and footer texts; -1
 * (logged): the post waits, never sent without them */
int
post_texts_load(struct listfn_env *env, struct listfn_msg *m,
    const struct listconf *lc, struct post_texts *t)
{
	char err[PATH_MAX + 300], path[PATH_MAX];

	t->head = t->foot = t->fields = NULL;
	if (list_path(path, sizeof(path), env->s, m->domain, m->list,
		HEAD_RULES_FILE) == -1)
		snprintf(
		    err, sizeof(err), "%s: path too long", HEAD_RULES_FILE);
	else if (list_text_load(env->s, lc, m->domain, m->list, "header",
		     &t->head, err, sizeof(err)) == 0 &&
		 list_text_load_linked(env->s, lc, m->domain, m->list, "footer",
		     &t->foot, err, sizeof(err)) == 0 &&
		 head_rules_load(path, &t->fields, err, sizeof(err)) == 0)
		return 0;
	log_warnx("%s: %s: deferred", m->name, err);
	post_texts_free(t);
	return -1;
}

/* post_texts_wrapped - the body of a post wrapped for DMARC: the
 * list's header text, the post (orig to end) as a message/rfc822 part,
 * the list's footer text */
int
post_texts_wrapped(FILE *fp, const struct post_texts *t, const char *boundary,
    const char *orig, const char *end)
{
	const char *const texts[2] = {t->head, t->foot};
	char *part;
	size_t n;
	int i;

	for (i = 0; i < 2; i++) {
		if (i == 1)
			fprintf(fp,
			    "--%s\n"
			    "Content-Type: message/rfc822\n"
			    "Content-Disposition: inline\n\n",
			    boundary);
		if (i == 1) {
			fwrite(orig, 1, (size_t)(end - orig), fp);
			if (end > orig && end[-1] != '\n')
				fputc('\n', fp);
		}
		if (texts[i] == NULL)
			continue;
		if (post_footer_part(&part, &n, boundary, texts[i], "\n") == -1)
			return -1;
		fwrite(part, 1, n, fp);
		free(part);
	}
	fprintf(fp, "--%s--\n", boundary);
	return 0;
}
