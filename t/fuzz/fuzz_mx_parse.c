/*
 * fuzz_mx_parse - libFuzzer target: the parsers of DNS answers.
 *
 * Any bytes as the answer to an MX query, to an A/AAAA query and to a
 * TLSA query, and as a host literal: each parser returns 0 or -1
 * (literal: 1, 0 or -1),
 * never reads past the answer, and what it gives is bounded: names
 * NUL-terminated inside MX_NAME_MAX, addresses of a known family with
 * the matching length, TLSA data within MX_TLSA_DATA_MAX.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "smtp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* fuzz_list - the invariants of an address list */
static void
fuzz_list(const struct mx_list *l, int port)
{
	const struct mx_target *t;
	size_t i;

	if (l->n > l->cap)
		abort();
	for (i = 0; i < l->n; i++) {
		t = &l->v[i];
		if (memchr(t->host, '\0', sizeof(t->host)) == NULL)
			abort();
		if (t->addr.ss_family == AF_INET
			? t->addrlen != sizeof(struct sockaddr_in) ||
			      ((const struct sockaddr_in *)&t->addr)
				      ->sin_port != htons(port)
			: t->addr.ss_family != AF_INET6 ||
			      t->addrlen != sizeof(struct sockaddr_in6))
			abort();
	}
}

/* fuzz_tlsa - the TLSA parser's result and its bounds */
static void
fuzz_tlsa(const uint8_t *data, size_t size)
{
	struct mx_tlsa_list t;
	size_t i;
	int r;

	if ((r = mx_parse_tlsa(data, (int)size, &t)) == -1) {
		if (t.v != NULL || t.n != 0)
			abort();
		return;
	}
	if (r != 0 || (t.n > 0) != (t.v != NULL))
		abort();
	for (i = 0; i < t.n; i++)
		if (t.v[i].len == 0 || t.v[i].len > MX_TLSA_DATA_MAX)
			abort();
	mx_tlsa_free(&t);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mx_list l = {0};
	struct mx_host *hosts;
	char text[MX_NAME_MAX];
	size_t n, i;
	int r;

	if (size > 65535)
		return 0;
	/* libFuzzer's data is an exact-size allocation: ASan sees any read
	 * past the answer. */
	r = mx_parse_mx(data, (int)size, &hosts, &n);
	if (r == 0) {
		for (i = 0; i < n; i++)
			if (memchr(hosts[i].name, '\0', MX_NAME_MAX) == NULL ||
			    hosts[i].pref < 0 || hosts[i].pref > 65535)
				abort();
		free(hosts);
	} else if (r != -1 || hosts != NULL || n != 0)
		abort();
	if ((r = mx_parse_addrs(
		 data, (int)size, "mx.example.org", 10, 25, &l)) != 0 &&
	    r != -1)
		abort();
	fuzz_list(&l, 25);
	/* Appending to a list that already holds entries. */
	if (mx_parse_addrs(data, (int)size, "", 0, 587, &l) == 0)
		if (l.n > l.cap)
			abort();
	mx_list_free(&l);
	fuzz_tlsa(data, size);
	if (size < sizeof(text)) {
		memcpy(text, data, size);
		text[size] = '\0';
		if ((r = mx_parse_literal(text, 25, &l)) < -1 || r > 1 ||
		    (r == 1) != (l.n == 1))
			abort();
		fuzz_list(&l, 25);
		mx_list_free(&l);
	}
	return 0;
}
