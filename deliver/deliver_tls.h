/*
 * deliver_tls.h - TLS for the smtp transport: a new session with
 * STARTTLS as the destination's policy asks, the TLS contexts and their
 * counts of full and resumed handshakes.
 */
#ifndef MJQ_DELIVER_TLS_H
#define MJQ_DELIVER_TLS_H

#include "delivery_conf.h"
#include "smtp.h"

int deliver_tls_open(const struct delivery_params *, const char *,
    const struct smtp_origin *, struct mx_resolver *, const struct mx_list *,
    size_t, struct smtp_session *, const struct smtp_timeouts *,
    struct smtp_status *);
void deliver_tls_close(void);

#endif
