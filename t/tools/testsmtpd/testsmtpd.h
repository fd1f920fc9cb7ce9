/*
 * testsmtpd.h - mj_testsmtpd's parts and the state they share.
 *
 * One process, one poll() loop (mj_testsmtpd.c), one state machine per
 * session.  The options fill cf (testsmtpd_args.c); the sessions are
 * accepted, read, written and freed in testsmtpd_session.c; their
 * commands and message text are the SMTP server of testsmtpd_smtp.c,
 * which answers each stage through the reply script (testsmtpd_script.c:
 * --reply, --delay, --drop, --silent, --garbage, --long-reply, each for
 * STAGE or STAGE#N, and the --rcpt patterns).  What the tests read back
 * (--log, --trace, --save-dir, --stats, the port and pid files) is
 * written in testsmtpd_record.c, the counts per client address
 * (--client-max-sessions, --client-stats) in testsmtpd_client.c, and STARTTLS
 * (--tls-*) is testsmtpd_tls.c, the only file that calls OpenSSL.
 *
 * Times are milliseconds of CLOCK_MONOTONIC (now_ms).
 */
#ifndef MJQ_TESTSMTPD_H
#define MJQ_TESTSMTPD_H

#include <limits.h>
#include <stdio.h>
#include <sys/types.h>

#include <openssl/types.h>

#define IN_MAX 8192	     /* command line limit, and read chunk */
#define LONG_REPLY (2 << 20) /* the "long" fault: a 2 MB reply line */
#define CLIENT_ADDR_MAX 64   /* a client address as text */
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

/* The command line, read once (testsmtpd_args.c). */
struct conf {
	int port;
	const char *port_file, *pid_file, *log_file, *save_dir, *trace_file;
	const char *stats_file, *stats_log;
	const char *client_stats; /* --client-stats */
	int log_client;		  /* --log-client */
	int check_size;		  /* --check-size */
	const char *tls_cert, *tls_key, *tls_log;
	const char *tls_inject; /* a line sent in clear after the 220 */
	int tls_stall;
	struct stage_conf stage[ST_COUNT];
	struct nth_rule *nth;
	size_t nnth;
	struct rcpt_rule *rules;
	size_t nrules;
	long max_sessions, fail_first, rcpt_limit, size_limit;
	int no_pipelining, no_8bitmime, split, trace_eod;
};
extern struct conf cf;

/* DATA is parsed byte by byte: these states find CRLF.CRLF and unstuff. */
enum dstate { D_BOL, D_MID, D_CR, D_DOT, D_DOTCR };

enum mode { M_CMD, M_DATA, M_SILENT, M_CLOSED };

struct session {
	int fd;
	unsigned long id;
	char client[CLIENT_ADDR_MAX]; /* the peer's address */
	int client_open;	      /* counted open in its address's counts */
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
	long long mail_size; /* the MAIL command's SIZE=, -1 none */
	FILE *save;
	char tmpname[PATH_MAX];
	unsigned long xact;
	SSL *ssl;	  /* TLS is on */
	int tls_next;	  /* STARTTLS answered: TLS once out is flushed */
	int tls_logged;	  /* the handshake is logged */
	int ssl_want_out; /* SSL needs the socket writable */
};

/* mj_testsmtpd.c */
long long now_ms(void);

/* testsmtpd_args.c */
void parse_args(int, char **);
long number_arg(const char *, const char *);

/* testsmtpd_script.c */
struct stage_conf *stage_conf_arg(const char *, size_t);
const char *reply_arg(const char *, const char *);
void rcpt_rule_arg(const char *);
const char *rcpt_rule_reply(const char *);
void stage_enter(struct session *, enum stage);
const struct stage_conf *conf_at(const struct session *, enum stage);
void reply(struct session *, enum stage, const char *);
void reply_now(struct session *, enum stage, const char *);

/* testsmtpd_session.c */
extern struct session **sessions;
extern size_t nsessions;
void session_accept(int);
short session_poll(const struct session *, long long, long long *);
void session_io(struct session *, short);
void out_append(struct session *, const char *, size_t);
void session_close(struct session *);
void sessions_reap(void);

/* testsmtpd_smtp.c */
void session_greet(struct session *);
void session_input(struct session *);
void xact_reset(struct session *);

/* testsmtpd_client.c */
void client_cap_arg(const char *);
int client_open(const char *);
void client_close(const char *);

/* testsmtpd_record.c */
void record_open(void);
void record_trace(const struct session *, const char *);
void record_trace_eod(const struct session *);
void record_save_open(struct session *);
void record_save_discard(struct session *);
void record_delivery(struct session *, unsigned long);
void record_stats(unsigned long, unsigned long, unsigned long, unsigned long);
void write_file_atomic(const char *, const char *);

/* testsmtpd_tls.c */
void tls_open(void);
void tls_close(void);
int tls_offered(const struct session *);
void tls_begin(struct session *);
int tls_pending(const struct session *);
ssize_t tls_read(struct session *, char *, size_t);
ssize_t tls_write(struct session *, const char *, size_t);
void tls_end(struct session *);

#endif
