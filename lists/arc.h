/*
 * arc.h - ARC (RFC 8617) for the posts a list sends: what the post's
 * header says as it arrived (arc_ar.c: the Authentication-Results the
 * receiving MTA added; arc_chain.c: the ARC sets already on it), and the
 * new set sealed on the text as delivered (arc_seal.c), from the text's
 * DKIM preparation and key.  Tag lists are read by arc_tags.c.
 */
#ifndef MJQ_ARC_H
#define MJQ_ARC_H

#include <stddef.h>

#include "dkim_conf.h"
#include "dmarc.h"

#define ARC_INSTANCE_MAX 50 /* RFC 8617 4.2.1: i= is 1 to 50 */
#define ARC_KEYS_MAX 4	    /* distinct keys looked up for one chain */
#define ARC_AAR_MAX 4096    /* bytes of the results copied into the AAR */

enum arc_cv { ARC_CV_NONE, ARC_CV_PASS, ARC_CV_FAIL };

/* What a post's header says about its authentication, judged once per
 * activation from the text as it arrived, and what its new set is to
 * carry. */
struct arc_verdict {
	int seal;	 /* 0: no new set (a chain of 50 sets already) */
	int instance;	 /* i= of the new set */
	enum arc_cv cv;	 /* the chain as received */
	char why[160];	 /* why cv=fail, for the log */
	const char *ids; /* trusted authserv-ids ([arc]), for arc_ar_drop */
	size_t ar_off;	 /* offset of the trusted Authentication-Results */
	int ar;		 /* 1: ar_off is one; results holds its value */
	char results[ARC_AAR_MAX]; /* "authserv-id; results" of the AAR */
};

/* arc_tags.c: RFC 6376 tag lists */
enum arc_kind { ARC_NOT, ARC_AAR, ARC_AMS, ARC_AS };
enum arc_kind arc_kind(const char *p, size_t namelen);
int arc_tag(
    const char *v, size_t n, const char *name, const char **val, size_t *vlen);
int arc_tag_copy(
    const char *v, size_t n, const char *name, char *out, size_t outlen);
int arc_instance(const char *field, size_t len, size_t namelen);
size_t arc_strip_b(const char *field, size_t len, char *out);
const char *arc_cv_name(enum arc_cv cv);

/* arc_ar.c: Authentication-Results */
void arc_ar_judge(
    struct arc_verdict *v, const char *ids, const char *text, size_t len);
int arc_ar_drop(const struct arc_verdict *v, const char *text,
    const char *field, size_t len);
int arc_ar_says_fail(const struct arc_verdict *v);

/* arc_chain.c: the sets already on a post, verified with keys from
 * DNS (txt: the look-up the DMARC policies use) */
void arc_chain_judge(struct arc_verdict *v, const char *text, size_t len,
    dmarc_txt_fn *txt, void *arg);

/* arc_seal.c: the new set for a text prepared for DKIM (dkim_sign.h),
 * with head (fields above the text: its DKIM-Signature) or NULL */
struct dkim_prep;
struct dkim_signer;
int arc_sign_text(struct dkim_signer *ds, const struct dkim_conf *dc,
    const char *domain, const char *text, size_t len,
    const struct arc_verdict *v, char **out, size_t *outlen, char *err,
    size_t errlen);
int arc_seal(const struct dkim_prep *p, const char *head, size_t headlen,
    const struct arc_verdict *v, char **out, size_t *outlen, char *err,
    size_t errlen);

#endif
