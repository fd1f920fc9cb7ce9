/*
 * schedsim_scen.c - read a mj_schedsim scenario from an INI stream.
 *
 * Sections: [scheduler] (any scheduler key, checked by sched_params_set),
 * [transport:NAME] (overrides for one transport), [job NAME] (recipients,
 * queued, destination, destinations, transport), [destination NAME]
 * (server_limit, delivery_time, concurrency_limit, down_from, down_until)
 * and [simulation] (start).  The first bad line stops the parse; the caller
 * reports it with the line number inih returns.  With source addresses
 * (mj_schedsim -w) each destination is one per source afterwards
 * (schedsim_scen_sources).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <ini.h>

#include "schedsim.h"
#include "spool_dest_name.h"

/* schedsim_scen_num - a whole non-negative number within [min,max] */

static int
schedsim_scen_num(struct sim *sim, const char *key, const char *v, long min,
    long max, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(v, &end, 10);
	if (errno != 0 || end == v || *end != '\0' || *out < min ||
	    *out > max) {
		snprintf(sim->err, sizeof(sim->err),
		    "%s: must be an integer in [%ld,%ld]", key, min, max);
		return -1;
	}
	return 0;
}

/* schedsim_scen_time - a time or duration in seconds (suffix s/m/h/d) */

static int
schedsim_scen_time(struct sim *sim, const char *key, const char *v, double *out)
{
	if (sched_params_duration(v, out) == -1) {
		snprintf(sim->err, sizeof(sim->err),
		    "%s: must be seconds, optionally with suffix s, m, h or d",
		    key);
		return -1;
	}
	return 0;
}

/* schedsim_scen_dest_add - the destination record, created on first use */

static struct sim_dest *
schedsim_scen_dest_add(struct sim *sim, const char *name)
{
	struct sim_dest *d;
	size_t i;

	for (i = 0; i < sim->ndests; i++)
		if (strcmp(sim->dests[i].name, name) == 0)
			return &sim->dests[i];
	if ((d = reallocarray(sim->dests, sim->ndests + 1, sizeof(*d))) == NULL)
		return NULL;
	sim->dests = d;
	d = &sim->dests[sim->ndests];
	memset(d, 0, sizeof(*d));
	d->delivery_time = 1;
	if ((d->name = strdup(name)) == NULL)
		return NULL;
	sim->ndests++;
	return d;
}

/* schedsim_scen_job_add - a new job record, in file order */

static struct sim_job *
schedsim_scen_job_add(struct sim *sim, const char *name)
{
	struct sim_job *j;

	if ((j = reallocarray(sim->jobs, sim->njobs + 1, sizeof(*j))) == NULL)
		return NULL;
	sim->jobs = j;
	j = &sim->jobs[sim->njobs];
	memset(j, 0, sizeof(*j));
	if ((j->name = strdup(name)) == NULL)
		return NULL;
	sim->njobs++;
	return j;
}

/* schedsim_scen_job_key - one [job NAME] key */

static int
schedsim_scen_job_key(
    struct sim *sim, struct sim_job *j, const char *key, const char *v)
{
	if (strcmp(key, "recipients") == 0)
		return schedsim_scen_num(sim, key, v, 1, 100000000, &j->rcpts);
	if (strcmp(key, "queued") == 0)
		return schedsim_scen_time(sim, key, v, &j->queued);
	if (strcmp(key, "destinations") == 0)
		return schedsim_scen_num(
		    sim, key, v, 1, 100000000, &j->destinations);
	if (strcmp(key, "destination") == 0 || strcmp(key, "transport") == 0) {
		if (*v == '\0') {
			snprintf(sim->err, sizeof(sim->err),
			    "%s: must not be empty", key);
			return -1;
		}
		if (strcmp(key, "destination") == 0) {
			free(j->dest);
			if ((j->dest = strdup(v)) == NULL ||
			    schedsim_scen_dest_add(sim, v) == NULL)
				goto nomem;
		} else {
			free(j->transport);
			if ((j->transport = strdup(v)) == NULL)
				goto nomem;
		}
		return 0;
	}
	snprintf(sim->err, sizeof(sim->err), "%s: unknown job key", key);
	return -1;
nomem:
	snprintf(sim->err, sizeof(sim->err), "out of memory");
	return -1;
}

/* schedsim_scen_dest_key - one [destination NAME] key */

static int
schedsim_scen_dest_key(
    struct sim *sim, struct sim_dest *d, const char *key, const char *v)
{
	long n;

	if (strcmp(key, "server_limit") == 0) {
		if (schedsim_scen_num(sim, key, v, 0, 1000000, &n) == -1)
			return -1;
		d->server_limit = (int)n;
		return 0;
	}
	if (strcmp(key, "concurrency_limit") == 0) {
		if (schedsim_scen_num(sim, key, v, 0, 10000, &n) == -1)
			return -1;
		d->concurrency_limit = (int)n;
		return 0;
	}
	if (strcmp(key, "delivery_time") == 0)
		return schedsim_scen_time(sim, key, v, &d->delivery_time);
	if (strcmp(key, "down_from") == 0)
		return schedsim_scen_time(sim, key, v, &d->down_from);
	if (strcmp(key, "down_until") == 0)
		return schedsim_scen_time(sim, key, v, &d->down_until);
	snprintf(
	    sim->err, sizeof(sim->err), "%s: unknown destination key", key);
	return -1;
}

/* schedsim_scen_transport - one [transport:NAME] key, kept for later */

static int
schedsim_scen_transport(
    struct sim *sim, const char *name, const char *key, const char *v)
{
	struct sched_params scratch;
	struct sim_kv *kv;
	char why[200];

	/* Check it now, while inih still knows the line number. */
	sched_params_defaults(&scratch);
	if (sched_params_set(&scratch, key, v, why, sizeof(why)) != 0) {
		snprintf(sim->err, sizeof(sim->err), "%s: %s", key, why);
		return -1;
	}
	if ((kv = reallocarray(sim->kv, sim->nkv + 1, sizeof(*kv))) == NULL)
		return -1;
	sim->kv = kv;
	kv = &sim->kv[sim->nkv];
	if ((kv->transport = strdup(name)) == NULL ||
	    (kv->key = strdup(key)) == NULL || (kv->value = strdup(v)) == NULL)
		return -1;
	sim->nkv++;
	return 0;
}

/* schedsim_scen_handler - inih callback: 1 to go on, 0 to stop */

static int
schedsim_scen_handler(
    void *arg, const char *section, const char *key, const char *v)
{
	struct sim *sim = arg;
	struct sim_job *j;
	struct sim_dest *d;
	char why[200];

	if (strcmp(section, "scheduler") == 0) {
		if (sched_params_set(&sim->p, key, v, why, sizeof(why)) != 0) {
			snprintf(
			    sim->err, sizeof(sim->err), "%s: %s", key, why);
			return 0;
		}
		return 1;
	}
	if (strncmp(section, "transport:", 10) == 0 && section[10] != '\0')
		return schedsim_scen_transport(sim, section + 10, key, v) == 0;
	if (strcmp(section, "simulation") == 0) {
		if (strcmp(key, "start") != 0) {
			snprintf(sim->err, sizeof(sim->err),
			    "%s: unknown simulation key", key);
			return 0;
		}
		sim->have_start = 1;
		return schedsim_scen_time(sim, key, v, &sim->start) == 0;
	}
	if (strncmp(section, "job ", 4) == 0 && section[4] != '\0') {
		j = sim->njobs ? &sim->jobs[sim->njobs - 1] : NULL;
		if ((j == NULL || strcmp(j->name, section + 4) != 0) &&
		    (j = schedsim_scen_job_add(sim, section + 4)) == NULL) {
			snprintf(sim->err, sizeof(sim->err), "out of memory");
			return 0;
		}
		return schedsim_scen_job_key(sim, j, key, v) == 0;
	}
	if (strncmp(section, "destination ", 12) == 0 && section[12] != '\0') {
		if ((d = schedsim_scen_dest_add(sim, section + 12)) == NULL) {
			snprintf(sim->err, sizeof(sim->err), "out of memory");
			return 0;
		}
		return schedsim_scen_dest_key(sim, d, key, v) == 0;
	}
	snprintf(sim->err, sizeof(sim->err), "[%s]: unknown section", section);
	return 0;
}

/* schedsim_scen_cmp - qsort/bsearch order of destinations by name */

static int
schedsim_scen_cmp(const void *a, const void *b)
{
	return strcmp((*(struct sim_dest *const *)a)->name,
	    (*(struct sim_dest *const *)b)->name);
}

static int schedsim_scen_index(struct sim *);

/* schedsim_scen_read - parse the scenario; -1 with sim->err and *line */

int
schedsim_scen_read(struct sim *sim, FILE *fp, int *line)
{
	double latest = 0;
	size_t i;
	int rc;

	memset(sim, 0, sizeof(*sim));
	sched_params_defaults(&sim->p);
	*line = 0;
	if ((rc = ini_parse_file(fp, schedsim_scen_handler, sim)) != 0) {
		*line = rc;
		if (sim->err[0] == '\0')
			snprintf(sim->err, sizeof(sim->err), "%s",
			    rc < 0 ? "cannot read the scenario"
				   : "syntax error");
		return -1;
	}
	if (sim->njobs == 0) {
		snprintf(sim->err, sizeof(sim->err), "no [job NAME] section");
		return -1;
	}
	for (i = 0; i < sim->njobs; i++) {
		if (sim->jobs[i].rcpts == 0) {
			snprintf(sim->err, sizeof(sim->err),
			    "[job %s]: recipients: missing", sim->jobs[i].name);
			return -1;
		}
		if (sim->jobs[i].queued > latest)
			latest = sim->jobs[i].queued;
	}
	if (!sim->have_start)
		sim->start = latest + 1;
	return schedsim_scen_index(sim);
}

/* schedsim_scen_index - the destinations sorted by name, for look-ups */

static int
schedsim_scen_index(struct sim *sim)
{
	struct sim_dest **sorted;
	size_t i;

	if ((sorted = reallocarray(
		 sim->sorted, sim->ndests + 1, sizeof(*sim->sorted))) == NULL) {
		snprintf(sim->err, sizeof(sim->err), "out of memory");
		return -1;
	}
	sim->sorted = sorted;
	for (i = 0; i < sim->ndests; i++)
		sim->sorted[i] = &sim->dests[i];
	qsort(
	    sim->sorted, sim->ndests, sizeof(*sim->sorted), schedsim_scen_cmp);
	return 0;
}

/* schedsim_scen_sources - with n source addresses (mj_schedsim -w),
 * each [destination NAME] becomes n destinations "sI->NAME" with its
 * settings, as a receiver throttles each sending address on its own; a
 * "sI->NAME" the scenario names itself keeps its own settings.  -1 with
 * sim->err */

int
schedsim_scen_sources(struct sim *sim, int n)
{
	char name[300], src[16], *own;
	struct sim_dest base, *d;
	size_t i, orig = sim->ndests, keep = 0;
	int k;

	for (i = 0; i < orig; i++) {
		if (strstr(sim->dests[i].name, SPOOL_DEST_NAME_SEP) != NULL)
			continue;
		base = sim->dests[i]; /* the array moves as it grows */
		for (k = 1; k <= n; k++) {
			snprintf(src, sizeof(src), "s%d", k);
			if (spool_dest_name(
				name, sizeof(name), base.name, src) == -1 ||
			    (d = schedsim_scen_dest_add(sim, name)) == NULL) {
				snprintf(sim->err, sizeof(sim->err),
				    "out of memory");
				return -1;
			}
			if (d - sim->dests < (long)orig)
				continue; /* named by the scenario itself */
			own = d->name;
			*d = base;
			d->name = own;
		}
	}
	/* The destinations without a source are gone: nothing goes there. */
	for (i = 0; i < sim->ndests; i++)
		if (strstr(sim->dests[i].name, SPOOL_DEST_NAME_SEP) == NULL)
			free(sim->dests[i].name);
		else
			sim->dests[keep++] = sim->dests[i];
	sim->ndests = keep;
	return schedsim_scen_index(sim);
}

/* schedsim_scen_dest - the named destination's record, or NULL */

struct sim_dest *
schedsim_scen_dest(const struct sim *sim, const char *name)
{
	struct sim_dest key, *kp = &key, **found;

	key.name = (char *)name;
	found = bsearch(&kp, sim->sorted, sim->ndests, sizeof(*sim->sorted),
	    schedsim_scen_cmp);
	return found ? *found : NULL;
}

/* schedsim_scen_free - release the scenario */

void
schedsim_scen_free(struct sim *sim)
{
	size_t i;

	for (i = 0; i < sim->njobs; i++) {
		free(sim->jobs[i].name);
		free(sim->jobs[i].dest);
		free(sim->jobs[i].transport);
	}
	for (i = 0; i < sim->ndests; i++)
		free(sim->dests[i].name);
	for (i = 0; i < sim->nkv; i++) {
		free(sim->kv[i].transport);
		free(sim->kv[i].key);
		free(sim->kv[i].value);
	}
	free(sim->jobs);
	free(sim->dests);
	free(sim->sorted);
	free(sim->kv);
}
