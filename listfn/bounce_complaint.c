/*
 * bounce_complaint.c - a subscriber who reports a post as spam.
 *
 * A mailbox provider's feedback loop sends an RFC 5965 report to
 * <list>-owner (lists/arf_parse.c).  An abuse report proving a
 * subscriber (its Original-Rcpt-To, or what the list wrote into the
 * returned copy: its one-click link or VERP address, lists/copy_rcpt.c;
 * never a field the poster wrote) unsubscribes it (the list key
 * complaint_unsubscribe, yes by default: mail it does not want only hurts the
 * list's reputation), and is noted in <list dir>/complaints, one line each:
 *
 *     <time> <address> <what was done> (report <message name>)
 *
 * under lockedit's lock.  The report's name in its line makes the note
 * once: a runner killed after it, before the count, leaves the line, and
 * the retry finds it there and writes none.  The owners get no mail per
 * complaint: as posts go out, complaints a day old or more are told in one
 * summary and the file emptied (bounce_complaint_summary).  An abuse report
 * that proves nobody is counted for the list and forwarded to the owners, and
 * removes nobody; a report of another type is forwarded too.  A feedback report
 * is never read as a bounce.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bounce_complaint.h"
#include "bounce_count.h"
#include "bounce_probe.h"
#include "listfn_clock.h"
#include "listfn_list.h"
#include "listfn_msg.h"
#include "listfn_state.h"
#include "lockedit.h"
#include "log.h"

/* complaint_note - a line appended to the complaints file unless m's is
 * there (what NULL: the file's text into *old and emptied instead); 0
 * or -1 */
static int
complaint_note(struct listfn_env *env, struct listfn_msg *m, const char *addr,
    const char *what, time_t now, char **old)
{
	char path[PATH_MAX], mark[SPOOL_NAME_MAX + 16], *out = NULL;
	struct lockedit le;
	size_t outlen = 0;
	int r = -1;
	FILE *fp;

	if (list_path(path, sizeof(path), env->s, m->domain, m->list,
		"complaints") == -1 ||
	    lockedit_open(&le, path) == -1)
		return -1;
	if (what == NULL) {
		if ((*old = strdup(le.text)) != NULL &&
		    (le.len == 0 || lockedit_commit(&le, "", 0) == 0))
			r = 0;
		lockedit_close(&le);
		return r;
	}
	if (snprintf(mark, sizeof(mark), " (report %s)\n", m->name) >=
	    (int)sizeof(mark))
		goto done;
	if (strstr(le.text, mark) != NULL) {
		log_info("%s: complaint of <%s> noted before: not noted again",
		    m->name, addr);
		r = 0;
		goto done;
	}
	if ((fp = open_memstream(&out, &outlen)) == NULL)
		goto done;
	fprintf(
	    fp, "%s%lld %s %s%s", le.text, (long long)now, addr, what, mark);
	if (fclose(fp) == 0 && lockedit_commit(&le, out, outlen) == 0)
		r = 0;
done:
	free(out);
	lockedit_close(&le);
	return r;
}

/* complaint_secret - the one-click secret into us, which the list's
 * copies carry their links under; NULL when there is none to read */
static const struct unsub_secret *
complaint_secret(
    struct listfn_env *env, struct listfn_msg *m, struct unsub_secret *us)
{
	char err[512];

	if (env->ls->unsubscribe_secret_file[0] == '\0' ||
	    unsub_secret_load(
		us, env->ls->unsubscribe_secret_file, err, sizeof(err)) == -1) {
		if (env->ls->unsubscribe_secret_file[0] != '\0')
			log_info("%s: feedback report: no one-click links "
				 "checked: %s",
			    m->name, err);
		return NULL;
	}
	return us;
}

/* bounce_complaint - a feedback report: the subscriber it proves
 * unsubscribed; 1 no report (go on as with other owner mail), 2 a report
 * to forward to the owners as it is, 0 done, -1 try again later */
int
bounce_complaint(
    struct listfn_env *env, struct listfn_msg *m, const char *text, size_t len)
{
	struct unsub_secret us;
	struct arf_found af;
	struct listconf lc;
	const char *what = "not a subscriber";
	int r, member;

	memset(&us, 0, sizeof(us));
	arf_parse(m->domain, m->list, complaint_secret(env, m, &us),
	    listfn_now(), text, len, &af);
	explicit_bzero(&us, sizeof(us));
	if (!af.is_arf)
		return 1;
	if (!af.abuse) {
		log_notice("%s: feedback report (%s) naming %s: forwarded to "
			   "the owners",
		    m->name, af.type[0] ? af.type : "no type",
		    af.addr[0] ? af.addr : "nobody");
		return 2;
	}
	if (af.addr[0] == '\0') {
		/* Counted, and the owners see the report itself: the
		 * caller's forward settles the count (bounce_count_once). */
		if (bounce_count_once(env, m, NULL, 1) == 1)
			log_notice("%s: feedback report (abuse) proving "
				   "nobody: counted, removed nobody, "
				   "forwarded to the owners",
			    m->name);
		return 2;
	}
	if ((r = bounce_count_was(env, m)) == -1)
		return -1;
	if (r == 1) {
		/* An earlier pass removed, noted and counted: only its end
		 * is left to make. */
		log_info("%s: complaint about <%s> taken before its state "
			 "file was made: not taken again",
		    m->name, af.addr);
		goto end;
	}
	if ((r = listfn_list_conf(env, m, &lc)) != 0)
		return r;
	if ((member = subs_edit_member(env->s, m->domain, m->list, af.addr)) ==
	    -1)
		return -1;
	if (member && lc.complaint_unsubscribe) {
		if (subs_edit(env->s, env->ls, m->domain, m->list, SUBS_REMOVE,
			af.addr) == -1)
			return -1;
		what = "unsubscribed";
	} else if (member)
		what = "kept (complaint_unsubscribe = no)";
	if (complaint_note(env, m, af.addr, what, listfn_now(), NULL) == -1) {
		log_warn(
		    "%s: cannot note the complaint of <%s>", m->name, af.addr);
		return -1;
	}
	log_notice("%s: complaint (abuse report) from <%s> about %s@%s, "
		   "proven by %s: %s",
	    m->name, af.addr, m->list, m->domain, af.proof, what);
	(void)bounce_count_once(env, m, NULL, 1);
end:
	if (listfn_state_empty(env, m, "complaint", "") == -1)
		return -1;
	bounce_count_settled(env, m);
	return 0;
}

/* bounce_complaint_summary - a day's complaints in one notice */
int
bounce_complaint_summary(struct listfn_env *env, struct listfn_msg *m,
    const struct listconf *lc, time_t now)
{
	char path[PATH_MAX], first[32], *old = NULL;
	long long t;
	FILE *fp;
	int r;

	if (list_path(path, sizeof(path), env->s, m->domain, m->list,
		"complaints") == -1)
		return -1;
	if ((fp = fopen(path, "re")) == NULL)
		return 0; /* none yet */
	r = fscanf(fp, "%31s", first);
	fclose(fp);
	if (r != 1 || (t = strtoll(first, NULL, 10)) + 86400 > (long long)now)
		return 0;
	if (complaint_note(env, m, NULL, NULL, now, &old) == -1 || old == NULL)
		return -1;
	r = old[0] == '\0'
		? 0
		: bounce_owners_tell(env, m, lc,
		      "Complaints about %s@%s (abuse reports from "
		      "mailbox providers'\nfeedback loops) since "
		      "the last summary: time, address, what\nwas "
		      "done (complaint_unsubscribe in the list's "
		      "config), the report's name\nin the log:\n\n%s",
		      m->list, m->domain, old);
	free(old);
	return r;
}
