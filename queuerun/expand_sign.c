/*
 * expand_sign.c - the DKIM signatures of a message's delivered text,
 * made once per text (not per recipient) when the text is prepared, with
 * the keys of the message's domain (the list's), whatever the function:
 * posts, owner forwards, replies and confirmations, bounces.
 *
 * A domain that signs and whose key is missing or unusable gets its mail
 * deferred, with the reason logged: mail is never sent unsigned by
 * accident.  [dkim] sign = no (or sign = no in the domain's DKIM
 * directory) is the only way to send unsigned.
 */
#include <sys/mman.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "dkim_sign.h"
#include "log.h"
#include "queuerun_impl.h"

/* expand_sign - put the DKIM-Signature fields on top of m's text; -1
 * means defer m */
int
expand_sign(struct queuerun *q, struct qr_msg *m)
{
	struct dkim_conf dc;
	char err[PATH_MAX + 200], *sig;
	size_t siglen;
	void *map;
	int old = m->datafd, r;

	if (dkim_conf_load(q->s, m->domain, &dc, err, sizeof(err)) == -1) {
		log_warnx("%s: DKIM of %s: %s: deferred", m->name, m->domain,
		    err);
		return -1;
	}
	if (!dc.sign || m->datasize == 0)
		return 0;
	if (q->dkim == NULL &&
	    (q->dkim = dkim_sign_open(err, sizeof(err))) == NULL) {
		log_warnx("%s: %s: deferred", m->name, err);
		return -1;
	}
	if ((map = mmap(NULL, (size_t)m->datasize, PROT_READ, MAP_SHARED, old,
		 0)) == MAP_FAILED) {
		log_warn("%s: cannot map its text", m->name);
		return -1;
	}
	r = dkim_sign_text(q->dkim, &dc, m->domain, map, (size_t)m->datasize,
	    &sig, &siglen, err, sizeof(err));
	if (r == -1)
		log_warnx("%s: not signed: %s: deferred", m->name, err);
	else if (siglen > 0 && (r = expand_memfd(m, sig, siglen, map,
				    (size_t)m->datasize)) == -1)
		log_warn("%s: cannot prepare the signed text", m->name);
	else if (siglen > 0)
		close(old);
	munmap(map, (size_t)m->datasize);
	free(sig);
	return r;
}
