/*
 * testsmtpd_args.c - mj_testsmtpd's command line: fills cf, once.
 *
 * The stage options (--reply, --delay, --drop, ...) and --rcpt are
 * checked and stored by the reply script (testsmtpd_script.c); the rest
 * are plain values read here.
 */
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testsmtpd.h"

struct conf cf = {.size_limit = 10240000};

static void usage(int) __attribute__((noreturn));

/* number_arg - a non-negative integer option value, or exit */
long
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
	    "  --check-size            554 at the end of data to a message "
	    "larger\n"
	    "                          than its MAIL's SIZE= said (RFC 1870)\n"
	    "  --no-pipelining, --no-8bitmime   do not advertise them\n"
	    "  --rcpt PATTERN=REPLY    reply for recipients matching "
	    "PATTERN\n"
	    "  --rcpt-limit N          452 after N recipients per "
	    "transaction\n"
	    "  --max-sessions N        421 when more than N are concurrent\n"
	    "  --fail-first-sessions N the first N sessions get 421\n"
	    "  --client-max-sessions N, --client-max-sessions ADDR=N\n"
	    "                          421 when more than N are concurrent "
	    "from one\n"
	    "                          client address (ADDR: from that one)\n"
	    "  --client-stats F        one line per client address, "
	    "rewritten:\n"
	    "                          <addr> sessions=N open=N max_open=N "
	    "refused=N\n"
	    "  --log-client            end each --log line with "
	    "client=<addr>\n"
	    "  --reply STAGE=REPLY     replace the reply at STAGE\n"
	    "  --delay STAGE=MS        wait MS before replying at STAGE\n"
	    "  --drop STAGE            close the connection at STAGE\n"
	    "  --silent STAGE          never answer from STAGE on\n"
	    "  --garbage STAGE         reply with garbage at STAGE\n"
	    "  --long-reply STAGE      reply with a 2 MB line at STAGE\n"
	    "  --split                 write replies one byte per write\n"
	    "  --stats F               rewritten at each connect and close:\n"
	    "                          sessions=N open=N max_open=N refused=N\n"
	    "  --stats-log F           and append it to F at each change,\n"
	    "                          after the time (epoch seconds)\n"
	    "  --tls-cert F, --tls-key F  offer STARTTLS with this PEM chain "
	    "and key\n"
	    "  --tls-log F             one line per TLS handshake:\n"
	    "                          <session> <protocol> resumed=0|1 "
	    "sni=<name>\n"
	    "  --tls-stall             answer STARTTLS, then never handshake\n"
	    "  --tls-inject LINE       send LINE in clear text right after "
	    "the 220\n"
	    "                          to STARTTLS (a STARTTLS injection)\n"
	    "STAGE: greeting ehlo helo mail rcpt data body (mid-DATA) eod "
	    "rset quit starttls;\n"
	    "  STAGE#N: only its Nth time in a session (eod#2: the second "
	    "end of data)\n");
	exit(status);
}

/* parse_args - fill cf from the command line */
void
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
		O_STATSLOG,
		O_TLSCERT,
		O_TLSKEY,
		O_TLSLOG,
		O_TLSSTALL,
		O_TLSINJECT,
		O_CLIENTMAX,
		O_CLIENTSTATS,
		O_LOGCLIENT,
		O_CHECKSIZE
	};
	static const struct option opts[] = {{"port", 1, 0, 'p'},
	    {"port-file", 1, 0, O_PORTFILE}, {"pid-file", 1, 0, O_PIDFILE},
	    {"log", 1, 0, O_LOG}, {"trace", 1, 0, O_TRACE},
	    {"trace-eod", 0, 0, O_TRACEEOD}, {"save-dir", 1, 0, O_SAVE},
	    {"size", 1, 0, O_SIZE}, {"check-size", 0, 0, O_CHECKSIZE},
	    {"no-pipelining", 0, 0, O_NOPIPE}, {"no-8bitmime", 0, 0, O_NO8BIT},
	    {"rcpt", 1, 0, O_RCPT}, {"rcpt-limit", 1, 0, O_RLIMIT},
	    {"max-sessions", 1, 0, O_MAXSESS},
	    {"fail-first-sessions", 1, 0, O_FAILFIRST},
	    {"reply", 1, 0, O_REPLY}, {"delay", 1, 0, O_DELAY},
	    {"drop", 1, 0, O_DROP}, {"silent", 1, 0, O_SILENT},
	    {"garbage", 1, 0, O_GARBAGE}, {"long-reply", 1, 0, O_LONG},
	    {"split", 0, 0, O_SPLIT}, {"stats", 1, 0, O_STATS},
	    {"stats-log", 1, 0, O_STATSLOG}, {"tls-cert", 1, 0, O_TLSCERT},
	    {"tls-key", 1, 0, O_TLSKEY}, {"tls-log", 1, 0, O_TLSLOG},
	    {"tls-stall", 0, 0, O_TLSSTALL}, {"tls-inject", 1, 0, O_TLSINJECT},
	    {"client-max-sessions", 1, 0, O_CLIENTMAX},
	    {"client-stats", 1, 0, O_CLIENTSTATS},
	    {"log-client", 0, 0, O_LOGCLIENT}, {"help", 0, 0, 'h'},
	    {0, 0, 0, 0}};
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
		case O_CHECKSIZE:
			cf.check_size = 1;
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
			rcpt_rule_arg(optarg);
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
		case O_STATSLOG:
			cf.stats_log = optarg;
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
		case O_TLSINJECT:
			cf.tls_inject = optarg;
			break;
		case O_CLIENTMAX:
			client_cap_arg(optarg);
			break;
		case O_CLIENTSTATS:
			cf.client_stats = optarg;
			break;
		case O_LOGCLIENT:
			cf.log_client = 1;
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
