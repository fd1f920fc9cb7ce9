/*
 * mta_sts.h - MTA-STS (RFC 8461) without I/O: the policy file (section
 * 3.2), the _mta-sts TXT record (section 3.1) and the matching of an MX
 * host name against the policy's mx: patterns (section 4.1).  Pure
 * functions, so the tests and the fuzzer feed them anything.
 */
#ifndef MJQ_MTA_STS_H
#define MJQ_MTA_STS_H

#include <stddef.h>

#define MTA_STS_ID_MAX 32	  /* id=: 1 to 32 letters and digits */
#define MTA_STS_MX_MAX 16	  /* mx: patterns; more is an error */
#define MTA_STS_NAME_MAX 256	  /* a pattern, NUL included */
#define MTA_STS_MAX_AGE 31557600L /* max_age ceiling (one year) */
#define MTA_STS_POLICY_MAX 65536  /* bytes of a policy file, at most */

enum mta_sts_mode {
	MTA_STS_NONE_FOUND, /* no policy: as without MTA-STS */
	MTA_STS_ENFORCE,
	MTA_STS_TESTING,
	MTA_STS_NONE
};

extern const char *const mta_sts_mode_names[4];

/* A parsed policy file. */
struct mta_sts_policy {
	enum mta_sts_mode mode;
	long max_age;
	size_t nmx;
	char mx[MTA_STS_MX_MAX][MTA_STS_NAME_MAX];
};

int mta_sts_policy_parse(
    const char *, size_t, struct mta_sts_policy *, char *, size_t);
int mta_sts_txt_parse(const char *, char *, size_t);
int mta_sts_mx_match(const char *pattern, const char *host);
int mta_sts_mx_allowed(const struct mta_sts_policy *, const char *host);

#endif
