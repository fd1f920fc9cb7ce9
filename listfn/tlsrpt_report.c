/*
 * tlsrpt_report.c - a TLS-RPT aggregate report (RFC 8460): the JSON of
 * 4.4 from a policy domain's session records of one UTC day, and the
 * message of 5.3 that carries it: multipart/report; report-type=tlsrpt,
 * a short text part, the JSON as application/tlsrpt+json (not gzip'd:
 * 5.1 allows either), the TLS-Report-Domain and TLS-Report-Submitter
 * fields and the Subject the RFC gives.  The Report-ID is made of the
 * day, the policy domain and the submitter: a report made twice (a
 * crash between its commit and its mark, spool_tlsrpt.c) carries the
 * same one, so a receiver can tell it for a duplicate.
 *
 * The records come sorted: a policy (type and string) is a run of
 * records, and within it equal records (same result, MX host,
 * addresses and reason) are a run, counted as one failure-details
 * entry.  A policy failure outside any session (a policy that could
 * not be had, an MX host an enforce policy refused) has no policy
 * string, or no addresses: what is not known is left out, as the
 * RFC's own example leaves out a receiving-mx-hostname.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "json_out.h"
#include "tlsrpt_report.h"

#define TLSRPT_MX_MAX 32 /* mx-host names listed per policy */

/* tlsrpt_report_init - the report's names and its id */
int
tlsrpt_report_init(struct tlsrpt_report *r, const char *day, const char *domain,
    const char *from, const char *organization, const char *contact)
{
	const char *at = strrchr(from, '@');
	struct tm tm;
	int n;

	memset(r, 0, sizeof(*r));
	memset(&tm, 0, sizeof(tm));
	if (at == NULL || sscanf(day, "%4d-%2d-%2d", &tm.tm_year, &tm.tm_mon,
			      &tm.tm_mday) != 3)
		return -1;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	r->start = timegm(&tm);
	(void)strlcpy(r->day, day, sizeof(r->day));
	r->domain = domain;
	r->from = from;
	r->submitter = at + 1;
	r->organization = *organization ? organization : r->submitter;
	r->contact = *contact ? contact : from;
	n = snprintf(
	    r->id, sizeof(r->id), "%s.%s@%s", day, domain, r->submitter);
	return n < 0 || (size_t)n >= sizeof(r->id) ? -1 : 0;
}

/* tlsrpt_same_policy - a and b are under one policy */
static int
tlsrpt_same_policy(const struct tlsrpt_rec *a, const struct tlsrpt_rec *b)
{
	return strcmp(a->type, b->type) == 0 &&
	       strcmp(a->policy, b->policy) == 0;
}

/* tlsrpt_strings - the '|'-joined list s as a JSON array of strings;
 * only those starting with prefix, less it */
static void
tlsrpt_strings(FILE *fp, const char *s, const char *prefix)
{
	size_t plen = strlen(prefix), len;
	char item[1500];
	int first = 1;

	fputc('[', fp);
	while (*s != '\0') {
		len = strcspn(s, "|");
		if (len < sizeof(item) && strncmp(s, prefix, plen) == 0) {
			memcpy(item, s + plen, len - plen);
			item[len - plen] = '\0';
			fputs(first ? "" : ",", fp);
			json_out_str(fp, item);
			first = 0;
		}
		s += len + (s[len] == '|');
	}
	fputc(']', fp);
}

/* tlsrpt_mx_hosts - the MX host names of the records (each once) */
static void
tlsrpt_mx_hosts(FILE *fp, const struct tlsrpt_rec *v, size_t n)
{
	const char *seen[TLSRPT_MX_MAX];
	size_t i, k, ns = 0;

	fputc('[', fp);
	for (i = 0; i < n && ns < TLSRPT_MX_MAX; i++) {
		for (k = 0; k < ns && strcmp(seen[k], v[i].mx) != 0; k++)
			continue;
		if (k < ns)
			continue;
		fputs(ns ? "," : "", fp);
		json_out_str(fp, v[i].mx);
		seen[ns++] = v[i].mx;
	}
	fputc(']', fp);
}

/* tlsrpt_policy - the "policy" object of the records' policy */
static void
tlsrpt_policy(FILE *fp, const struct tlsrpt_rec *v, size_t n)
{
	int none = strcmp(v->type, "no-policy-found") == 0;

	fputs("{\"policy\":{\"policy-type\":", fp);
	json_out_str(fp, v->type);
	if (!none && v->policy[0] != '\0') {
		fputs(",\"policy-string\":", fp);
		tlsrpt_strings(fp, v->policy, "");
	}
	fputs(",\"policy-domain\":", fp);
	json_out_str(fp, v->domain);
	if (strcmp(v->type, "sts") == 0 && v->policy[0] != '\0') {
		fputs(",\"mx-host\":", fp);
		tlsrpt_strings(fp, v->policy, "mx: ");
	} else if (strcmp(v->type, "sts") != 0) {
		fputs(",\"mx-host\":", fp);
		tlsrpt_mx_hosts(fp, v, n);
	}
	fputc('}', fp);
}

/* tlsrpt_field - ,"name":"value" unless value is empty (not known) */
static void
tlsrpt_field(FILE *fp, const char *name, const char *value)
{
	if (value[0] == '\0')
		return;
	fprintf(fp, ",\"%s\":", name);
	json_out_str(fp, value);
}

/* tlsrpt_detail - one failure-details entry: k records equal to v */
static void
tlsrpt_detail(FILE *fp, const struct tlsrpt_rec *v, size_t k, int first)
{
	fputs(first ? "{\"result-type\":" : ",{\"result-type\":", fp);
	json_out_str(fp, v->result);
	tlsrpt_field(fp, "sending-mta-ip", v->sip);
	tlsrpt_field(fp, "receiving-mx-hostname", v->mx);
	tlsrpt_field(fp, "receiving-ip", v->rip);
	fprintf(fp, ",\"failed-session-count\":%zu", k);
	tlsrpt_field(fp, "failure-reason-code", v->reason);
	fputc('}', fp);
}

/* tlsrpt_run - the number of records from v[0] equal to it */
static size_t
tlsrpt_run(const struct tlsrpt_rec *v, size_t n)
{
	size_t k;

	for (k = 1;
	     k < n && tlsrpt_same_policy(&v[0], &v[k]) &&
	     strcmp(v[0].result, v[k].result) == 0 &&
	     strcmp(v[0].mx, v[k].mx) == 0 && strcmp(v[0].rip, v[k].rip) == 0 &&
	     strcmp(v[0].sip, v[k].sip) == 0 &&
	     strcmp(v[0].reason, v[k].reason) == 0;
	     k++)
		continue;
	return k;
}

/* tlsrpt_one_policy - a policies[] entry of the n records of a policy:
 * the counts, then a failure-details entry per run of equal failures */
static void
tlsrpt_one_policy(FILE *fp, const struct tlsrpt_rec *v, size_t n)
{
	size_t i, k, ok = 0, failed = 0;

	tlsrpt_policy(fp, v, n);
	for (i = 0; i < n; i++)
		if (strcmp(v[i].result, "success") == 0)
			ok++;
	failed = n - ok;
	fprintf(fp,
	    ",\"summary\":{\"total-successful-session-count\":%zu,"
	    "\"total-failure-session-count\":%zu}",
	    ok, failed);
	if (failed > 0) {
		fputs(",\"failure-details\":[", fp);
		for (i = 0, failed = 0; i < n; i += k) {
			k = tlsrpt_run(&v[i], n - i);
			if (strcmp(v[i].result, "success") != 0)
				tlsrpt_detail(fp, &v[i], k, failed++ == 0);
		}
		fputc(']', fp);
	}
	fputc('}', fp);
}

/* tlsrpt_report_json - the whole report of the n records v, all of r's
 * domain */
static void
tlsrpt_report_json(FILE *fp, const struct tlsrpt_report *r,
    const struct tlsrpt_rec *v, size_t n)
{
	size_t i, k;

	fputs("{\"organization-name\":", fp);
	json_out_str(fp, r->organization);
	fprintf(fp,
	    ",\"date-range\":{\"start-datetime\":\"%sT00:00:00Z\","
	    "\"end-datetime\":\"%sT23:59:59Z\"},\"contact-info\":",
	    r->day, r->day);
	json_out_str(fp, r->contact);
	fputs(",\"report-id\":", fp);
	json_out_str(fp, r->id);
	fputs(",\"policies\":[", fp);
	for (i = 0; i < n; i += k) {
		for (k = 1; i + k < n && tlsrpt_same_policy(&v[i], &v[i + k]);
		     k++)
			continue;
		fputs(i ? "," : "", fp);
		tlsrpt_one_policy(fp, &v[i], k);
	}
	fputs("]}\n", fp);
}

/* tlsrpt_report_head - the message's header and its text part */
static void
tlsrpt_report_head(FILE *fp, const struct tlsrpt_report *r, const char *to,
    time_t now, const char *boundary)
{
	char date[64];

	if (clock_date(now, date, sizeof(date)) == -1)
		(void)strlcpy(
		    date, "Thu, 01 Jan 1970 00:00:00 +0000", sizeof(date));
	fprintf(fp,
	    "From: <%s>\n"
	    "To: <%s>\n"
	    "Date: %s\n"
	    "Subject: Report Domain: %s Submitter: %s Report-ID: <%s>\n"
	    "Message-ID: <%s>\n"
	    "TLS-Report-Domain: %s\n"
	    "TLS-Report-Submitter: %s\n"
	    "Auto-Submitted: auto-generated\n"
	    "MIME-Version: 1.0\n"
	    "Content-Type: multipart/report; report-type=\"tlsrpt\";\n"
	    "\tboundary=\"%s\"\n"
	    "\n"
	    "This is a MIME-formatted message.\n"
	    "\n"
	    "--%s\n"
	    "Content-Type: text/plain; charset=us-ascii\n"
	    "\n"
	    "This is an aggregate TLS report (RFC 8460) from %s\n"
	    "for the TLS sessions to %s on %s (UTC).\n"
	    "\n",
	    r->from, to, date, r->domain, r->submitter, r->id, r->id, r->domain,
	    r->submitter, boundary, boundary, r->submitter, r->domain, r->day);
}

/* tlsrpt_report_message - the message: text part, then the JSON */
int
tlsrpt_report_message(const struct tlsrpt_report *r, const char *to,
    const struct tlsrpt_rec *v, size_t n, time_t now, char **text, size_t *len)
{
	char boundary[64];
	FILE *fp;

	snprintf(boundary, sizeof(boundary), "mjq-tlsrpt-%08x%08x",
	    arc4random(), arc4random());
	if ((fp = open_memstream(text, len)) == NULL)
		return -1;
	tlsrpt_report_head(fp, r, to, now, boundary);
	fprintf(fp,
	    "--%s\n"
	    "Content-Type: application/tlsrpt+json\n"
	    "Content-Transfer-Encoding: 7bit\n"
	    "Content-Disposition: attachment;\n"
	    "\tfilename=\"%s!%s!%lld!%lld.json\"\n"
	    "\n",
	    boundary, r->submitter, r->domain, (long long)r->start,
	    (long long)r->start + 86399);
	tlsrpt_report_json(fp, r, v, n);
	fprintf(fp, "\n--%s--\n", boundary);
	if (fclose(fp) == EOF) {
		free(*text);
		*text = NULL;
		return -1;
	}
	return 0;
}
