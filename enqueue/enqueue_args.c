/*
 * enqueue_args.c - mj_enqueue's command line.
 *
 * The flags are the ones Majordomo 2 writes into MTA aliases; -Q derives
 * list and function from a qmail local part instead.  Every problem is
 * one line on stderr and EX_USAGE: the MTA's administrator must fix the
 * alias, and the MTA bounces or defers as it is configured to.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "enqueue.h"

/* enqueue_usage - the synopsis, then EX_USAGE */
static int
enqueue_usage(const char *why)
{
	if (why != NULL)
		fprintf(stderr, "mj_enqueue: %s\n", why);
	fprintf(stderr,
	    "usage: mj_enqueue [-C file] -d domain [-l list] "
	    "(-r | -o | -M | -q | -m | -c command | -x sublist | -Q local)\n"
	    "                  [-P 0-99] [-p 0-99] [-f sender] [-S]\n");
	return EX_USAGE;
}

/* enqueue_prio - a priority 0-99 */
static int
enqueue_prio(const char *text, int *out)
{
	char *end;
	long v;

	if (!isdigit((unsigned char)*text))
		return -1;
	errno = 0;
	v = strtol(text, &end, 10);
	if (errno != 0 || *end != '\0' || v < 0 || v > SPOOL_PRIO_MAX)
		return -1;
	*out = (int)v;
	return 0;
}

/* enqueue_sender_check - 0 when an envelope sender can be written as
 * Return-Path: no controls, no angle brackets, bounded */
int
enqueue_sender_check(const char *sender)
{
	const unsigned char *p;

	if (strlen(sender) > ENQUEUE_SENDER_MAX)
		return -1;
	for (p = (const unsigned char *)sender; *p; p++)
		if (*p < 0x21 || *p == 0x7f || *p == '<' || *p == '>')
			return -1;
	return 0;
}

/* enqueue_set - copy a name into its field, checking it */
static int
enqueue_set(
    char *dst, size_t len, const char *src, const char *what, size_t maxlen)
{
	const char *why;
	char msg[160];

	if ((why = name_check(src, maxlen)) != NULL ||
	    strlcpy(dst, src, len) >= len) {
		snprintf(msg, sizeof(msg), "bad %s \"%.64s\": %s", what, src,
		    why ? why : "name too long");
		return enqueue_usage(msg);
	}
	return 0;
}

/* enqueue_local - -Q: list and function from a local part */
static int
enqueue_local(struct enqueue_args *a, const char *local)
{
	static const struct {
		const char *suffix;
		enum spool_function fn;
		const char *command;
	} suffixes[] = {
	    {"-owner", SPOOL_FN_OWNER, ""},
	    {"-request", SPOOL_FN_REQUEST, ""},
	    {"-subscribe", SPOOL_FN_REQUEST, "subscribe"},
	    {"-unsubscribe", SPOOL_FN_REQUEST, "unsubscribe"},
	};
	char lp[NAME_LIST_MAX + 16];
	size_t i, len, slen;

	if (*local == '\0' && (local = getenv("DEFAULT")) == NULL &&
	    (local = getenv("LOCAL")) == NULL)
		return enqueue_usage("-Q: empty local part and neither "
				     "$DEFAULT nor $LOCAL is set");
	if (strlcpy(lp, local, sizeof(lp)) >= sizeof(lp))
		return enqueue_usage("-Q: local part too long");
	for (i = 0; lp[i]; i++)
		lp[i] = (char)tolower((unsigned char)lp[i]);
	if (strcmp(lp, "majordomo") == 0) {
		a->function = SPOOL_FN_MAJORDOMO;
		(void)strlcpy(a->list, SPOOL_GLOBAL_LIST, sizeof(a->list));
		return 0;
	}
	a->function = SPOOL_FN_LIST;
	if (strncmp(lp, "owner-", 6) == 0) {
		a->function = SPOOL_FN_OWNER;
		memmove(lp, lp + 6, strlen(lp + 6) + 1);
	} else {
		len = strlen(lp);
		for (i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
			slen = strlen(suffixes[i].suffix);
			if (len > slen &&
			    strcmp(lp + len - slen, suffixes[i].suffix) == 0) {
				lp[len - slen] = '\0';
				a->function = suffixes[i].fn;
				(void)strlcpy(a->command, suffixes[i].command,
				    sizeof(a->command));
				break;
			}
		}
	}
	return enqueue_set(
	    a->list, sizeof(a->list), lp, "list (from -Q)", NAME_LIST_MAX);
}

/* enqueue_args_parse - 0, or the exit code for a bad command line */
int
enqueue_args_parse(struct enqueue_args *a, int argc, char **argv)
{
	const char *list = NULL, *local = NULL, *why, *env;
	int c, nfunc = 0, r;

	memset(a, 0, sizeof(*a));
	a->domain_prio = a->list_prio = SPOOL_PRIO_DEFAULT;
	opterr = 0;
	while ((c = getopt(argc, argv, ":C:d:l:roMqmc:x:P:p:f:Q:S")) != -1) {
		switch (c) {
		case 'C':
			a->config = optarg;
			break;
		case 'd':
			a->domain = optarg;
			break;
		case 'l':
			list = optarg;
			break;
		case 'r':
		case 'o':
		case 'M':
		case 'q':
		case 'm':
			nfunc++;
			a->function = c == 'r'		     ? SPOOL_FN_LIST
				      : c == 'o' || c == 'M' ? SPOOL_FN_OWNER
				      : c == 'q'	     ? SPOOL_FN_REQUEST
						 : SPOOL_FN_MAJORDOMO;
			break;
		case 'c':
			nfunc++;
			a->function = SPOOL_FN_REQUEST;
			if ((r = enqueue_set(a->command, sizeof(a->command),
				 optarg, "command", SPOOL_COMMAND_MAX)) != 0)
				return r;
			break;
		case 'x':
			nfunc++;
			a->function = SPOOL_FN_LIST;
			if ((r = enqueue_set(a->sublist, sizeof(a->sublist),
				 optarg, "sublist", NAME_LIST_MAX)) != 0)
				return r;
			break;
		case 'Q':
			nfunc++;
			local = optarg;
			break;
		case 'P':
		case 'p':
			if (enqueue_prio(optarg,
				c == 'P' ? &a->domain_prio : &a->list_prio) ==
			    -1)
				return enqueue_usage(
				    "priority must be a number from 0 to 99");
			break;
		case 'f':
			if (enqueue_sender_check(optarg) == -1 ||
			    strlcpy(a->sender, optarg, sizeof(a->sender)) >=
				sizeof(a->sender))
				return enqueue_usage(
				    "bad envelope sender after -f");
			a->have_sender = 1;
			break;
		case 'S':
			a->stop = 1;
			break;
		case ':':
			fprintf(stderr, "mj_enqueue: -%c needs an argument\n",
			    optopt);
			return enqueue_usage(NULL);
		default:
			fprintf(
			    stderr, "mj_enqueue: unknown flag -%c\n", optopt);
			return enqueue_usage(NULL);
		}
	}
	if (optind != argc)
		return enqueue_usage("unexpected argument after the flags");
	if (a->domain == NULL)
		return enqueue_usage("missing -d domain");
	if ((why = name_check_domain(a->domain)) != NULL) {
		fprintf(stderr, "mj_enqueue: bad domain \"%.64s\": %s\n",
		    a->domain, why);
		return EX_USAGE;
	}
	if (nfunc == 0)
		return enqueue_usage("no function flag: give one of -r -o -M "
				     "-q -m -c -x -Q");
	if (nfunc > 1)
		return enqueue_usage(
		    "give only one of -r -o -M -q -m -c -x -Q");
	if (local != NULL) {
		if (list != NULL)
			return enqueue_usage("-Q derives the list; drop -l");
		if ((r = enqueue_local(a, local)) != 0)
			return r;
	} else if (a->function == SPOOL_FN_MAJORDOMO) {
		if (list != NULL)
			return enqueue_usage("-m is for majordomo@domain and "
					     "takes no -l list");
		(void)strlcpy(a->list, SPOOL_GLOBAL_LIST, sizeof(a->list));
	} else if (list == NULL) {
		return enqueue_usage("missing -l list");
	} else if ((r = enqueue_set(a->list, sizeof(a->list), list, "list",
			NAME_LIST_MAX)) != 0) {
		return r;
	}
	if (!a->have_sender && (env = getenv("SENDER")) != NULL) {
		if (enqueue_sender_check(env) == -1 ||
		    strlcpy(a->sender, env, sizeof(a->sender)) >=
			sizeof(a->sender)) {
			fprintf(stderr, "mj_enqueue: unusable envelope sender "
					"in $SENDER\n");
			return EX_DATAERR;
		}
		a->have_sender = 1;
	}
	return 0;
}
