/*
 * testsmtpd_client.c - mj_testsmtpd's view per client address: how many
 * sessions each address opened, has open and had open at most, and how
 * many it was refused by --client-max-sessions (a cap per address, as
 * receivers throttle per sending IP); --client-stats writes them, one
 * line per address, rewritten at each connect and close.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testsmtpd.h"

struct client {
	char addr[CLIENT_ADDR_MAX];
	long cap; /* -1: none of its own */
	unsigned long sessions, open, max_open, refused;
};

static struct client *clients;
static size_t nclients;
static long cap_all = -1; /* --client-max-sessions N */

/* client_get - the record of an address, made when new */
static struct client *
client_get(const char *addr)
{
	struct client *c;
	size_t i;

	for (i = 0; i < nclients; i++)
		if (strcmp(clients[i].addr, addr) == 0)
			return &clients[i];
	if ((c = reallocarray(clients, nclients + 1, sizeof(*c))) == NULL)
		err(1, "reallocarray");
	clients = c;
	c += nclients++;
	memset(c, 0, sizeof(*c));
	c->cap = -1;
	snprintf(c->addr, sizeof(c->addr), "%s", addr);
	return c;
}

/* client_cap_arg - --client-max-sessions N or ADDR=N */
void
client_cap_arg(const char *arg)
{
	const char *eq = strrchr(arg, '=');
	char addr[CLIENT_ADDR_MAX];

	if (eq == NULL) {
		cap_all = number_arg("--client-max-sessions", arg);
		return;
	}
	if ((size_t)(eq - arg) >= sizeof(addr) || eq == arg)
		errx(1, "--client-max-sessions: bad address in \"%s\"", arg);
	memcpy(addr, arg, eq - arg);
	addr[eq - arg] = '\0';
	client_get(addr)->cap = number_arg("--client-max-sessions", eq + 1);
}

/* client_stats - the --client-stats file */
static void
client_stats(void)
{
	char *buf = NULL;
	size_t len = 0, i;
	FILE *fp;

	if (cf.client_stats == NULL)
		return;
	if ((fp = open_memstream(&buf, &len)) == NULL)
		err(1, "open_memstream");
	for (i = 0; i < nclients; i++)
		fprintf(fp,
		    "%s sessions=%lu open=%lu max_open=%lu refused=%lu\n",
		    clients[i].addr, clients[i].sessions, clients[i].open,
		    clients[i].max_open, clients[i].refused);
	if (fclose(fp) == EOF)
		err(1, "open_memstream");
	write_file_atomic(cf.client_stats, buf);
	free(buf);
}

/* client_open - a session from addr begins: 1 when it is over the
 * address's cap (to be refused with 421: not counted open), else 0 (an
 * open session, counted until client_close) */
int
client_open(const char *addr)
{
	struct client *c = client_get(addr);
	long cap = c->cap != -1 ? c->cap : cap_all;
	int over = cap >= 0 && c->open >= (unsigned long)cap;

	c->sessions++;
	if (over)
		c->refused++;
	else if (++c->open > c->max_open)
		c->max_open = c->open;
	client_stats();
	return over;
}

/* client_close - a session client_open counted open ends */
void
client_close(const char *addr)
{
	struct client *c = client_get(addr);

	if (c->open > 0)
		c->open--;
	client_stats();
}
