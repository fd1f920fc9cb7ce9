/*
 * request_greet.c - the list's welcome and goodbye texts ("welcome" and
 * "goodbye" in its directory, variables replaced, lists/list_text.c):
 * in the reply that says a subscription or an unsubscription is done,
 * and on their own after a one-click removal, which answers nothing
 * else.  The change is made whatever becomes of the text: a text that
 * cannot be read is logged and left out.
 */
#include <stdlib.h>
#include <string.h>

#include "listfn_msg.h"
#include "log.h"
#include "reply.h"
#include "request_greet.h"

/* request_greet - the text in fp */
int
request_greet(struct listfn_env *env, struct listfn_msg *m,
    const struct listconf *lc, const char *list, const char *file, FILE *fp)
{
	char err[PATH_MAX + 100], *text;

	if (list_text_load(env->s, lc, m->domain, list, file, &text, err,
		sizeof(err)) == -1) {
		log_warnx("%s: %s: left out", m->name, err);
		return 0;
	}
	if (text == NULL)
		return 0;
	fputs(text, fp);
	fputs(text[0] != '\0' && text[strlen(text) - 1] == '\n' ? "\n" : "\n\n",
	    fp);
	free(text);
	return 1;
}

/* request_greet_has - whether the list has the text: a removal that
 * does not send it (the address bounces) says so to the owners */
int
request_greet_has(struct listfn_env *env, struct listfn_msg *m,
    const struct listconf *lc, const char *file)
{
	char err[PATH_MAX + 100], *text = NULL;
	int has;

	has = list_text_load(env->s, lc, m->domain, m->list, file, &text, err,
		  sizeof(err)) == 0 &&
	      text != NULL;
	free(text);
	return has;
}

/* request_goodbye - the goodbye on its own, from <list>-request */
int
request_goodbye(struct listfn_env *env, struct listfn_msg *m,
    const struct listconf *lc, const char *addr)
{
	char from[SPOOL_ADDR_MAX + 1];
	struct reply_set rs;
	struct reply *to;
	int r = -1;

	snprintf(from, sizeof(from), "%s-request@%s", m->list, m->domain);
	reply_init(&rs, from, "", "");
	if ((to = reply_for(&rs, addr)) == NULL)
		goto done;
	to->notice = 1;
	if (snprintf(to->subject, sizeof(to->subject), "Goodbye from %s@%s",
		m->list, m->domain) >= (int)sizeof(to->subject))
		to->subject[0] = '\0'; /* "Notice from ..." instead */
	fprintf(to->fp, "<%s> is no longer subscribed to %s@%s.\n\n", addr,
	    m->list, m->domain);
	if (request_greet(env, m, lc, m->list, "goodbye", to->fp) == 0) {
		r = 0; /* no text: nothing to send */
		goto done;
	}
	r = reply_commit(env, m, &rs);
done:
	reply_free(&rs);
	return r;
}
