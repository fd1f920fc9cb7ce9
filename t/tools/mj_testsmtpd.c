/*
 * mj_testsmtpd - the scriptable SMTP server of the tests.
 *
 * One process, one poll() loop, one state machine per session: it holds
 * hundreds of concurrent sessions, and because only this process writes the
 * log, its lines never interleave.  Without options it is a well-behaved
 * ESMTP sink (PIPELINING, SIZE, 8BITMIME) that logs one line per accepted
 * recipient after the end of DATA, so a test counts deliveries exactly.
 * Every misbehaviour a test needs (scripted replies, delays, dropped
 * connections, silence, garbage, 2 MB lines, one-byte writes, session
 * limits) is chosen on the command line, for every time a stage comes
 * or for its Nth time in a session ("eod#2"); see usage().  With --tls-cert
 * and --tls-key it offers STARTTLS (OpenSSL, server side) and logs each
 * handshake (--tls-log), so the tests see the protocol, the SNI name and
 * whether the session was resumed.
 */
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <ctype.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#define IN_MAX 8192	     /* command line limit, and read chunk */
#define LONG_REPLY (2 << 20) /* the "long" fault: a 2 MB reply line */
#define GARBAGE "xyzzy \001\002 this is not SMTP \377\r\n"

/* The stages a fault, a delay or a scripted reply can be attached to. */
enum stage {
	ST_GREETING,
	ST_EHLO,
	ST_HELO,
	ST_MAIL,
	ST_RCPT,
	ST_DATA,
	ST_BODY,
	ST_EOD,
	ST_RSET,
	ST_QUIT,
	ST_STARTTLS,
	ST_COUNT
};
static const char *stage_names[ST_COUNT] = {"greeting", "ehlo", "helo", "mail",
    "rcpt", "data", "body", "eod", "rset", "quit", "starttls"};

enum fault { F_NONE, F_DROP, F_SILENT, F_GARBAGE, F_LONG };

struct stage_conf {
	const char *reply; /* replaces the normal reply, or NULL */
	enum fault fault;
	int delay_ms; /* before the reply */
};

/* A stage's conf for its Nth time in a session only (--reply eod#2=...). */
struct nth_rule {
	enum stage stage;
	unsigned long nth;
	struct stage_conf conf;
};

struct rcpt_rule {
	const char *pattern; /* fnmatch(3), case-insensitive */
	const char *reply;
};

static struct {
	int port;
	const char *port_file, *pid_file, *log_file, *save_dir, *trace_file;
	const char *stats_file;
	const char *tls_cert, *tls_key, *tls_log;
	int tls_stall;
	struct stage_conf stage[ST_COUNT];
	struct nth_rule *nth;
	size_t nnth;
	struct rcpt_rule *rules;
	size_t nrules;
	long max_sessions, fail_first, rcpt_limit, size_limit;
	int no_pipelining, no_8bitmime, split, trace_eod;
} cf = {.size_limit = 10240000};

/* DATA is parsed byte by byte: these states find CRLF.CRLF and unstuff. */
enum dstate { D_BOL, D_MID, D_CR, D_DOT, D_DOTCR };

enum mode { M_CMD, M_DATA, M_SILENT, M_CLOSED };

struct session {
	int fd;
	unsigned long id;
	enum mode mode;
	int eof;
	char in[IN_MAX];
	size_t inlen;
	int skip_line; /* discarding the rest of an over-long line */
	char *out;
	size_t outlen, outoff, outcap;
	int close_after; /* close once out is flushed */
	long long wake;	 /* pending reply is due at this time (ms) */
	char *pending;	 /* a delayed reply, or NULL */
	enum stage pending_stage;
	unsigned long reads;		       /* read() count, for the trace */
	unsigned long seen[ST_COUNT];	       /* how often each stage came */
	const struct stage_conf *at[ST_COUNT]; /* its conf this time */
	char *from;
	char **rcpts;
	size_t nrcpt;
	int have_mail;
	enum dstate dstate;
	long long dsize;
	FILE *save;
	char tmpname[PATH_MAX];
	unsigned long xact;
	SSL *ssl;	  /* TLS is on */
	int tls_next;	  /* STARTTLS answered: TLS once out is flushed */
	int tls_logged;	  /* the handshake is logged */
	int ssl_want_out; /* SSL needs the socket writable */
};

static struct session **sessions;
static size_t nsessions;
static unsigned long next_session_id = 1, next_msg_id = 1;
static unsigned long open_now, open_max, refused; /* for --stats */
static FILE *logfp, *tracefp, *tlslogfp;
static SSL_CTX *tls_ctx;
static int sigpipe_fds[2];

static void session_close(struct session *);
static void session_input(struct session *);
static void usage(int) __attribute__((noreturn));

/* now_ms - monotonic clock in milliseconds */
static long long
now_ms(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) == -1)
		err(1, "clock_gettime");
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* write_file_atomic - write text to path via a temporary name and rename */
static void
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

/* stage_lookup - stage number of a name, or exit */
static enum stage
stage_lookup(const char *name, size_t len)
{
	int i;

	for (i = 0; i < ST_COUNT; i++)
		if (strlen(stage_names[i]) == len &&
		    strncmp(stage_names[i], name, len) == 0)
			return i;
	errx(1, "unknown stage \"%.*s\"", (int)len, name);
}

static long number_arg(const char *, const char *);

/* stage_conf_arg - the conf an option sets: "STAGE" is the stage's at
 * every time, "STAGE#N" its Nth time in a session only */
static struct stage_conf *
stage_conf_arg(const char *name, size_t len)
{
	const char *hash = memchr(name, '#', len);
	unsigned long nth;
	enum stage st;
	char num[24];
	size_t i;

	if (hash == NULL)
		return &cf.stage[stage_lookup(name, len)];
	st = stage_lookup(name, hash - name);
	if ((size_t)snprintf(num, sizeof(num), "%.*s",
		(int)(len - (hash + 1 - name)), hash + 1) >= sizeof(num) ||
	    (nth = number_arg("STAGE#N", num)) == 0)
		errx(1, "bad stage \"%.*s\"", (int)len, name);
	for (i = 0; i < cf.nnth; i++)
		if (cf.nth[i].stage == st && cf.nth[i].nth == nth)
			return &cf.nth[i].conf;
	if ((cf.nth = reallocarray(cf.nth, cf.nnth + 1, sizeof(*cf.nth))) ==
	    NULL)
		err(1, "reallocarray");
	cf.nth[cf.nnth] = (struct nth_rule){.stage = st, .nth = nth};
	return &cf.nth[cf.nnth++].conf;
}

/* number_arg - a non-negative integer option value, or exit */
static long
number_arg(const char *opt, const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < 0)
		errx(1, "%s: bad number \"%s\"", opt, s);
	return v;
}

/* split_arg - split "left=right" at the first '=', or exit */
static const char *
split_arg(const char *opt, const char *arg, size_t *leftlen)
{
	const char *eq;

	if ((eq = strchr(arg, '=')) == NULL || eq == arg)
		errx(1, "%s: expected NAME=VALUE, got \"%s\"", opt, arg);
	*leftlen = eq - arg;
	return eq + 1;
}

/* reply_arg - check a scripted reply "DDD text" */
static const char *
reply_arg(const char *opt, const char *r)
{
	if (strlen(r) < 3 || !isdigit((unsigned char)r[0]) ||
	    !isdigit((unsigned char)r[1]) || !isdigit((unsigned char)r[2]) ||
	    (r[3] != '\0' && r[3] != ' '))
		errx(1, "%s: reply must be \"DDD text\", got \"%s\"", opt, r);
	return r;
}

/* usage - print the options and exit */
static void
usage(int status)
{
	fprintf(status ? stderr : stdout,
	    "usage: mj_testsmtpd [options]\n"
	    "  -p, --port N            listen on 127.0.0.1:N (0: any free)\n"
	    "  --port-file F           write the port to F (atomically)\n"
	    "  --pid-file F            write the pid to F\n"
	    "  --log F                 one line per accepted recipient:\n"
	    "                          <session> <msg> from=<s> to=<r>\n"
	    "  --trace F               one line per command: <session> <read#> "
	    "<line>\n"
	    "  --trace-eod             and one \"<session> <read#> .\" per end "
	    "of data\n"
	    "  --save-dir D            save each message as D/new/<msg>\n"
	    "  --size N                advertised SIZE limit (0: none)\n"
	    "  --no-pipelining, --no-8bitmime   do not advertise them\n"
	    "  --rcpt PATTERN=REPLY    reply for recipients matching "
	    "PATTERN\n"
	    "  --rcpt-limit N          452 after N recipients per "
	    "transaction\n"
	    "  --max-sessions N        421 when more than N are concurrent\n"
	    "  --fail-first-sessions N the first N sessions get 421\n"
	    "  --reply STAGE=REPLY     replace the reply at STAGE\n"
	    "  --delay STAGE=MS        wait MS before replying at STAGE\n"
	    "  --drop STAGE            close the connection at STAGE\n"
	    "  --silent STAGE          never answer from STAGE on\n"
	    "  --garbage STAGE         reply with garbage at STAGE\n"
	    "  --long-reply STAGE      reply with a 2 MB line at STAGE\n"
	    "  --split                 write replies one byte per write\n"
	    "  --stats F               rewritten at each connect and close:\n"
	    "                          sessions=N open=N max_open=N refused=N\n"
	    "  --tls-cert F, --tls-key F  offer STARTTLS with this PEM chain "
	    "and key\n"
	    "  --tls-log F             one line per TLS handshake:\n"
	    "                          <session> <protocol> resumed=0|1 "
	    "sni=<name>\n"
	    "  --tls-stall             answer STARTTLS, then never handshake\n"
	    "STAGE: greeting ehlo helo mail rcpt data body (mid-DATA) eod "
	    "rset quit starttls;\n"
	    "  STAGE#N: only its Nth time in a session (eod#2: the second "
	    "end of data)\n");
	exit(status);
}

/* parse_args - fill cf from the command line */
static void
parse_args(int argc, char **argv)
{
	enum {
		O_PORTFILE = 256,
		O_PIDFILE,
		O_LOG,
		O_TRACE,
		O_TRACEEOD,
		O_SAVE,
		O_SIZE,
		O_NOPIPE,
		O_NO8BIT,
		O_RCPT,
		O_RLIMIT,
		O_MAXSESS,
		O_FAILFIRST,
		O_REPLY,
		O_DELAY,
		O_DROP,
		O_SILENT,
		O_GARBAGE,
		O_LONG,
		O_SPLIT,
		O_STATS,
		O_TLSCERT,
		O_TLSKEY,
		O_TLSLOG,
		O_TLSSTALL
	};
	static const struct option opts[] = {{"port", 1, 0, 'p'},
	    {"port-file", 1, 0, O_PORTFILE}, {"pid-file", 1, 0, O_PIDFILE},
	    {"log", 1, 0, O_LOG}, {"trace", 1, 0, O_TRACE},
	    {"trace-eod", 0, 0, O_TRACEEOD}, {"save-dir", 1, 0, O_SAVE},
	    {"size", 1, 0, O_SIZE}, {"no-pipelining", 0, 0, O_NOPIPE},
	    {"no-8bitmime", 0, 0, O_NO8BIT}, {"rcpt", 1, 0, O_RCPT},
	    {"rcpt-limit", 1, 0, O_RLIMIT}, {"max-sessions", 1, 0, O_MAXSESS},
	    {"fail-first-sessions", 1, 0, O_FAILFIRST},
	    {"reply", 1, 0, O_REPLY}, {"delay", 1, 0, O_DELAY},
	    {"drop", 1, 0, O_DROP}, {"silent", 1, 0, O_SILENT},
	    {"garbage", 1, 0, O_GARBAGE}, {"long-reply", 1, 0, O_LONG},
	    {"split", 0, 0, O_SPLIT}, {"stats", 1, 0, O_STATS},
	    {"tls-cert", 1, 0, O_TLSCERT}, {"tls-key", 1, 0, O_TLSKEY},
	    {"tls-log", 1, 0, O_TLSLOG}, {"tls-stall", 0, 0, O_TLSSTALL},
	    {"help", 0, 0, 'h'}, {0, 0, 0, 0}};
	const char *val;
	size_t len;
	int c;

	while ((c = getopt_long(argc, argv, "hp:", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if ((cf.port = number_arg("-p", optarg)) > 65535)
				errx(1, "-p: port out of range");
			break;
		case O_PORTFILE:
			cf.port_file = optarg;
			break;
		case O_PIDFILE:
			cf.pid_file = optarg;
			break;
		case O_LOG:
			cf.log_file = optarg;
			break;
		case O_TRACE:
			cf.trace_file = optarg;
			break;
		case O_TRACEEOD:
			cf.trace_eod = 1;
			break;
		case O_SAVE:
			cf.save_dir = optarg;
			break;
		case O_SIZE:
			cf.size_limit = number_arg("--size", optarg);
			break;
		case O_NOPIPE:
			cf.no_pipelining = 1;
			break;
		case O_NO8BIT:
			cf.no_8bitmime = 1;
			break;
		case O_RLIMIT:
			cf.rcpt_limit = number_arg("--rcpt-limit", optarg);
			break;
		case O_MAXSESS:
			cf.max_sessions = number_arg("--max-sessions", optarg);
			break;
		case O_FAILFIRST:
			cf.fail_first =
			    number_arg("--fail-first-sessions", optarg);
			break;
		case O_RCPT:
			/* The pattern may hold '=', the reply never does
			 * before its code: split at the last "=DDD". */
			if ((val = strrchr(optarg, '=')) == NULL ||
			    val == optarg)
				errx(1, "--rcpt: expected PATTERN=REPLY");
			if ((cf.rules = reallocarray(cf.rules, cf.nrules + 1,
				 sizeof(*cf.rules))) == NULL)
				err(1, "reallocarray");
			cf.rules[cf.nrules].pattern =
			    strndup(optarg, val - optarg);
			cf.rules[cf.nrules++].reply =
			    reply_arg("--rcpt", val + 1);
			break;
		case O_REPLY:
			val = split_arg("--reply", optarg, &len);
			stage_conf_arg(optarg, len)->reply =
			    reply_arg("--reply", val);
			break;
		case O_DELAY:
			val = split_arg("--delay", optarg, &len);
			stage_conf_arg(optarg, len)->delay_ms =
			    number_arg("--delay", val);
			break;
		case O_DROP:
		case O_SILENT:
		case O_GARBAGE:
		case O_LONG:
			stage_conf_arg(optarg, strlen(optarg))->fault =
			    c == O_DROP	     ? F_DROP
			    : c == O_SILENT  ? F_SILENT
			    : c == O_GARBAGE ? F_GARBAGE
					     : F_LONG;
			break;
		case O_STATS:
			cf.stats_file = optarg;
			break;
		case O_SPLIT:
			cf.split = 1;
			break;
		case O_TLSCERT:
			cf.tls_cert = optarg;
			break;
		case O_TLSKEY:
			cf.tls_key = optarg;
			break;
		case O_TLSLOG:
			cf.tls_log = optarg;
			break;
		case O_TLSSTALL:
			cf.tls_stall = 1;
			break;
		case 'h':
			usage(0);
		default:
			usage(1);
		}
	}
	if (optind != argc)
		usage(1);
	if ((cf.tls_cert == NULL) != (cf.tls_key == NULL))
		errx(1, "--tls-cert and --tls-key go together");
}

/* out_append - queue bytes for the client */
static void
out_append(struct session *s, const char *buf, size_t len)
{
	size_t need = s->outlen + len;

	if (need > s->outcap) {
		s->outcap = need < 4096 ? 4096 : need * 2;
		if ((s->out = realloc(s->out, s->outcap)) == NULL)
			err(1, "realloc");
	}
	memcpy(s->out + s->outlen, buf, len);
	s->outlen += len;
}

/* stage_enter - the stage comes once more in this session: its conf
 * this time is its Nth-time rule's, if any, else its every-time one */
static void
stage_enter(struct session *s, enum stage st)
{
	size_t i;

	s->at[st] = &cf.stage[st];
	s->seen[st]++;
	for (i = 0; i < cf.nnth; i++)
		if (cf.nth[i].stage == st && cf.nth[i].nth == s->seen[st])
			s->at[st] = &cf.nth[i].conf;
}

/* conf_at - a stage's conf as it stands in this session */
static const struct stage_conf *
conf_at(const struct session *s, enum stage st)
{
	return s->at[st] != NULL ? s->at[st] : &cf.stage[st];
}

/* reply_now - send the reply of a stage, applying its fault */
static void
reply_now(struct session *s, enum stage st, const char *text)
{
	char *big;

	switch (conf_at(s, st)->fault) {
	case F_DROP:
		session_close(s);
		return;
	case F_SILENT:
		s->mode = M_SILENT;
		return;
	case F_GARBAGE:
		out_append(s, GARBAGE, sizeof(GARBAGE) - 1);
		return;
	case F_LONG:
		if ((big = malloc(LONG_REPLY + 6)) == NULL)
			err(1, "malloc");
		memcpy(big, "250 ", 4);
		memset(big + 4, 'x', LONG_REPLY);
		memcpy(big + 4 + LONG_REPLY, "\r\n", 2);
		out_append(s, big, LONG_REPLY + 6);
		free(big);
		return;
	case F_NONE:
		break;
	}
	out_append(s, text, strlen(text));
	out_append(s, "\r\n", 2);
	/* A server that says 421 hangs up (RFC 5321 3.8). */
	if (strncmp(text, "421", 3) == 0)
		s->close_after = 1;
}

/* reply - reply at a stage: scripted text, delay, then the fault */
static void
reply(struct session *s, enum stage st, const char *text)
{
	if (conf_at(s, st)->reply != NULL && st != ST_RCPT)
		text = conf_at(s, st)->reply;
	if (conf_at(s, st)->delay_ms > 0) {
		if ((s->pending = strdup(text)) == NULL)
			err(1, "strdup");
		s->pending_stage = st;
		s->wake = now_ms() + conf_at(s, st)->delay_ms;
		return;
	}
	reply_now(s, st, text);
}

/* xact_reset - forget the envelope of the current transaction */
static void
xact_reset(struct session *s)
{
	size_t i;

	for (i = 0; i < s->nrcpt; i++)
		free(s->rcpts[i]);
	free(s->rcpts);
	free(s->from);
	s->rcpts = NULL;
	s->from = NULL;
	s->nrcpt = 0;
	s->have_mail = 0;
	if (s->save != NULL) {
		fclose(s->save);
		s->save = NULL;
		unlink(s->tmpname);
	}
}

/* stats_write - the --stats file: connections so far, open now, the
 * most open at once, and how many got the --max-sessions 421 */
static void
stats_write(void)
{
	char buf[160];

	if (cf.stats_file == NULL)
		return;
	snprintf(buf, sizeof(buf),
	    "sessions=%lu open=%lu max_open=%lu "
	    "refused=%lu\n",
	    next_session_id - 1, open_now, open_max, refused);
	write_file_atomic(cf.stats_file, buf);
}

/* session_close - drop the connection and free the transaction */
static void
session_close(struct session *s)
{
	if (s->mode == M_CLOSED)
		return;
	xact_reset(s);
	if (s->ssl != NULL) {
		(void)SSL_shutdown(s->ssl);
		SSL_free(s->ssl);
		s->ssl = NULL;
	}
	close(s->fd);
	s->mode = M_CLOSED;
	open_now--;
	stats_write();
}

/* address_of - the path inside <...> after "MAIL FROM:" or "RCPT TO:" */
static char *
address_of(const char *arg)
{
	const char *lt, *gt;

	while (*arg == ' ')
		arg++;
	if ((lt = strchr(arg, '<')) == NULL || (gt = strchr(lt, '>')) == NULL)
		return strdup(arg);
	return strndup(lt + 1, gt - lt - 1);
}

/* size_param - the SIZE= value of a MAIL command, or -1 */
static long long
size_param(const char *line)
{
	const char *p;

	for (p = line; (p = strchr(p, ' ')) != NULL; p++)
		if (strncasecmp(p + 1, "SIZE=", 5) == 0)
			return atoll(p + 6);
	return -1;
}

/* cmd_ehlo - answer EHLO with the advertised extensions */
static void
cmd_ehlo(struct session *s)
{
	char buf[512];

	stage_enter(s, ST_EHLO);
	snprintf(buf, sizeof(buf),
	    "250-mj_testsmtpd\r\n%s250-SIZE %ld\r\n%s%s"
	    "250 ENHANCEDSTATUSCODES",
	    cf.no_pipelining ? "" : "250-PIPELINING\r\n", cf.size_limit,
	    cf.no_8bitmime ? "" : "250-8BITMIME\r\n",
	    tls_ctx != NULL && s->ssl == NULL ? "250-STARTTLS\r\n" : "");
	xact_reset(s);
	reply(s, ST_EHLO, buf);
}

/* cmd_mail - MAIL FROM: start a transaction */
static void
cmd_mail(struct session *s, const char *arg)
{
	long long size = size_param(arg);

	stage_enter(s, ST_MAIL);
	if (s->have_mail) {
		reply(s, ST_MAIL, "503 5.5.1 nested MAIL command");
		return;
	}
	if (cf.size_limit > 0 && size > cf.size_limit) {
		reply(s, ST_MAIL, "552 5.3.4 message size exceeds limit");
		return;
	}
	if ((s->from = address_of(arg)) == NULL)
		err(1, "strdup");
	reply(s, ST_MAIL, "250 2.1.0 Ok");
	if (conf_at(s, ST_MAIL)->reply != NULL &&
	    conf_at(s, ST_MAIL)->reply[0] != '2')
		xact_reset(s);
	else
		s->have_mail = 1;
}

/* cmd_rcpt - RCPT TO: rules, limit, then accept */
static void
cmd_rcpt(struct session *s, const char *arg)
{
	const char *text = "250 2.1.5 Ok";
	char *addr;
	size_t i;

	stage_enter(s, ST_RCPT);
	if (!s->have_mail) {
		reply(s, ST_RCPT, "503 5.5.1 need MAIL command");
		return;
	}
	if ((addr = address_of(arg)) == NULL)
		err(1, "strdup");
	if (cf.rcpt_limit > 0 && s->nrcpt >= (size_t)cf.rcpt_limit)
		text = "452 4.5.3 too many recipients";
	else {
		if (conf_at(s, ST_RCPT)->reply != NULL)
			text = conf_at(s, ST_RCPT)->reply;
		for (i = 0; i < cf.nrules; i++)
			if (fnmatch(cf.rules[i].pattern, addr, FNM_CASEFOLD) ==
			    0) {
				text = cf.rules[i].reply;
				break;
			}
	}
	reply(s, ST_RCPT, text);
	/* --drop rcpt has closed the session: no envelope to add to */
	if (text[0] != '2' || s->mode == M_CLOSED) {
		free(addr);
		return;
	}
	if ((s->rcpts = reallocarray(
		 s->rcpts, s->nrcpt + 1, sizeof(*s->rcpts))) == NULL)
		err(1, "reallocarray");
	s->rcpts[s->nrcpt++] = addr;
}

/* cmd_data - DATA: open the save file and switch to data mode */
static void
cmd_data(struct session *s)
{
	stage_enter(s, ST_DATA);
	if (!s->have_mail || s->nrcpt == 0) {
		reply(s, ST_DATA, "554 5.5.1 no valid recipients");
		return;
	}
	reply(s, ST_DATA, "354 End data with <CR><LF>.<CR><LF>");
	/* --drop data has closed the session: it must stay closed */
	if (s->mode == M_CLOSED || (conf_at(s, ST_DATA)->reply != NULL &&
				       conf_at(s, ST_DATA)->reply[0] != '3'))
		return;
	stage_enter(s, ST_BODY);
	s->mode = M_DATA;
	s->dstate = D_BOL;
	s->dsize = 0;
	s->xact++;
	if (cf.save_dir == NULL)
		return;
	snprintf(s->tmpname, sizeof(s->tmpname), "%s/tmp/%lu.%lu", cf.save_dir,
	    s->id, s->xact);
	if ((s->save = fopen(s->tmpname, "w")) == NULL)
		err(1, "%s", s->tmpname);
}

/* data_end - end of DATA: reply, log the recipients, keep the message */
static void
data_end(struct session *s)
{
	char buf[128], path[PATH_MAX];
	const char *text = buf;
	unsigned long msg = next_msg_id;
	size_t i;

	if (tracefp != NULL && cf.trace_eod) {
		fprintf(tracefp, "%lu %lu .\n", s->id, s->reads);
		fflush(tracefp);
	}
	stage_enter(s, ST_EOD);
	s->mode = M_CMD;
	if (cf.size_limit > 0 && s->dsize > cf.size_limit)
		text = "552 5.3.4 message size exceeds limit";
	else
		snprintf(buf, sizeof(buf), "250 2.0.0 Ok: queued as %lu", msg);
	if (conf_at(s, ST_EOD)->reply != NULL)
		text = conf_at(s, ST_EOD)->reply;
	if (text[0] == '2' && conf_at(s, ST_EOD)->fault == F_NONE) {
		next_msg_id++;
		for (i = 0; i < s->nrcpt; i++)
			fprintf(logfp, "%lu %lu from=<%s> to=<%s>\n", s->id,
			    msg, s->from, s->rcpts[i]);
		if (fflush(logfp) == EOF)
			err(1, "%s", cf.log_file);
		if (s->save != NULL) {
			snprintf(
			    path, sizeof(path), "%s/new/%lu", cf.save_dir, msg);
			if (fclose(s->save) == EOF || rename(s->tmpname, path))
				err(1, "%s", path);
			s->save = NULL;
		}
	}
	xact_reset(s);
	reply(s, ST_EOD, text);
}

/* session_data - consume message text; 1 when the final dot was seen */
static int
session_data(struct session *s, size_t *used)
{
	size_t i;
	int c;

	for (i = 0; i < s->inlen; i++) {
		c = (unsigned char)s->in[i];
		switch (s->dstate) {
		case D_BOL:
			if (c == '.') {
				s->dstate = D_DOT;
				continue;
			}
			s->dstate = c == '\r' ? D_CR : D_MID;
			break;
		case D_MID:
			if (c == '\r')
				s->dstate = D_CR;
			break;
		case D_CR:
			s->dstate = c == '\n'	? D_BOL
				    : c == '\r' ? D_CR
						: D_MID;
			break;
		case D_DOT:
			if (c == '\r') {
				s->dstate = D_DOTCR;
				continue;
			}
			s->dstate = D_MID; /* the stuffed dot is dropped */
			break;
		case D_DOTCR:
			if (c == '\n') {
				*used = i + 1;
				return 1;
			}
			/* ".\r" then not LF: keep the CR, drop the dot. */
			s->dsize++;
			if (s->save != NULL)
				putc('\r', s->save);
			s->dstate = c == '\r' ? D_CR : D_MID;
			break;
		}
		s->dsize++;
		if (s->save != NULL)
			putc(c, s->save);
	}
	*used = i;
	return 0;
}

/* session_command - execute one command line */
static void
session_command(struct session *s, char *line)
{
	if (tracefp != NULL) {
		fprintf(tracefp, "%lu %lu %s\n", s->id, s->reads, line);
		fflush(tracefp);
	}
	if (strncasecmp(line, "EHLO", 4) == 0)
		cmd_ehlo(s);
	else if (strncasecmp(line, "HELO", 4) == 0) {
		stage_enter(s, ST_HELO);
		xact_reset(s);
		reply(s, ST_HELO, "250 mj_testsmtpd");
	} else if (strncasecmp(line, "MAIL FROM:", 10) == 0)
		cmd_mail(s, line + 10);
	else if (strncasecmp(line, "RCPT TO:", 8) == 0)
		cmd_rcpt(s, line + 8);
	else if (strcasecmp(line, "DATA") == 0)
		cmd_data(s);
	else if (strcasecmp(line, "RSET") == 0) {
		stage_enter(s, ST_RSET);
		xact_reset(s);
		reply(s, ST_RSET, "250 2.0.0 Ok");
	} else if (strcasecmp(line, "NOOP") == 0)
		out_append(s, "250 2.0.0 Ok\r\n", 14);
	else if (strcasecmp(line, "STARTTLS") == 0 && tls_ctx != NULL &&
		 s->ssl == NULL) {
		stage_enter(s, ST_STARTTLS);
		xact_reset(s);
		reply(s, ST_STARTTLS, "220 2.0.0 Ready to start TLS");
		if (conf_at(s, ST_STARTTLS)->reply == NULL ||
		    conf_at(s, ST_STARTTLS)->reply[0] == '2')
			s->tls_next = 1;
	} else if (strcasecmp(line, "QUIT") == 0) {
		stage_enter(s, ST_QUIT);
		reply(s, ST_QUIT, "221 2.0.0 Bye");
		s->close_after = 1;
	} else
		out_append(s, "502 5.5.2 command not recognized\r\n", 34);
}

/* session_input - work through buffered input until blocked */
static void
session_input(struct session *s)
{
	size_t used, len;
	char *lf;

	for (;;) {
		if (s->mode == M_CLOSED || s->close_after)
			return;
		if (s->pending != NULL) {
			if (now_ms() < s->wake)
				return;
			reply_now(s, s->pending_stage, s->pending);
			free(s->pending);
			s->pending = NULL;
			continue;
		}
		if (s->mode == M_SILENT) {
			s->inlen = 0;
			break;
		}
		if (s->inlen == 0)
			break;
		if (s->mode == M_DATA && conf_at(s, ST_BODY)->fault != F_NONE) {
			/* Some of the text has arrived: fail mid-DATA. */
			reply_now(s, ST_BODY, "");
			continue;
		} else if (s->mode == M_DATA) {
			if (session_data(s, &used))
				data_end(s);
		} else if ((lf = memchr(s->in, '\n', s->inlen)) == NULL) {
			if (s->inlen < sizeof(s->in))
				break;
			used = s->inlen; /* over-long line: drop it */
			s->skip_line = 1;
		} else {
			used = lf - s->in + 1;
			len = used - 1;
			if (len > 0 && s->in[len - 1] == '\r')
				len--;
			s->in[len] = '\0';
			if (s->skip_line) {
				s->skip_line = 0;
				out_append(
				    s, "500 5.5.2 line too long\r\n", 25);
			} else
				session_command(s, s->in);
		}
		if (s->mode == M_CLOSED)
			return;
		memmove(s->in, s->in + used, s->inlen - used);
		s->inlen -= used;
		/* Nothing sent before the handshake counts (RFC 3207 4). */
		if (s->tls_next)
			s->inlen = 0;
	}
	if (s->eof && s->pending == NULL && s->outlen == s->outoff)
		session_close(s);
}

/* tls_logline - the handshake is done: log protocol, resumption, SNI */
static void
tls_logline(struct session *s)
{
	const char *sni;

	if (s->tls_logged || !SSL_is_init_finished(s->ssl))
		return;
	s->tls_logged = 1;
	if (tlslogfp == NULL)
		return;
	sni = SSL_get_servername(s->ssl, TLSEXT_NAMETYPE_host_name);
	fprintf(tlslogfp, "%lu %s resumed=%d sni=%s\n", s->id,
	    SSL_get_version(s->ssl), SSL_session_reused(s->ssl),
	    sni ? sni : "-");
	fflush(tlslogfp);
}

/* tls_result - an SSL_read/SSL_write result as read(2)'s: bytes, -1
 * with EAGAIN to wait, 0 for the end (close_notify, error, reset) */
static ssize_t
tls_result(struct session *s, int r)
{
	int e = SSL_get_error(s->ssl, r);

	s->ssl_want_out = 0;
	if (r > 0)
		return r;
	if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
		s->ssl_want_out = e == SSL_ERROR_WANT_WRITE;
		errno = EAGAIN;
		return -1;
	}
	ERR_clear_error();
	return 0;
}

/* tls_begin - STARTTLS answered and flushed: the handshake starts with
 * the next read (or never, with --tls-stall) */
static void
tls_begin(struct session *s)
{
	s->tls_next = 0;
	if (cf.tls_stall) {
		s->mode = M_SILENT;
		return;
	}
	if ((s->ssl = SSL_new(tls_ctx)) == NULL ||
	    SSL_set_fd(s->ssl, s->fd) != 1)
		errx(1, "SSL_new failed");
	SSL_set_accept_state(s->ssl);
}

/* session_read - read(2), or SSL_read once TLS is on */
static ssize_t
session_read(struct session *s, char *buf, size_t len)
{
	ssize_t n;

	if (s->ssl == NULL)
		return read(s->fd, buf, len);
	n = tls_result(s, SSL_read(s->ssl, buf, (int)len));
	tls_logline(s);
	return n;
}

/* session_write - send(2), or SSL_write once TLS is on */
static ssize_t
session_write(struct session *s, const char *buf, size_t len)
{
	ssize_t n;

	if (s->ssl == NULL)
		return send(s->fd, buf, len, MSG_NOSIGNAL);
	if ((n = tls_result(s, SSL_write(s->ssl, buf, (int)len))) == 0) {
		errno = EPIPE;
		return -1;
	}
	return n;
}

/* session_io - move bytes between the socket and the buffers */
static void
session_io(struct session *s, short revents)
{
	ssize_t n;
	size_t len;

	/* Bytes OpenSSL holds decrypted count as readable. */
	if (s->ssl != NULL && SSL_pending(s->ssl) > 0)
		revents |= POLLIN;
	if (s->ssl != NULL && s->ssl_want_out && (revents & POLLOUT))
		revents |= POLLIN;
	if (s->mode != M_CLOSED && s->inlen < sizeof(s->in) &&
	    (revents & (POLLIN | POLLHUP | POLLERR))) {
		n = session_read(s, s->in + s->inlen, sizeof(s->in) - s->inlen);
		if (n == 0 || (n == -1 && errno != EAGAIN && errno != EINTR))
			s->eof = 1;
		else if (n > 0) {
			s->inlen += n;
			s->reads++;
		}
	}
	if (s->mode != M_CLOSED && (revents & POLLOUT)) {
		len = cf.split ? 1 : s->outlen - s->outoff;
		n = session_write(s, s->out + s->outoff, len);
		if (n == -1 && errno != EAGAIN && errno != EINTR)
			session_close(s);
		else if (n > 0 && (s->outoff += n) == s->outlen)
			s->outoff = s->outlen = 0;
	}
	if (s->mode != M_CLOSED && s->tls_next && s->outlen == 0)
		tls_begin(s);
	if (s->mode != M_CLOSED && s->close_after && s->outlen == 0)
		session_close(s);
}

/* session_accept - take every pending connection and greet it */
static void
session_accept(int lfd)
{
	struct session *s;
	int fd, one = 1, over;

	while ((fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK)) != -1) {
		if (setsockopt(
			fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) == -1)
			err(1, "TCP_NODELAY");
		if ((s = calloc(1, sizeof(*s))) == NULL ||
		    (sessions = reallocarray(
			 sessions, nsessions + 1, sizeof(*sessions))) == NULL)
			err(1, "calloc");
		s->fd = fd;
		s->id = next_session_id++;
		sessions[nsessions++] = s;
		if (++open_now > open_max)
			open_max = open_now;
		over =
		    cf.max_sessions > 0 && nsessions > (size_t)cf.max_sessions;
		refused += over;
		stats_write();
		if (over || s->id <= (unsigned long)cf.fail_first) {
			out_append(
			    s, "421 4.3.2 service not available\r\n", 34);
			s->close_after = 1;
		} else {
			stage_enter(s, ST_GREETING);
			reply(s, ST_GREETING, "220 mj_testsmtpd ESMTP");
		}
	}
	if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED &&
	    errno != EMFILE && errno != ENFILE)
		err(1, "accept");
}

/* sessions_reap - free closed sessions */
static void
sessions_reap(void)
{
	size_t i = 0;

	while (i < nsessions) {
		if (sessions[i]->mode != M_CLOSED) {
			i++;
			continue;
		}
		free(sessions[i]->out);
		free(sessions[i]->pending);
		free(sessions[i]);
		sessions[i] = sessions[--nsessions];
	}
}

/* listen_setup - bind 127.0.0.1:port and publish the chosen port */
static int
listen_setup(void)
{
	struct sockaddr_in sin = {.sin_family = AF_INET};
	socklen_t len = sizeof(sin);
	char buf[32];
	int fd, one = 1;

	sin.sin_port = htons(cf.port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0)) == -1 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) == -1 ||
	    bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    listen(fd, SOMAXCONN) == -1 ||
	    getsockname(fd, (struct sockaddr *)&sin, &len) == -1)
		err(1, "listen on 127.0.0.1:%d", cf.port);
	if (cf.port_file != NULL) {
		snprintf(buf, sizeof(buf), "%d\n", ntohs(sin.sin_port));
		write_file_atomic(cf.port_file, buf);
	}
	return fd;
}

/* on_signal - wake the poll loop through the self-pipe */
static void
on_signal(int sig)
{
	int save = errno;
	ssize_t n;

	(void)sig;
	n = write(sigpipe_fds[1], "", 1);
	(void)n;
	errno = save;
}

/* setup - files, limits and signals */
static void
setup(void)
{
	struct rlimit rl;
	struct sigaction sa = {.sa_handler = on_signal};
	char buf[PATH_MAX];

	/* Hundreds of sessions, each with a socket and a save file. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
	if ((logfp = fopen(cf.log_file ? cf.log_file : "/dev/null", "a")) ==
	    NULL)
		err(1, "%s", cf.log_file);
	if (cf.trace_file != NULL &&
	    (tracefp = fopen(cf.trace_file, "a")) == NULL)
		err(1, "%s", cf.trace_file);
	if (cf.save_dir != NULL) {
		const char *sub[] = {"", "/tmp", "/new"};
		size_t i;

		for (i = 0; i < 3; i++) {
			snprintf(buf, sizeof(buf), "%s%s", cf.save_dir, sub[i]);
			if (mkdir(buf, 0777) == -1 && errno != EEXIST)
				err(1, "mkdir %s", buf);
		}
	}
	if (cf.tls_cert != NULL) {
		if ((tls_ctx = SSL_CTX_new(TLS_server_method())) == NULL ||
		    SSL_CTX_use_certificate_chain_file(tls_ctx, cf.tls_cert) !=
			1 ||
		    SSL_CTX_use_PrivateKey_file(
			tls_ctx, cf.tls_key, SSL_FILETYPE_PEM) != 1 ||
		    SSL_CTX_set_session_id_context(tls_ctx,
			(const unsigned char *)"mj_testsmtpd", 12) != 1)
			errx(1, "cannot load %s and %s: %s", cf.tls_cert,
			    cf.tls_key,
			    ERR_reason_error_string(ERR_peek_last_error()));
		SSL_CTX_set_mode(
		    tls_ctx, SSL_MODE_ENABLE_PARTIAL_WRITE |
				 SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
	}
	if (cf.tls_log != NULL && (tlslogfp = fopen(cf.tls_log, "a")) == NULL)
		err(1, "%s", cf.tls_log);
	if (pipe2(sigpipe_fds, O_NONBLOCK | O_CLOEXEC) == -1)
		err(1, "pipe");
	if (sigaction(SIGTERM, &sa, NULL) == -1 ||
	    sigaction(SIGINT, &sa, NULL) == -1)
		err(1, "sigaction");
	signal(SIGPIPE, SIG_IGN);
}

/* main - set up, then run the poll loop until SIGTERM */
int
main(int argc, char **argv)
{
	struct pollfd *pfd = NULL;
	long long now, next;
	size_t i, n;
	char buf[32];
	int lfd;

	parse_args(argc, argv);
	setup();
	lfd = listen_setup();
	if (cf.pid_file != NULL) {
		snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());
		write_file_atomic(cf.pid_file, buf);
	}
	for (;;) {
		if ((pfd = reallocarray(pfd, nsessions + 2, sizeof(*pfd))) ==
		    NULL)
			err(1, "reallocarray");
		pfd[0] =
		    (struct pollfd){.fd = sigpipe_fds[0], .events = POLLIN};
		pfd[1] = (struct pollfd){.fd = lfd, .events = POLLIN};
		next = -1;
		now = now_ms();
		for (i = 0; i < nsessions; i++) {
			struct session *s = sessions[i];

			pfd[i + 2] = (struct pollfd){.fd = s->fd};
			if (s->pending != NULL &&
			    (next == -1 || s->wake - now < next))
				next = s->wake > now ? s->wake - now : 0;
			if (!s->eof && s->inlen < sizeof(s->in))
				pfd[i + 2].events |= POLLIN;
			if (s->outlen > s->outoff || s->ssl_want_out)
				pfd[i + 2].events |= POLLOUT;
			if (s->ssl != NULL && SSL_pending(s->ssl) > 0 &&
			    s->inlen < sizeof(s->in))
				next = 0;
		}
		n = nsessions;
		if (poll(pfd, n + 2, (int)next) == -1 && errno != EINTR)
			err(1, "poll");
		if (pfd[0].revents & POLLIN)
			break;
		for (i = 0; i < n; i++) {
			session_io(sessions[i], pfd[i + 2].revents);
			session_input(sessions[i]);
		}
		sessions_reap();
		if (pfd[1].revents & POLLIN)
			session_accept(lfd);
	}
	for (i = 0; i < nsessions; i++)
		session_close(sessions[i]);
	sessions_reap();
	free(sessions);
	free(pfd);
	SSL_CTX_free(tls_ctx);
	if (cf.pid_file != NULL)
		unlink(cf.pid_file);
	return 0;
}
