/*
 * testsmtpd_record.c - what mj_testsmtpd writes down for the tests to
 * read back.
 *
 * --log: one line per accepted recipient after the end of DATA, so a
 * test counts deliveries exactly (with --log-client, and the client
 * address it came from); --trace: one line per command (and,
 * with --trace-eod, per end of data) with the read(2) it came in;
 * --save-dir: each accepted message as D/new/<msg>, written to D/tmp/
 * while it arrives; --stats: the session counts, rewritten at each
 * connect and close, and with --stats-log appended to a file after the
 * time, so that a test sees the sessions open over time.  Only this process
 * writes these files, so their lines never interleave.  The port and pid files
 * are written here too (write_file_atomic).
 */
#include <sys/stat.h>
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "testsmtpd.h"

static FILE *logfp, *tracefp, *statsfp;

/* record_open - open the log and the trace, make the save folders */
void
record_open(void)
{
	char buf[PATH_MAX];

	if ((logfp = fopen(cf.log_file ? cf.log_file : "/dev/null", "a")) ==
	    NULL)
		err(1, "%s", cf.log_file);
	if (cf.trace_file != NULL &&
	    (tracefp = fopen(cf.trace_file, "a")) == NULL)
		err(1, "%s", cf.trace_file);
	if (cf.stats_log != NULL &&
	    (statsfp = fopen(cf.stats_log, "a")) == NULL)
		err(1, "%s", cf.stats_log);
	if (cf.save_dir != NULL) {
		const char *sub[] = {"", "/tmp", "/new"};
		size_t i;

		for (i = 0; i < 3; i++) {
			snprintf(buf, sizeof(buf), "%s%s", cf.save_dir, sub[i]);
			if (mkdir(buf, 0777) == -1 && errno != EEXIST)
				err(1, "mkdir %s", buf);
		}
	}
}

/* record_trace - the --trace line of a command */
void
record_trace(const struct session *s, const char *line)
{
	if (tracefp != NULL) {
		fprintf(tracefp, "%lu %lu %s\n", s->id, s->reads, line);
		fflush(tracefp);
	}
}

/* record_trace_eod - the --trace line of an end of data, with --trace-eod */
void
record_trace_eod(const struct session *s)
{
	if (tracefp != NULL && cf.trace_eod) {
		fprintf(tracefp, "%lu %lu .\n", s->id, s->reads);
		fflush(tracefp);
	}
}

/* record_save_open - DATA begins: with --save-dir, the message's file
 * in D/tmp/ */
void
record_save_open(struct session *s)
{
	if (cf.save_dir == NULL)
		return;
	snprintf(s->tmpname, sizeof(s->tmpname), "%s/tmp/%lu.%lu", cf.save_dir,
	    s->id, s->xact);
	if ((s->save = fopen(s->tmpname, "w")) == NULL)
		err(1, "%s", s->tmpname);
}

/* record_save_discard - the transaction ends unaccepted: remove its
 * file, if any */
void
record_save_discard(struct session *s)
{
	if (s->save != NULL) {
		fclose(s->save);
		s->save = NULL;
		unlink(s->tmpname);
	}
}

/* record_delivery - message msg is accepted: log its recipients and
 * move its file to D/new/<msg> */
void
record_delivery(struct session *s, unsigned long msg)
{
	char path[PATH_MAX];
	size_t i;

	for (i = 0; i < s->nrcpt; i++)
		fprintf(logfp, "%lu %lu from=<%s> to=<%s>%s%s\n", s->id, msg,
		    s->from, s->rcpts[i], cf.log_client ? " client=" : "",
		    cf.log_client ? s->client : "");
	if (fflush(logfp) == EOF)
		err(1, "%s", cf.log_file);
	if (s->save != NULL) {
		snprintf(path, sizeof(path), "%s/new/%lu", cf.save_dir, msg);
		if (fclose(s->save) == EOF || rename(s->tmpname, path))
			err(1, "%s", path);
		s->save = NULL;
	}
}

/* record_stats - the --stats file: connections so far, open now, the
 * most open at once, and how many got the --max-sessions 421; the same
 * line after the time to the --stats-log */
void
record_stats(unsigned long sessions_so_far, unsigned long open_now,
    unsigned long open_max, unsigned long refused)
{
	struct timespec ts;
	char buf[160];

	snprintf(buf, sizeof(buf),
	    "sessions=%lu open=%lu max_open=%lu "
	    "refused=%lu\n",
	    sessions_so_far, open_now, open_max, refused);
	if (cf.stats_file != NULL)
		write_file_atomic(cf.stats_file, buf);
	if (statsfp != NULL && clock_gettime(CLOCK_REALTIME, &ts) == 0) {
		fprintf(statsfp, "%lld.%06ld %s", (long long)ts.tv_sec,
		    ts.tv_nsec / 1000, buf);
		fflush(statsfp);
	}
}

/* write_file_atomic - write text to path via a temporary name and rename */
void
write_file_atomic(const char *path, const char *text)
{
	char tmp[PATH_MAX];
	FILE *fp;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid()) >=
	    (int)sizeof(tmp))
		errx(1, "%s: path too long", path);
	if ((fp = fopen(tmp, "w")) == NULL)
		err(1, "%s", tmp);
	if (fputs(text, fp) == EOF || fclose(fp) == EOF)
		err(1, "%s", tmp);
	if (rename(tmp, path) == -1)
		err(1, "rename %s", path);
}
