/*
 * spool_token.h - confirmation tokens: $spool/state/tokens/<token>.
 *
 * A token is 128 bits from arc4random_buf in lower-case hex, so it
 * cannot be guessed; its file holds what confirming it does (plain
 * "key value" lines, written by the caller) and its mtime is its birth.
 * A token is read first (spool_token_read), and spent only once the
 * change it stands for has committed (spool_token_use), so a change that
 * fails for a while leaves it good for the retry.  Spending renames it to
 * .<token> (the rename is the claim: of two runners using the same
 * token, one gets ENOENT), so a second use is told apart from a forgery;
 * old tokens and their dot files are swept.
 */
#ifndef MJQ_SPOOL_TOKEN_H
#define MJQ_SPOOL_TOKEN_H

#include <stddef.h>
#include <time.h>

#define SPOOL_TOKENS "state/tokens"
#define SPOOL_TOKEN_BYTES 16
#define SPOOL_TOKEN_LEN (2 * SPOOL_TOKEN_BYTES)
#define SPOOL_TOKEN_TEXT_MAX 4096

enum spool_token_status {
	SPOOL_TOKEN_OK,
	SPOOL_TOKEN_UNKNOWN, /* never issued (or swept long ago) */
	SPOOL_TOKEN_EXPIRED,
	SPOOL_TOKEN_USED,
};

int spool_token_create(const char *spool, const char *text, size_t len,
    char *token, size_t toklen);
int spool_token_read(const char *spool, const char *token, long long lifetime,
    time_t now, char *text, size_t textlen, enum spool_token_status *status);
int spool_token_use(
    const char *spool, const char *token, enum spool_token_status *status);
int spool_token_field(
    const char *text, const char *key, char *out, size_t outlen);
const char *spool_token_why(enum spool_token_status st);
int spool_token_each(
    const char *spool, int (*fn)(void *arg, const char *token), void *arg);
int spool_token_sweep(const char *spool, long long lifetime, time_t now);

#endif
