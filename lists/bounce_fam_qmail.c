/*
 * bounce_fam_qmail.c - qmail and its descendants (netqmail, notqmail,
 * s/qmail, indimail, vpopmail, Courier's qmail-like text):
 *   Hi. This is the qmail-send program at mx.example.com.
 *   I'm afraid I wasn't able to deliver your message to the following
 *   addresses. ...
 *   <gone@example.com>:
 *   192.0.2.7 does not like recipient.
 *   Remote host said: 550 5.1.1 <gone@example.com>... User unknown
 *   --- Below this line is a copy of the message.
 * Samples: lhost-qmail-*.eml (t/data/bounce-corpus).  Format: qmail's
 * qmail-send.c (bounce text) and djb's QSBMF (cr.yp.to/proto/qsbmf.txt).
 */
#include <stddef.h>

#include "bounce_family.h"

const struct bounce_family bounce_fam_qmail = {
    "qmail",
    {"qmail-send", "I'm afraid I wasn't able to deliver", "qmail",
	"Courier mail server"},
    {"wasn't able to deliver", "following recipients cannot be delivered"},
    {"^<" FAM_ADDR ">:"},
    0,
};
