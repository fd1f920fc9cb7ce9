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
#include <string.h>

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
	int r = 0;

	if (m->datafd == -1) {
		if (strcmp(m->st.kind, "post") == 0)
			r = post_text(env, m, text, len);
		else if (digest_copy_is(m->st.kind))
			r = digest_copy(env, m, text, len);
		else if ((r = text_file_plain(m, text, len)) == -1)
			log_warn("%s: cannot prepare the text", m->name);
	}
	if (r == 0 && m->datafd != -1)
		r = text_sign(env, m);
	return r;
}
