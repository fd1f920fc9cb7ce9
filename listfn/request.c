/*
 * request.c - the request and majordomo functions: mail to
 * <list>-request@<domain> and majordomo@<domain> is read as commands
 * (cmd_parse.c), run (request_cmd.c) and answered (reply.c).
 *
 * The contract with listfn_first.c is owner_mail's: on first contact the
 * function leaves the message with a state file, here one without
 * recipients, so the normal finish path removes it.  The order is the
 * one generated mail needs: the answers are committed first, the state
 * file last, so a crash in between runs the request again (a reply
 * twice, a used token reported as used) but never loses an answer.
 *
 * Never answered, to stop loops with autoresponders and list servers
 * (RFC 3834): the null sender, Auto-Submitted other than "no",
 * Precedence bulk, junk or list, and mail carrying our own X-Loop.
 */
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lists.h"
#include "listfn_state.h"
#include "log.h"
#include "listfn_msg.h"
#include "request.h"
#include "request_one_click.h"
#include "request_cmd.h"
#include "reply.h"

/* request_address - the address that answers: <list>-request or
 * majordomo, in the message's domain */
static void
request_address(const struct listfn_msg *m, char *out, size_t outlen)
{
	if (m->function == SPOOL_FN_REQUEST)
		snprintf(out, outlen, "%s-request@%s", m->list, m->domain);
	else
		snprintf(out, outlen, "majordomo@%s", m->domain);
}

/* request_run - parse and run every command, answers in r->rs */
static int
request_run(struct request *r, const char *text, size_t len)
{
	struct spool_name sn;
	struct cmd_set *set;
	const char *deflist;
	size_t i;
	int ok = 0;

	if ((set = malloc(sizeof(*set))) == NULL)
		return -1;
	/* The name's ",command" is the -c of <list>-subscribe aliases. */
	if (spool_name_parse(r->m->name, &sn) == -1)
		sn.command[0] = '\0';
	deflist = r->m->function == SPOOL_FN_REQUEST ? r->m->list : "";
	if (cmd_parse_message(text, len, sn.command, deflist, set) == -1) {
		free(set);
		return -1;
	}
	for (i = 0; i < set->n && ok == 0; i++)
		ok = request_cmd(r, &set->cmd[i]);
	if (ok == 0 && set->n == 0)
		fprintf(r->main->fp, "No commands found (send \"help\").\n\n");
	if (ok == 0 && set->truncated)
		fprintf(
		    r->main->fp, "The rest of the message was ignored.\n\n");
	log_info("%s: from=<%s>, %zu command(s)%s", r->m->name, r->requester,
	    set->n, ok == 0 ? "" : ", failed: trying again later");
	free(set);
	return ok;
}

/* request_process - the request function's first contact with a
 * message; 0 done (state file made), -1 try again later */
int
request_process(
    struct listfn_env *env, struct listfn_msg *m, const char *text, size_t len)
{
	char sender[SPOOL_ADDR_MAX + 1], v[1024], subject[CMD_LINE_MAX + 1];
	char self[SPOOL_ADDR_MAX + 1], msgid[SPOOL_ADDR_MAX + 1];
	const char *why, *bad = NULL;
	struct request r;
	int known, ok;

	if (m->function == SPOOL_FN_REQUEST &&
	    (ok = request_one_click(env, m, text, len)) != 0)
		return ok == 1 ? 0 : -1;
	known = header_return_path(text, len, sender, sizeof(sender)) == 0;
	request_address(m, self, sizeof(self));
	memset(&r, 0, sizeof(r));
	r.env = env;
	r.m = m;
	/* The answer goes to the author (From), as Majordomo's did. */
	if (header_value(text, len, "From", v, sizeof(v)) == -1 ||
	    header_addr(v, r.requester, sizeof(r.requester)) == -1)
		(void)strlcpy(
		    r.requester, sender, sizeof(r.requester)); /* same size */
	if ((why = reply_automatic(text, len, known ? sender : NULL)) == NULL &&
	    header_value(text, len, "X-Loop", v, sizeof(v)) == 0 &&
	    strcasecmp(v, self) == 0)
		why = "our own X-Loop";
	if (why == NULL && (bad = name_addr_check(r.requester)) != NULL)
		why = "no usable From or envelope sender";
	if (why != NULL) {
		log_notice("%s: request not answered: %s%s%s%s", m->name, why,
		    bad ? " (" : "", bad ? bad : "", bad ? ")" : "");
		return listfn_state_empty(
		    env, m, "request", known ? sender : "");
	}
	header_value(text, len, "Subject", subject, sizeof(subject));
	header_value(text, len, "Message-Id", msgid, sizeof(msgid));
	reply_init(&r.rs, self, subject, msgid);
	if ((r.main = reply_for(&r.rs, r.requester)) == NULL) {
		reply_free(&r.rs);
		return -1;
	}
	ok = request_run(&r, text, len);
	if (ok == 0)
		ok = reply_commit(env, m, &r.rs);
	reply_free(&r.rs);
	if (ok == -1)
		return -1;
	return listfn_state_empty(env, m, "request", known ? sender : "");
}
