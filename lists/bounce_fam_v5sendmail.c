/*
 * bounce_fam_v5sendmail.c - sendmail v5 and the old sendmails whose
 * report is the session transcript alone, one line per failed address,
 * its reason on that line:
 *      ----- Transcript of session follows -----
 *   550 example.org (smtp)... 550 Host unknown
 *   554 <gone@example.org>... 550 Host unknown (Authoritative answer ...)
 *   550 <gone@example.co.jp>... User unknown
 *      ----- Unsent message follows -----
 * Samples: lhost-v5sendmail-*.eml.
 */
#include <stddef.h>

#include "bounce_family.h"

const struct bounce_family bounce_fam_v5sendmail = {
    "sendmail v5",
    {"Transcript of session follows", "Unsent message follows",
	"Returned mail"},
    {NULL},
    {"^[0-9]{3}[- ]<?" FAM_ADDR ">?\\.\\.\\. "},
    1,
};
