/*
 * digest_copy.c - a digest issue (kinds "digest" and "digest-plain",
 * digest.c) as its readers get it: its text as stored, as for any mail
 * the runner made, and on a list with one-click links (unsubscribe_url)
 * each reader's own List-Unsubscribe and List-Unsubscribe-Post, made
 * and signed per copy as a post's are (lists/rcpt_head.c, then
 * text_sign.c and the delivery threads).  A digest reader unsubscribes
 * with the link as any subscriber does.
 *
 * An issue made before the list had links carries the mailto
 * List-Unsubscribe in its text (digest_text.c): it gets no second one.
 */
#include <stdio.h>
#include <string.h>

#include "digest_copy.h"
#include "copy_head.h"
#include "listfn_list.h"
#include "text_file.h"
#include "lists.h"
#include "log.h"

/* digest_copy_is - a message of this kind is a digest issue */
int
digest_copy_is(const char *kind)
{
	return strcmp(kind, "digest") == 0 || strcmp(kind, "digest-plain") == 0;
}

/* digest_copy - the text, each reader's fields opened; 0, -1
 * (logged: the issue waits), -2 its list was removed (moved to BAD/) */
int
digest_copy(
    struct listfn_env *env, struct listfn_msg *m, const char *text, size_t len)
{
	struct listconf lc;
	char v[8];
	int r;

	if ((r = listfn_list_conf(env, m, &lc)) != 0)
		return r;
	if (text_file_plain(m, text, len) == -1) {
		log_warn("%s: cannot prepare the text", m->name);
		return -1;
	}
	if (header_value(text, len, "List-Unsubscribe", v, sizeof(v)) == 0)
		return 0; /* made before the list had links */
	return copy_head(env, m, &lc);
}
