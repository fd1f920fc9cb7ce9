/*
 * listfn_first.c - the first door of the list functions: a claimed
 * message's first processing, chosen by its function.  A post gets its
 * posting policy and subscriber snapshot (post.c), owner mail its owners
 * (owner_mail.c), a request or majordomo command its answers
 * (request.c); each leaves the message with a state file, or moves it
 * aside.  The runner calls this on a list thread and never learns which
 * function ran; the text to send comes through the second door,
 * listfn_text.c.
 */
#include <stddef.h>

#include "listfn_first.h"
#include "listfn_list.h"
#include "listfn_msg.h"
#include "owner_mail.h"
#include "post.h"
#include "request.h"

/* listfn_first - m's function makes its state file */
int
listfn_first(
    struct listfn_env *env, struct listfn_msg *m, const char *text, size_t len)
{
	int r;

	switch (m->function) {
	case SPOOL_FN_LIST:
		return post_first(env, m, text, len);
	case SPOOL_FN_OWNER:
		return owner_mail(env, m, text, len);
	case SPOOL_FN_REQUEST:
	case SPOOL_FN_MAJORDOMO:
		if ((r = listfn_list_ready(env, m)) != 0)
			return r;
		return request_process(env, m, text, len);
	default:
		return -2;
	}
}

/* listfn_first_edits - commands and owner mail may wait on a list lock
 * (bounces are counted under one); a post takes none, but reads the
 * whole subscribers file (posting policy, snapshot) */
int
listfn_first_edits(const struct listfn_msg *m)
{
	return m->function != SPOOL_FN_LIST;
}
