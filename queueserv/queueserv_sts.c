/*
 * queueserv_sts.c - the MTA-STS policies in force, for "status": the
 * records of the runners' shared cache (spool_sts.h) that hold a policy
 * not yet expired, as text lines or a JSON array.  A spool without the
 * cache (no runner has made it) has none.
 */
#include <stdio.h>
#include <string.h>

#include "queueserv_status.h"
#include "spool_sts.h"

/* queueserv_sts_each - call fn for each policy in force, in table
 * order, under the table's read lock */
static void
queueserv_sts_each(const char *spool, double now,
    void (*fn)(const struct spool_sts_rec *, double, FILE *, int), FILE *fp)
{
	struct spool_sts ss;
	int i, n = 0;

	if (spool_sts_open(&ss, spool, 0) == -1)
		return;
	if (spool_sts_lock(&ss) == 0) {
		for (i = 0; (size_t)i < ss.nrec; i++)
			if (ss.rec[i].used &&
			    ss.rec[i].mode != SPOOL_STS_NO_POLICY &&
			    ss.rec[i].expires > now)
				fn(&ss.rec[i], now, fp, n++);
		spool_sts_unlock(&ss);
	}
	spool_sts_close(&ss);
}

/* queueserv_sts_line - one policy as a text line */
static void
queueserv_sts_line(const struct spool_sts_rec *r, double now, FILE *fp, int n)
{
	uint32_t i;

	(void)n;
	fprintf(fp, "mta-sts: %s %s id=%s expires=%.0fs mx=", r->domain,
	    spool_sts_mode_name(r->mode), r->id, r->expires - now);
	for (i = 0; i < r->nmx && i < SPOOL_STS_MX; i++)
		fprintf(fp, "%s%s", i ? "," : "", r->mx[i]);
	if (r->mode != SPOOL_STS_NONE && r->nmx == 0)
		fprintf(fp, "-");
	fprintf(fp, "\n");
}

/* queueserv_sts_text - the policies in force, a line each */
void
queueserv_sts_text(const char *spool, double now, FILE *fp)
{
	queueserv_sts_each(spool, now, queueserv_sts_line, fp);
}

/* queueserv_sts_object - one policy as a JSON object (the names are
 * host names and ids: nothing to escape) */
static void
queueserv_sts_object(const struct spool_sts_rec *r, double now, FILE *fp, int n)
{
	uint32_t i;

	fprintf(fp,
	    "%s{\"domain\":\"%s\",\"mode\":\"%s\",\"id\":\"%s\","
	    "\"max_age\":%lld,\"expires_in\":%.0f,\"mx\":[",
	    n ? "," : "", r->domain, spool_sts_mode_name(r->mode), r->id,
	    (long long)r->max_age, r->expires - now);
	for (i = 0; i < r->nmx && i < SPOOL_STS_MX; i++)
		fprintf(fp, "%s\"%s\"", i ? "," : "", r->mx[i]);
	fprintf(fp, "]}");
}

/* queueserv_sts_json - ,"mta_sts":[...] */
void
queueserv_sts_json(const char *spool, double now, FILE *fp)
{
	fprintf(fp, ",\"mta_sts\":[");
	queueserv_sts_each(spool, now, queueserv_sts_object, fp);
	fprintf(fp, "]");
}
