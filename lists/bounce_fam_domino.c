/*
 * bounce_fam_domino.c - Lotus Domino and Notes:
 *   Your message
 *     Subject: ...
 *   was not delivered to:
 *     gone@example.com
 *   because:
 *     User gone (gone@example.com) not listed in Domino Directory
 * and Notes' "------- Failure Reasons --------" block (the reason above
 * the address).
 * Samples: lhost-domino-*.eml, lhost-notes-*.eml.
 */
#include <stddef.h>

#include "bounce_family.h"

const struct bounce_family bounce_fam_domino = {
    "Domino",
    {"was not delivered to:", "Failure Reasons", "Domino"},
    {"was not delivered to", "Failure Reasons"},
    {"^[[:space:]]*" FAM_ADDR "[[:space:]]*$"},
    0,
};
