/*
 * copy_rcpt.h - whose copy is this (copy_rcpt.c): the subscriber a
 * returned copy of a list's post was made for, as the list itself wrote
 * it into that copy.
 */
#ifndef MJQ_COPY_RCPT_H
#define MJQ_COPY_RCPT_H

#include <stddef.h>
#include <time.h>

#include "unsub_token.h"

/* What proved the subscriber. */
enum copy_proof {
	COPY_NOBODY, /* nothing the list wrote names one */
	COPY_TOKEN,  /* the copy's own one-click link, its MAC genuine */
	COPY_VERP,   /* the VERP envelope sender, in Return-Path */
};

enum copy_proof copy_rcpt(const char *domain, const char *list,
    const struct unsub_secret *us, time_t now, const char *hdr, size_t len,
    char *out, size_t outlen);
int copy_rcpt_verp(const char *domain, const char *list, const char *addr,
    char *out, size_t outlen);
const char *copy_proof_name(enum copy_proof p);

#endif
