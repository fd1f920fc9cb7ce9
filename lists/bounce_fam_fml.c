/*
 * bounce_fam_fml.c - mailing list managers that refuse a post and say so
 * to the poster (fml, and lists written after it): the address refused
 * is the list's, the reason is the poster's membership:
 *   You are not a member of this mailing list <list@example.org>.
 * Samples: lhost-fml-*.eml.
 */
#include <stddef.h>

#include "bounce_family.h"

const struct bounce_family bounce_fam_fml = {
    "fml",
    {"not a member of this mailing list", "fml"},
    {NULL},
    {"not a member of this mailing list <" FAM_ADDR ">"},
    0,
};
