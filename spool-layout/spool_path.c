/*
 * spool_path.c - the names of everything in the spool tree.
 *
 * Paths are built into caller buffers and every builder fails (-1, errno
 * ENAMETOOLONG) rather than truncate: a truncated path could name some
 * other file.  Callers validate domain and list names (common/names.c)
 * before they get here.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "names.h"
#include "spool_path.h"

const char *const spool_tops[] = {
    SPOOL_QUEUE, SPOOL_TMP, SPOOL_HOLD, SPOOL_BAD, SPOOL_STATE, NULL};
const char *const spool_message_tops[] = {
    SPOOL_QUEUE, SPOOL_HOLD, SPOOL_BAD, NULL};

static const char *const spool_function_names[SPOOL_FN_COUNT] = {
    "list",
    "owner",
    "request",
    "majordomo",
};

/* spool_function_name - the directory name of a function */
const char *
spool_function_name(enum spool_function fn)
{
	return spool_function_names[fn];
}

/* spool_function_lookup - a function by its directory name */
int
spool_function_lookup(const char *name, enum spool_function *fn)
{
	int i;

	for (i = 0; i < SPOOL_FN_COUNT; i++) {
		if (strcmp(name, spool_function_names[i]) == 0) {
			*fn = (enum spool_function)i;
			return 0;
		}
	}
	return -1;
}

/* spool_fit - snprintf's result to 0, or -1 with ENAMETOOLONG */
static int
spool_fit(int n, size_t len)
{
	if (n < 0 || (size_t)n >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* spool_path - $spool/sub */
int
spool_path(char *buf, size_t len, const char *spool, const char *sub)
{
	return spool_fit(snprintf(buf, len, "%s/%s", spool, sub), len);
}

/* spool_top_path - the i-th directory of the top of the tree: 0 the
 * spool root, then spool_tops in order; 1 when i is past the end */
int
spool_top_path(char *buf, size_t len, const char *spool, size_t i)
{
	if (i == 0)
		return spool_fit(snprintf(buf, len, "%s", spool), len);
	if (spool_tops[i - 1] == NULL)
		return 1;
	return spool_path(buf, len, spool, spool_tops[i - 1]);
}

/* spool_queue_dir - $spool/TOP/xx/domain/yy/function (TOP: QUEUE, HOLD,
 * BAD) */
int
spool_queue_dir(char *buf, size_t len, const char *spool, const char *top,
    int domain_prio, const char *domain, int list_prio, enum spool_function fn)
{
	return spool_fit(
	    snprintf(buf, len, "%s/%s/%02d/%s/%02d/%s", spool, top, domain_prio,
		domain, list_prio, spool_function_names[fn]),
	    len);
}

/* spool_state_path - the state file of a message: .<name> beside it */
int
spool_state_path(char *buf, size_t len, const char *message_path)
{
	const char *slash = strrchr(message_path, '/');
	int r;

	if (slash == NULL)
		r = snprintf(buf, len, ".%s", message_path);
	else
		r = snprintf(buf, len, "%.*s/.%s", (int)(slash - message_path),
		    message_path, slash + 1);
	return spool_fit(r, len);
}

/* spool_try_path - .<name>.try beside the message: its first
 * processings begun (spool_state_attempt) */
int
spool_try_path(char *buf, size_t len, const char *message_path)
{
	if (spool_state_path(buf, len, message_path) == -1)
		return -1;
	if (strlcat(buf, ".try", len) >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* spool_message_path - $spool/TOP/xx/domain/yy/function/name, for a
 * message known by its tiers and name (a held post named in a token, an
 * operator's argument); -1 when name is not a queue name */
int
spool_message_path(char *buf, size_t len, const char *spool, const char *top,
    int domain_prio, const char *domain, int list_prio, enum spool_function fn,
    const char *name)
{
	if (name[0] == '.' || name[0] == '\0' || strchr(name, '/') != NULL ||
	    name_check_domain(domain) != NULL || domain_prio < 0 ||
	    domain_prio > SPOOL_PRIO_MAX || list_prio < 0 ||
	    list_prio > SPOOL_PRIO_MAX) {
		errno = EINVAL;
		return -1;
	}
	return spool_fit(
	    snprintf(buf, len, "%s/%s/%02d/%s/%02d/%s/%s", spool, top,
		domain_prio, domain, list_prio, spool_function_names[fn], name),
	    len);
}
