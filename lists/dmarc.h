/*
 * dmarc.h - DMARC: what a poster's domain asks receivers to do with mail
 * that fails its DMARC check (dmarc.c), and what a list does about it
 * (dmarc_munge.c).
 */
#ifndef MJQ_DMARC_H
#define MJQ_DMARC_H

#include <stddef.h>
#include <stdio.h>

/* A list's dmarc_mitigation. */
enum dmarc_mitigation {
	DMARC_MIT_NONE,		   /* the post goes out with its From */
	DMARC_MIT_MUNGE_IF_STRICT, /* munge when p=quarantine or p=reject */
	DMARC_MIT_MUNGE,	   /* always: From becomes the list */
	DMARC_MIT_WRAP,		   /* the post as a message/rfc822 part */
};

enum dmarc_policy {
	DMARC_POLICY_NONE,   /* no record, or p=none */
	DMARC_POLICY_STRICT, /* p=quarantine or p=reject */
	DMARC_POLICY_FAILED, /* the look-up failed: treated as strict */
};

/* The TXT look-up: 1 records in out (one per line) with their TTL, 0 a
 * definite none, -1 a failure. */
typedef int dmarc_txt_fn(void *arg, const char *name, char *out, size_t outlen,
    unsigned *ttl, char *why, size_t whylen);

struct dmarc_cache;

struct dmarc_cache *dmarc_open(
    dmarc_txt_fn *fn, void *arg, long long ttl_max, long long negative_ttl);
void dmarc_close(struct dmarc_cache *c);
enum dmarc_policy dmarc_policy(
    struct dmarc_cache *c, const char *domain, double now);
enum dmarc_policy dmarc_record_policy(const char *txt, int org);

/* dmarc_munge.c */
int dmarc_mitigation_parse(
    const char *text, void *var, char *err, size_t errlen);
int dmarc_from(const char *text, size_t len, char *addr, size_t addrlen,
    char *name, size_t namelen);
void dmarc_munge_from(FILE *fp, const char *name, const char *addr,
    const char *list, const char *domain);

#endif
