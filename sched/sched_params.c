/*
 * sched_params.c - defaults, key names and value checks of the scheduler.
 *
 * One table maps each configuration key to a field, a value type and a
 * range, so adding a key is one line and every key gets the same checks and
 * the same wording in its error.  The caller names the file, line and key;
 * the error text here only says what the value must be.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched_params.h"

enum sched_params_type {
	P_INT,	    /* int within [min,max] */
	P_LONG,	    /* long within [min,max] */
	P_DURATION, /* double seconds, suffix s/m/h/d, within [min,max] */
	P_BOOL,	    /* yes/no */
	P_FEEDBACK, /* struct sched_feedback */
	P_RATE	    /* N/period into rate_count + rate_period */
};

struct sched_params_key {
	const char *name;
	enum sched_params_type type;
	size_t offset;
	long min;
	long max;
};

#define F(field) offsetof(struct sched_params, field)

static const struct sched_params_key sched_params_keys[] = {
    {"initial_destination_concurrency", P_INT, F(initial_concurrency), 1,
	10000},
    {"destination_concurrency_limit", P_INT, F(concurrency_limit), 0, 10000},
    {"destination_concurrency_positive_feedback", P_FEEDBACK, F(pos_feedback),
	0, 0},
    {"destination_concurrency_negative_feedback", P_FEEDBACK, F(neg_feedback),
	0, 0},
    {"destination_concurrency_failed_cohort_limit", P_INT,
	F(failed_cohort_limit), 0, 10000},
    {"destination_concurrency_feedback_debug", P_BOOL, F(feedback_debug), 0, 1},
    {"destination_rate_limit", P_RATE, F(rate_count), 0, 0},
    {"minimal_backoff_time", P_DURATION, F(minimal_backoff_time), 1,
	86400 * 30},
    {"transport_concurrency_limit", P_INT, F(transport_concurrency_limit), 1,
	100000},
    {"delivery_slot_cost", P_INT, F(slot_cost), 0, 1000},
    {"delivery_slot_loan", P_INT, F(slot_loan), 0, 1000},
    {"delivery_slot_discount", P_INT, F(slot_discount), 0, 100},
    {"minimum_delivery_slots", P_INT, F(min_slots), 0, 1000},
    {"recipient_limit", P_LONG, F(recipient_limit), 1, 100000000},
    {"extra_recipient_limit", P_LONG, F(extra_recipient_limit), 0, 100000000},
    {"message_recipient_minimum", P_LONG, F(message_recipient_minimum), 1,
	100000000},
    {"message_recipient_limit", P_LONG, F(message_recipient_limit), 1,
	100000000},
    {"destination_recipient_limit", P_LONG, F(destination_recipient_limit), 0,
	100000000},
    {"recipient_refill_limit", P_LONG, F(refill_limit), 1, 100000000},
    {"recipient_refill_delay", P_DURATION, F(refill_delay), 0, 86400},
};

#define FEEDBACK_ERR                                                           \
	"must be 1/concurrency, 1/sqrt_concurrency, x or a/b with a value in " \
	"[0,1]"

/* sched_params_defaults - the documented defaults (Postfix's, mostly) */

void
sched_params_defaults(struct sched_params *p)
{
	memset(p, 0, sizeof(*p));
	p->initial_concurrency = 5;
	p->concurrency_limit = 20;
	p->pos_feedback.kind = SCHED_FB_INV;
	p->pos_feedback.value = 1;
	p->neg_feedback.kind = SCHED_FB_INV;
	p->neg_feedback.value = 1;
	p->failed_cohort_limit = 1;
	p->feedback_debug = 0;
	p->rate_count = 0;
	p->rate_period = 0;
	p->minimal_backoff_time = 300;
	p->transport_concurrency_limit = 100;
	p->slot_cost = 5;
	p->slot_loan = 3;
	p->slot_discount = 50;
	p->min_slots = 3;
	p->recipient_limit = 20000;
	p->extra_recipient_limit = 1000;
	p->message_recipient_minimum = 10;
	p->message_recipient_limit = 20000;
	p->destination_recipient_limit = 50;
	p->refill_limit = 100;
	p->refill_delay = 5;
}

/* sched_params_long - parse a whole decimal number, nothing else */

static int
sched_params_long(const char *s, long *out)
{
	char *end;

	errno = 0;
	if (!isdigit((unsigned char)*s))
		return -1;
	*out = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0')
		return -1;
	return 0;
}

/* sched_params_duration - seconds, or a number with suffix s, m, h or d */

int
sched_params_duration(const char *value, double *secs)
{
	char num[32];
	size_t len = strlen(value);
	long n, mult = 1;

	if (len == 0 || len >= sizeof(num))
		return -1;
	memcpy(num, value, len + 1);
	switch (num[len - 1]) {
	case 's':
		mult = 1;
		break;
	case 'm':
		mult = 60;
		break;
	case 'h':
		mult = 3600;
		break;
	case 'd':
		mult = 86400;
		break;
	default:
		len++;
		break;
	}
	num[len - 1] = '\0';
	/* "600/m" reads as one minute: an empty count means one. */
	if (num[0] == '\0' && mult > 1)
		n = 1;
	else if (sched_params_long(num, &n) == -1)
		return -1;
	if (n > 1000000000L / mult)
		return -1;
	*secs = (double)n * mult;
	return 0;
}

/* sched_params_fraction - a number x or a/b, which must lie in [0,1] */

static int
sched_params_fraction(const char *s, double *out)
{
	char *end;
	double a, b = 1;

	errno = 0;
	if (!isdigit((unsigned char)*s) && *s != '.')
		return -1;
	a = strtod(s, &end);
	if (errno != 0 || end == s)
		return -1;
	if (*end == '/') {
		s = end + 1;
		if (!isdigit((unsigned char)*s) && *s != '.')
			return -1;
		b = strtod(s, &end);
		if (errno != 0 || end == s || b <= 0)
			return -1;
	}
	if (*end != '\0' || !isfinite(a) || !isfinite(b))
		return -1;
	*out = a / b;
	return (*out >= 0 && *out <= 1) ? 0 : -1;
}

/* sched_params_parse_feedback - 1/concurrency, 1/sqrt_concurrency or x */

static int
sched_params_parse_feedback(const char *s, struct sched_feedback *fb)
{
	if (strcmp(s, "1/concurrency") == 0) {
		fb->kind = SCHED_FB_INV;
		fb->value = 1;
		return 0;
	}
	if (strcmp(s, "1/sqrt_concurrency") == 0) {
		fb->kind = SCHED_FB_INVSQRT;
		fb->value = 1;
		return 0;
	}
	fb->kind = SCHED_FB_CONST;
	return sched_params_fraction(s, &fb->value);
}

/* sched_params_parse_rate - N/period, or empty for no rate limit */

static int
sched_params_parse_rate(const char *s, struct sched_params *p)
{
	const char *slash;
	char num[32];
	long n;
	double period;

	if (*s == '\0' || strcmp(s, "0") == 0) {
		p->rate_count = 0;
		p->rate_period = 0;
		return 0;
	}
	if ((slash = strchr(s, '/')) == NULL ||
	    (size_t)(slash - s) >= sizeof(num))
		return -1;
	memcpy(num, s, (size_t)(slash - s));
	num[slash - s] = '\0';
	if (sched_params_long(num, &n) == -1 || n < 1 || n > 100000000)
		return -1;
	if (sched_params_duration(slash + 1, &period) == -1 || period <= 0)
		return -1;
	p->rate_count = n;
	p->rate_period = period;
	return 0;
}

/* sched_params_bool - yes/no and the usual spellings of them */

static int
sched_params_bool(const char *s, int *out)
{
	if (strcmp(s, "yes") == 0 || strcmp(s, "true") == 0 ||
	    strcmp(s, "1") == 0) {
		*out = 1;
		return 0;
	}
	if (strcmp(s, "no") == 0 || strcmp(s, "false") == 0 ||
	    strcmp(s, "0") == 0) {
		*out = 0;
		return 0;
	}
	return -1;
}

/* sched_params_set - set one key from its text; -2 when it is not ours */

int
sched_params_set(struct sched_params *p, const char *key, const char *value,
    char *err, size_t errlen)
{
	const struct sched_params_key *k;
	char *field;
	long n;
	double d;
	size_t i;

	for (i = 0; i < sizeof(sched_params_keys) / sizeof(*k); i++)
		if (strcmp(sched_params_keys[i].name, key) == 0)
			break;
	if (i == sizeof(sched_params_keys) / sizeof(*k)) {
		snprintf(err, errlen, "not a scheduler parameter");
		return -2;
	}
	k = &sched_params_keys[i];
	field = (char *)p + k->offset;
	switch (k->type) {
	case P_INT:
	case P_LONG:
		if (sched_params_long(value, &n) == -1 || n < k->min ||
		    n > k->max)
			goto range;
		if (k->type == P_INT)
			*(int *)field = (int)n;
		else
			*(long *)field = n;
		return 0;
	case P_DURATION:
		if (sched_params_duration(value, &d) == -1 || d < k->min ||
		    d > k->max) {
			snprintf(err, errlen,
			    "must be a duration in [%ld,%ld] seconds "
			    "(suffix s, m, h or d)",
			    k->min, k->max);
			return -1;
		}
		*(double *)field = d;
		return 0;
	case P_BOOL:
		if (sched_params_bool(value, (int *)field) == -1) {
			snprintf(err, errlen, "must be yes or no");
			return -1;
		}
		return 0;
	case P_FEEDBACK:
		if (sched_params_parse_feedback(
			value, (struct sched_feedback *)field) == -1) {
			snprintf(err, errlen, FEEDBACK_ERR);
			return -1;
		}
		return 0;
	case P_RATE:
		if (sched_params_parse_rate(value, p) == -1) {
			snprintf(err, errlen,
			    "must be empty or N/period, e.g. 600/1m");
			return -1;
		}
		return 0;
	}
range:
	snprintf(
	    err, errlen, "must be an integer in [%ld,%ld]", k->min, k->max);
	return -1;
}

/* sched_params_feedback - evaluate g(N) or f(N) at concurrency N */

double
sched_params_feedback(const struct sched_feedback *fb, int concurrency)
{
	double n = concurrency > 0 ? concurrency : 1;

	switch (fb->kind) {
	case SCHED_FB_INV:
		return fb->value / n;
	case SCHED_FB_INVSQRT:
		return fb->value / sqrt(n);
	case SCHED_FB_CONST:
		break;
	}
	return fb->value;
}
