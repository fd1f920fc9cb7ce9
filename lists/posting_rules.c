/*
 * posting_rules.c - the rules a post meets after the posting policy
 * accepted its poster (posting.c), as Mailman's emergency and
 * max_num_recipients:
 *
 * - [list] emergency = yes holds every post for a moderator, from
 *   anyone (a thread gone wrong, a compromised subscriber);
 * - [list] max_recipients = N holds a post whose To and Cc name more
 *   than N addresses (spam sent to many lists at once).
 *
 * Both hold, never reject: a person decides.  Pure code.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "content_filter.h"
#include "header.h"
#include "posting_conf.h"
#include "posting_rules.h"

/* posting_rules_count - the addresses in one To or Cc field (from its
 * colon to e): the commas' items that hold an @, outside quotes,
 * comments and angle brackets */
static size_t
posting_rules_count(const char *p, const char *e)
{
	size_t n = 0;
	int at = 0, quote = 0, depth = 0, angle = 0;

	for (; p < e; p++) {
		if (quote) {
			if (*p == '\\' && p + 1 < e)
				p++;
			else if (*p == '"')
				quote = 0;
			continue;
		}
		if (*p == '"')
			quote = 1;
		else if (*p == '(')
			depth++;
		else if (*p == ')' && depth > 0)
			depth--;
		else if (depth > 0)
			continue;
		else if (*p == '<')
			angle = 1;
		else if (*p == '>')
			angle = 0;
		else if (*p == '@')
			at = 1;
		else if ((*p == ',' || *p == ';' || *p == ':') && !angle) {
			/* a group's name ends in ':', its list in ';' */
			n += at;
			at = 0;
		}
	}
	return n + at;
}

/* posting_rules_rcpts - the explicit recipients of a post: the
 * addresses of all its To and Cc fields */
static size_t
posting_rules_rcpts(const char *text, size_t len)
{
	const char *hend = header_end(text, len), *p, *e;
	size_t n = 0;

	for (p = text; p < hend; p = e) {
		e = header_field_end(p, hend);
		if ((e - p > 3 && strncasecmp(p, "To:", 3) == 0) ||
		    (e - p > 3 && strncasecmp(p, "Cc:", 3) == 0))
			n += posting_rules_count(p + 3, e);
	}
	return n;
}

/* posting_rules_check - POSTING_ACCEPT, or POSTING_HOLD with why */
int
posting_rules_check(const struct listconf *lc, const char *text, size_t len,
    char *why, size_t whylen)
{
	size_t n;
	int r;

	if (lc->emergency) {
		snprintf(why, whylen,
		    "the list is under emergency moderation (emergency = yes)");
		return POSTING_HOLD;
	}
	if (lc->max_recipients > 0 &&
	    (n = posting_rules_rcpts(text, len)) > (size_t)lc->max_recipients) {
		snprintf(why, whylen,
		    "%zu explicit recipients in To and Cc, over the list's "
		    "max_recipients of %lld",
		    n, lc->max_recipients);
		return POSTING_HOLD;
	}
	if ((r = content_filter_judge(lc, text, len, why, whylen)) !=
	    POSTING_ACCEPT)
		return r;
	return POSTING_ACCEPT;
}
