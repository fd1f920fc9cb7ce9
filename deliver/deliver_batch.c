/*
 * deliver_batch.c - results of a batch (deliver_batch.h), set by the
 * transports and by the runner for a batch it fails without sending.
 */
#include <string.h>

#include "deliver_batch.h"

/* deliver_batch_set - one recipient's result */
void
deliver_batch_set(struct deliver_result *r, enum deliver_outcome o, int code,
    const char *dsn, const char *text)
{
	r->outcome = o;
	r->code = code;
	(void)strlcpy(r->dsn, dsn, sizeof(r->dsn));
	(void)strlcpy(r->text, text, sizeof(r->text));
}

/* deliver_batch_all - the same result for every recipient of b */
void
deliver_batch_all(struct deliver_batch *b, enum deliver_outcome o, int code,
    const char *dsn, const char *text)
{
	size_t i;

	for (i = 0; i < b->n; i++)
		deliver_batch_set(&b->res[i], o, code, dsn, text);
}
