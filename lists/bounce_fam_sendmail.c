/*
 * bounce_fam_sendmail.c - sendmail 8 and v5 (and Active!Hunter, which
 * copies its form):
 *      ----- The following addresses had permanent fatal errors -----
 *   <gone@example.com>
 *       (reason: 550 5.1.1 <gone@example.com>... User unknown)
 *      ----- Transcript of session follows -----
 *   ... while talking to mx.example.com.:
 *   >>> RCPT To:<gone@example.com>
 *   <<< 550 5.1.1 <gone@example.com>... User unknown
 *   550 5.1.1 <gone@example.com>... User unknown
 * (sendmail v5's transcript alone: bounce_fam_v5sendmail.c).
 * Samples: lhost-sendmail-*.eml, lhost-activehunter-01.eml.  Format:
 * sendmail's savemail.c.
 */
#include <stddef.h>

#include "bounce_family.h"

const struct bounce_family bounce_fam_sendmail = {
    "sendmail",
    {"following addresses had permanent fatal errors",
	"Transcript of session follows",
	"Returned mail:", "Unsent message follows"},
    {"following addresses had permanent fatal errors",
	"following addresses had delivery errors"},
    {"^[[:space:]]*(>>>[[:space:]]*)?<" FAM_ADDR ">",
	"^[[:space:]]*(>>>[[:space:]]*)?" FAM_ADDR "([[:space:]]|$)"},
    0,
};
