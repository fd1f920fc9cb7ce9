/*
 * members_welcome.c - the welcome mjq-members sends the addresses it
 * added, and the goodbye it sends those it removed: generated mail through the
 * spool (spool_generate), as the request functions send their answers, so the
 * runners deliver it with their retries, DKIM signature and scheduling; never
 * sent from here. One message for up to MEMBERS_WELCOME_BATCH recipients (a
 * bulk add of a million makes a thousand spool files, not a million), addressed
 * "To: undisclosed-recipients:;" as a Bcc'd message is.  The text is
 * the list's "welcome" (or "goodbye") file when it has one, else a
 * short default.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "lists.h"
#include "log.h"
#include "members_welcome.h"
#include "spool_generate.h"
#include "spool_path.h"

/* welcome_body - the list's welcome (goodbye) file into fp, or the
 * default */
static void
welcome_body(FILE *fp, const struct settings *s, const char *domain,
    const char *list, int bye)
{
	char path[PATH_MAX], buf[MEMBERS_WELCOME_MAX];
	ssize_t n = -1;
	int fd;

	if (list_path(path, sizeof(path), s, domain, list,
		bye ? "goodbye" : "welcome") == 0 &&
	    (fd = open(path, O_RDONLY | O_CLOEXEC)) != -1) {
		n = read(fd, buf, sizeof(buf));
		close(fd);
	}
	if (n > 0) {
		fwrite(buf, 1, (size_t)n, fp);
		if (buf[n - 1] != '\n')
			putc('\n', fp);
		return;
	}
	if (bye) {
		fprintf(fp,
		    "You are no longer subscribed to %s@%s: the list's owner "
		    "removed you.\n",
		    list, domain);
		return;
	}
	fprintf(fp,
	    "You are now subscribed to %s@%s: the list's owner added you.\n"
	    "\n"
	    "To post, write to %s@%s.\n"
	    "To leave, send \"unsubscribe\" to %s-request@%s.\n",
	    list, domain, list, domain, list, domain);
}

/* welcome_text - the message (malloc'd in *text) */
static int
welcome_text(const struct settings *s, const char *domain, const char *list,
    int bye, char **text, size_t *len)
{
	char date[64];
	time_t now = time(NULL);
	FILE *fp;

	if (clock_date(now, date, sizeof(date)) == -1)
		return -1;
	if ((fp = open_memstream(text, len)) == NULL)
		return -1;
	fprintf(fp,
	    "From: <%s-request@%s>\n"
	    "To: undisclosed-recipients:;\n"
	    "Subject: %s %s@%s\n"
	    "Date: %s\n"
	    "Message-Id: <%lld.%08x.mjq@%s>\n"
	    "Auto-Submitted: auto-generated\n"
	    "MIME-Version: 1.0\n"
	    "Content-Type: text/plain; charset=utf-8\n"
	    "Content-Transfer-Encoding: 8bit\n"
	    "\n",
	    list, domain, bye ? "Goodbye from" : "Welcome to", list, domain,
	    date, (long long)now, arc4random(), domain);
	welcome_body(fp, s, domain, list, bye);
	return fclose(fp) == EOF ? -1 : 0;
}

/* welcome_batch - one welcome (goodbye) to the n addresses in v */
static int
welcome_batch(const struct settings *s, const char *domain, const char *list,
    int bye, char **v, size_t n)
{
	struct spool_generate_at at = {
	    SPOOL_PRIO_DEFAULT, domain, SPOOL_PRIO_DEFAULT, list};
	char final[PATH_MAX], *text = NULL;
	size_t len = 0;
	int r = -1;

	if (welcome_text(s, domain, list, bye, &text, &len) == 0 &&
	    spool_generate(s->spool_dir, &at, "reply", "", v, n, text, len,
		final, sizeof(final)) == 0)
		r = 0;
	free(text);
	return r;
}

/* members_welcome - a welcome (bye: a goodbye) to each address of who
 * (one a line, read from its start); how many were sent in *sent.  0, or
 * -1 with errno */
int
members_welcome(const struct settings *s, const char *domain, const char *list,
    int bye, FILE *who, size_t *sent)
{
	char *v[MEMBERS_WELCOME_BATCH], *line = NULL;
	size_t n = 0, cap = 0, i;
	int r = 0;

	*sent = 0;
	if (fseeko(who, 0, SEEK_SET) == -1)
		return -1;
	while (r == 0 && getline(&line, &cap, who) != -1) {
		line[strcspn(line, "\n")] = '\0';
		if ((v[n] = strdup(line)) == NULL)
			r = -1;
		else if (++n == MEMBERS_WELCOME_BATCH) {
			r = welcome_batch(s, domain, list, bye, v, n);
			*sent += r == 0 ? n : 0;
			for (i = 0; i < n; i++)
				free(v[i]);
			n = 0;
		}
	}
	if (r == 0 && ferror(who))
		r = -1;
	if (r == 0 && n > 0 &&
	    (r = welcome_batch(s, domain, list, bye, v, n)) == 0)
		*sent += n;
	for (i = 0; i < n; i++)
		free(v[i]);
	free(line);
	return r;
}
