/*
 * spool_token.c - confirmation tokens: $spool/state/tokens/<token>.
 *
 * Creation is the commit protocol (tmp/, fsync, link, fsync directory),
 * so a token mailed out always exists.  Use, in two calls, so that the
 * change a token stands for commits before the token is spent (a change
 * that fails for a while leaves the token good for the retry):
 *   spool_token_read
 *   1. the name is checked (SPOOL_TOKEN_LEN hex digits) before it
 *      touches a path: anything else is unknown
 *   2. a missing file with .<token> present was used before
 *   3. past its lifetime (mtime + lifetime <= now): removed, "expired"
 *   4. the text is read; the token stays
 *   (the caller makes the change)
 *   spool_token_use
 *   5. rename(<token>, .<token>): exactly one taker succeeds; ENOENT
 *      means another was first
 * Sweeping removes tokens and used markers older than the lifetime.
 */
#include <sys/stat.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io.h"
#include "spool_commit.h"
#include "spool_path.h"
#include "spool_token.h"

/* spool_token_dir - $spool/state/tokens */
static int
spool_token_dir(char *buf, size_t len, const char *spool)
{
	return spool_path(buf, len, spool, SPOOL_TOKENS);
}

/* spool_token_paths - the token's file and its used marker; -1 when the
 * token is not SPOOL_TOKEN_LEN lower-case hex digits */
static int
spool_token_paths(
    const char *spool, const char *token, char *path, char *used, size_t len)
{
	char dir[PATH_MAX];
	size_t i;

	for (i = 0; token[i] != '\0'; i++)
		if (!((token[i] >= '0' && token[i] <= '9') ||
			(token[i] >= 'a' && token[i] <= 'f')))
			return -1;
	if (i != SPOOL_TOKEN_LEN ||
	    spool_token_dir(dir, sizeof(dir), spool) == -1 ||
	    (size_t)snprintf(path, len, "%s/%s", dir, token) >= len ||
	    (size_t)snprintf(used, len, "%s/.%s", dir, token) >= len)
		return -1;
	return 0;
}

/* spool_token_create - a new token whose file holds text; the token
 * (SPOOL_TOKEN_LEN hex digits) in token */
int
spool_token_create(
    const char *spool, const char *text, size_t len, char *token, size_t toklen)
{
	unsigned char raw[SPOOL_TOKEN_BYTES];
	char dir[PATH_MAX], path[PATH_MAX], used[PATH_MAX];
	struct spool_tmp t;
	size_t i;

	if (toklen <= SPOOL_TOKEN_LEN || len > SPOOL_TOKEN_TEXT_MAX) {
		errno = EINVAL;
		return -1;
	}
	arc4random_buf(raw, sizeof(raw));
	for (i = 0; i < sizeof(raw); i++)
		snprintf(token + 2 * i, 3, "%02x", raw[i]);
	if (spool_token_dir(dir, sizeof(dir), spool) == -1 ||
	    spool_token_paths(spool, token, path, used, sizeof(path)) == -1 ||
	    spool_mkdirs(spool, dir) == -1 || spool_tmp_open(&t, spool) == -1)
		return -1;
	if (io_write_all(t.fd, text, len) == -1 || spool_tmp_sync(&t) == -1 ||
	    spool_tmp_link_as(&t, path) == -1) {
		spool_tmp_discard(&t);
		return -1;
	}
	return 0;
}

/* spool_token_text - state 4: the text of an open token file */
static int
spool_token_text(int fd, char *text, size_t textlen)
{
	ssize_t n;
	size_t got = 0;

	while (got + 1 < textlen &&
	       (n = read(fd, text + got, textlen - 1 - got)) != 0) {
		if (n == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		got += (size_t)n;
	}
	text[got] = '\0';
	return 0;
}

/* spool_token_read - states 1 to 4: a token's text and SPOOL_TOKEN_OK,
 * or why it cannot be used in *status; -1 only for I/O errors.  The token
 * is not spent: spool_token_use does that once its change is made. */
int
spool_token_read(const char *spool, const char *token, long long lifetime,
    time_t now, char *text, size_t textlen, enum spool_token_status *status)
{
	char path[PATH_MAX], used[PATH_MAX];
	struct stat sb;
	int fd, r;

	text[0] = '\0';
	*status = SPOOL_TOKEN_UNKNOWN;
	if (spool_token_paths(spool, token, path, used, sizeof(path)) == -1)
		return 0;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) == -1) {
		if (errno != ENOENT)
			return -1;
		if (lstat(used, &sb) == 0)
			*status = SPOOL_TOKEN_USED;
		return 0;
	}
	if (fstat(fd, &sb) == -1) {
		close(fd);
		return -1;
	}
	if ((long long)sb.st_mtime + lifetime <= (long long)now) {
		close(fd);
		*status = SPOOL_TOKEN_EXPIRED;
		return unlink(path) == -1 && errno != ENOENT ? -1 : 0;
	}
	r = spool_token_text(fd, text, textlen);
	if (close(fd) == -1)
		r = -1;
	if (r == 0)
		*status = SPOOL_TOKEN_OK;
	return r;
}

/* spool_token_use - state 5: spend a token read before; SPOOL_TOKEN_OK,
 * or SPOOL_TOKEN_USED when another taker was first; -1 for I/O errors */
int
spool_token_use(
    const char *spool, const char *token, enum spool_token_status *status)
{
	char path[PATH_MAX], used[PATH_MAX];

	*status = SPOOL_TOKEN_UNKNOWN;
	if (spool_token_paths(spool, token, path, used, sizeof(path)) == -1)
		return 0;
	if (rename(path, used) == -1) {
		if (errno != ENOENT)
			return -1;
		*status = SPOOL_TOKEN_USED;
		return 0;
	}
	*status = SPOOL_TOKEN_OK;
	return 0;
}

/* spool_token_sweep - remove tokens and used markers past the lifetime;
 * the number removed */
int
spool_token_sweep(const char *spool, long long lifetime, time_t now)
{
	char dir[PATH_MAX], path[PATH_MAX];
	struct dirent *de;
	struct stat sb;
	DIR *d;
	int n = 0;

	if (spool_token_dir(dir, sizeof(dir), spool) == -1 ||
	    (d = opendir(dir)) == NULL)
		return errno == ENOENT ? 0 : -1;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir,
			de->d_name) >= sizeof(path) ||
		    lstat(path, &sb) == -1 || !S_ISREG(sb.st_mode))
			continue;
		if ((long long)sb.st_mtime + lifetime <= (long long)now &&
		    unlink(path) == 0)
			n++;
	}
	closedir(d);
	return n;
}

/* spool_token_field - the value of "key value" in a token's text; -1
 * when the key is missing, empty or too long */
int
spool_token_field(const char *text, const char *key, char *out, size_t outlen)
{
	size_t k = strlen(key), n;
	const char *p;

	for (p = text; p != NULL && *p; p = strchr(p, '\n'), p = p ? p + 1 : p)
		if (strncmp(p, key, k) == 0 && p[k] == ' ') {
			n = strcspn(p + k + 1, "\n");
			if (n == 0 || n >= outlen)
				return -1;
			memcpy(out, p + k + 1, n);
			out[n] = '\0';
			return 0;
		}
	return -1;
}

/* spool_token_why - a token status, as the answer to its user says it */
const char *
spool_token_why(enum spool_token_status st)
{
	static const char *const why[] = {
	    "", "is not valid", "has expired", "has already been used"};

	return (size_t)st < sizeof(why) / sizeof(why[0]) ? why[st]
							 : "is not valid";
}

/* spool_token_each - fn(arg, token) for each live token's name (not
 * the spent markers), in no order, until fn returns non-zero; 0, or -1
 * when the directory cannot be read */
int
spool_token_each(
    const char *spool, int (*fn)(void *arg, const char *token), void *arg)
{
	char dir[PATH_MAX];
	struct dirent *de;
	DIR *d;

	if (spool_token_dir(dir, sizeof(dir), spool) == -1)
		return -1;
	if ((d = opendir(dir)) == NULL)
		return errno == ENOENT ? 0 : -1;
	while ((de = readdir(d)) != NULL)
		if (de->d_name[0] != '.' &&
		    strlen(de->d_name) == SPOOL_TOKEN_LEN &&
		    fn(arg, de->d_name))
			break;
	return closedir(d) == -1 ? -1 : 0;
}
