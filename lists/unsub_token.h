/*
 * unsub_token.h - one-click unsubscribe tokens (RFC 8058): an HMAC-SHA-256
 * of the list, the address and the time the link was made, under a
 * per-site secret, so no state is kept per recipient and a token can be
 * neither forged nor moved to another address or list.
 */
#ifndef MJQ_UNSUB_TOKEN_H
#define MJQ_UNSUB_TOKEN_H

#include <stddef.h>
#include <time.h>

#define UNSUB_KEY_LEN 32 /* bytes of one secret */
#define UNSUB_KEYS_MAX 4 /* the current secret and older ones */
#define UNSUB_MAC_LEN 16 /* bytes of the MAC a link carries */
#define UNSUB_MAC_HEX (2 * UNSUB_MAC_LEN)
#define UNSUB_SECRET_MAX 4096 /* bytes of the secret file, at most */
/* A request queued just before its link expired is still honoured. */
#define UNSUB_QUEUE_GRACE (7 * 86400LL)

struct unsub_maker; /* tokens made with the newest key (unsub_token.c) */

struct unsub_secret {
	unsigned char key[UNSUB_KEYS_MAX][UNSUB_KEY_LEN];
	size_t n; /* key[0] makes new tokens; every key verifies */
};

enum unsub_verdict {
	UNSUB_OK,      /* genuine and within its lifetime */
	UNSUB_FORGED,  /* no secret made it: forged, truncated or moved */
	UNSUB_EXPIRED, /* genuine but older than the lifetime */
};

int unsub_secret_load(
    struct unsub_secret *us, const char *path, char *err, size_t errlen);
struct unsub_maker *unsub_maker_new(const struct unsub_secret *us);
void unsub_maker_free(struct unsub_maker *mk);
int unsub_token_make(const struct unsub_maker *mk, const char *list,
    const char *domain, const char *addr, long long issued,
    char out[UNSUB_MAC_HEX + 1]);
int unsub_link_make(const struct unsub_maker *mk, const char *base,
    const char *list, const char *domain, const char *addr, long long issued,
    char *out, size_t outlen);
enum unsub_verdict unsub_token_check(const struct unsub_secret *us,
    const char *list, const char *domain, const char *addr, long long issued,
    const char *mac, time_t now, long long lifetime);

#endif
