/*
 * listfn_text.c - the second door of the list functions: the text a
 * message with a state file is sent with, made on each activation (the
 * state file is the snapshot; the text is not kept).  The message's
 * kind, from its state file, chooses: a post as the subscribers get it
 * (post.c), a digest issue with each reader's fields (digest_copy.c),
 * any other mail as stored (text_file.c).  The text is then signed
 * (text_sign.c).  The runner calls this on its main thread, and hands
 * the text to the delivery threads without knowing its kind.
 */
#include <stdlib.h>
#include <string.h>

#include "lists.h"

#include "digest_copy.h"
#include "listfn_msg.h"
#include "listfn_text.h"
#include "log.h"
#include "post.h"
#include "text_file.h"
#include "text_sign.h"

/* listfn_text - m's text made (unless made already) and signed */
int
listfn_text(
    struct listfn_env *env, struct listfn_msg *m, const char *text, size_t len)
{
	char *safe = NULL;
	int r = 0;

	if (m->datafd == -1) {
		if (strcmp(m->st.kind, "post") == 0)
			r = post_text(env, m, text, len);
		/* Only a post's footer asks for each copy's own link: a mark
		 * in a digest (a post collected as it came) or in other mail
		 * is a poster's, defused (post_compose does it for a post). */
		else if ((r = list_text_defuse(text, len, &safe)) == -1)
			log_warn("%s: cannot prepare the text", m->name);
		else if (digest_copy_is(m->st.kind))
			r = digest_copy(
			    env, m, safe != NULL ? safe : text, len);
		else if ((r = text_file_plain(
			      m, safe != NULL ? safe : text, len)) == -1)
			log_warn("%s: cannot prepare the text", m->name);
	}
	free(safe);
	if (r == 0 && m->datafd != -1)
		r = text_sign(env, m);
	return r;
}
