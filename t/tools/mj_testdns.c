/*
 * mj_testdns - a canned-answer DNS server for the MX and DMARC tests.
 *
 * UDP on 127.0.0.1, one zone file given on the command line, answers to
 * MX, A, AAAA, TXT and TLSA queries; nothing else.  With --ad every
 * answer carries the AD bit, as from a validating resolver (DANE tests).
 * Zone lines:
 *
 *	example.org	MX	10 mx1.example.org
 *	mx1.example.org	A	127.0.0.1
 *	v6.example.org	AAAA	::1
 *	nullmx.org	MX	0 .
 *	broken.org	SERVFAIL
 *	_dmarc.x.org	TXT	v=DMARC1; p=reject
 *	_25._tcp.mx1.example.org TLSA 3 1 1 <hex>
 *
 * A TXT record is the rest of its line, sent as strings of at most 255
 * bytes.
 *
 * A name with no line is NXDOMAIN; a name with lines but none of the
 * asked type is NODATA.  Every query is logged ("name TYPE") so a test
 * can assert which lookups were made.
 */
#include <sys/socket.h>
#include <sys/time.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <ctype.h>
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define T_A 1
#define T_MX 15
#define T_TXT 16
#define T_AAAA 28
#define T_TLSA 52
#define TLSA_MAX 512
#define TXT_MAX 1024
#define T_SERVFAIL (-1) /* a zone entry, not a DNS type */

struct rr {
	char name[256];
	int type;
	int pref;			  /* MX */
	char target[256];		  /* MX */
	unsigned char addr[16];		  /* A, AAAA */
	char txt[TXT_MAX];		  /* TXT */
	unsigned char tlsa[3 + TLSA_MAX]; /* usage selector mtype data */
	size_t tlsalen;
};

static struct rr *zone;
static size_t nzone;
static volatile sig_atomic_t stop;
static int ad_bit;

/* on_term - leave the receive loop */
static void
on_term(int sig)
{
	(void)sig;
	stop = 1;
}

/* txt_rest - the text after a zone line's first two fields, trimmed */
static void
txt_rest(const char *line, char *out)
{
	const char *p = line;
	size_t n;
	int f;

	for (f = 0; f < 2; f++) {
		p += strspn(p, " \t");
		p += strcspn(p, " \t");
	}
	p += strspn(p, " \t");
	n = strcspn(p, "\r\n");
	if (n >= TXT_MAX)
		n = TXT_MAX - 1;
	memcpy(out, p, n);
	out[n] = '\0';
}

/* zone_load - read the zone file, or exit */
static void
zone_load(const char *path)
{
	char line[2048], name[256], type[16], a[256], b[256], hex[1100];
	unsigned u, sel, mt;
	size_t k;
	FILE *fp;
	struct rr *r;
	int n, lineno = 0;

	if ((fp = fopen(path, "r")) == NULL)
		err(1, "%s", path);
	while (fgets(line, sizeof(line), fp) != NULL) {
		lineno++;
		if ((n = sscanf(line, "%255s %15s %255s %255s", name, type, a,
			 b)) < 2 ||
		    name[0] == '#')
			continue;
		if ((zone = reallocarray(zone, nzone + 1, sizeof(*zone))) ==
		    NULL)
			err(1, "reallocarray");
		r = memset(&zone[nzone++], 0, sizeof(*r));
		if (strlcpy(r->name, name, sizeof(r->name)) >= sizeof(r->name))
			errx(1, "name too long: %s", name);
		if (strcasecmp(type, "MX") == 0 && n == 4) {
			r->type = T_MX;
			r->pref = atoi(a);
			if (strlcpy(r->target, b, sizeof(r->target)) >=
			    sizeof(r->target))
				errx(1, "MX target too long: %s", b);
		} else if (strcasecmp(type, "A") == 0 && n == 3 &&
			   inet_pton(AF_INET, a, r->addr) == 1)
			r->type = T_A;
		else if (strcasecmp(type, "AAAA") == 0 && n == 3 &&
			 inet_pton(AF_INET6, a, r->addr) == 1)
			r->type = T_AAAA;
		else if (strcasecmp(type, "TXT") == 0 && n >= 3) {
			r->type = T_TXT;
			txt_rest(line, r->txt);
		} else if (strcasecmp(type, "SERVFAIL") == 0)
			r->type = T_SERVFAIL;
		else if (strcasecmp(type, "TLSA") == 0 &&
			 sscanf(line, "%*s %*s %u %u %u %1099s", &u, &sel, &mt,
			     hex) == 4 &&
			 strlen(hex) % 2 == 0 && strlen(hex) / 2 <= TLSA_MAX) {
			r->type = T_TLSA;
			r->tlsa[0] = u;
			r->tlsa[1] = sel;
			r->tlsa[2] = mt;
			for (k = 0; hex[2 * k] != '\0'; k++)
				if (sscanf(hex + 2 * k, "%2hhx",
					&r->tlsa[3 + k]) != 1)
					errx(1, "%s:%d: bad hex", path, lineno);
			r->tlsalen = 3 + k;
		} else
			errx(1, "%s:%d: bad line", path, lineno);
	}
	fclose(fp);
}

/* put16 - a 16-bit value in network order */
static void
put16(unsigned char *p, int v)
{
	p[0] = (v >> 8) & 0xff;
	p[1] = v & 0xff;
}

/* put_name - a domain name as uncompressed labels; 0 on overflow */
static size_t
put_name(unsigned char *p, size_t room, const char *name)
{
	const char *dot;
	size_t n = 0, len;

	while (*name != '\0' && strcmp(name, ".") != 0) {
		dot = strchr(name, '.');
		len = dot ? (size_t)(dot - name) : strlen(name);
		if (len == 0 || len > 63 || n + len + 2 > room)
			return 0;
		p[n++] = len;
		memcpy(p + n, name, len);
		n += len;
		name += len + (dot != NULL);
	}
	if (n + 1 > room)
		return 0;
	p[n++] = 0;
	return n;
}

/* put_txt - text as TXT character-strings of at most 255 bytes */
static size_t
put_txt(unsigned char *p, const char *text)
{
	size_t n = 0, len = strlen(text), k;

	do {
		k = len > 255 ? 255 : len;
		p[n++] = (unsigned char)k;
		memcpy(p + n, text, k);
		n += k;
		text += k;
		len -= k;
	} while (len > 0);
	return n;
}

/* get_qname - the question's name as text; bytes used, 0 if malformed */
static size_t
get_qname(const unsigned char *q, size_t len, char *out, size_t outlen)
{
	size_t i = 0, o = 0, l;

	while (i < len && q[i] != 0) {
		l = q[i++];
		if (l > 63 || i + l > len || o + l + 2 > outlen)
			return 0;
		if (o > 0)
			out[o++] = '.';
		memcpy(out + o, q + i, l);
		o += l;
		i += l;
	}
	if (i >= len)
		return 0;
	out[o] = '\0';
	return i + 1;
}

/* answer - build the reply to one query; its length, 0 to drop */
static size_t
answer(const unsigned char *q, size_t qlen, unsigned char *out, size_t room,
    FILE *log)
{
	char name[256];
	size_t nlen, n, i, k;
	int qtype, rcode = 3, ancount = 0;
	unsigned char *rd;

	if (qlen < 12 ||
	    (nlen = get_qname(q + 12, qlen - 12, name, sizeof(name))) == 0 ||
	    12 + nlen + 4 > qlen || 12 + nlen + 4 > room)
		return 0;
	qtype = q[12 + nlen] << 8 | q[12 + nlen + 1];
	fprintf(log, "%s %s\n", name,
	    qtype == T_MX     ? "MX"
	    : qtype == T_A    ? "A"
	    : qtype == T_AAAA ? "AAAA"
	    : qtype == T_TXT  ? "TXT"
	    : qtype == T_TLSA ? "TLSA"
			      : "OTHER");
	fflush(log);
	n = 12 + nlen + 4;
	memcpy(out, q, n); /* header and question */
	for (i = 0; i < nzone; i++) {
		if (strcasecmp(zone[i].name, name) != 0)
			continue;
		if (zone[i].type == T_SERVFAIL) {
			rcode = 2;
			ancount = 0;
			n = 12 + nlen + 4;
			break;
		}
		rcode = 0;
		if (zone[i].type != qtype ||
		    n + 12 +
			    (TXT_MAX > 3 + TLSA_MAX ? TXT_MAX + 8
						    : 3 + TLSA_MAX) >
			room)
			continue;
		/* Owner: a pointer to the question's name at offset 12. */
		put16(out + n, 0xc000 | 12);
		put16(out + n + 2, qtype);
		put16(out + n + 4, 1); /* class IN */
		put16(out + n + 6, 0); /* TTL 60 */
		put16(out + n + 8, 60);
		rd = out + n + 12;
		if (qtype == T_MX) {
			put16(rd, zone[i].pref);
			k = 2 + put_name(rd + 2, 256, zone[i].target);
		} else if (qtype == T_TXT) {
			k = put_txt(rd, zone[i].txt);
		} else if (qtype == T_TLSA) {
			k = zone[i].tlsalen;
			memcpy(rd, zone[i].tlsa, k);
		} else {
			k = qtype == T_A ? 4 : 16;
			memcpy(rd, zone[i].addr, k);
		}
		put16(out + n + 10, k);
		n += 12 + k;
		ancount++;
	}
	out[2] = 0x84 | (q[2] & 0x01);		     /* QR, AA, RD copied */
	out[3] = 0x80 | (ad_bit ? 0x20 : 0) | rcode; /* RA, AD */
	put16(out + 6, ancount);
	memset(out + 8, 0, 4); /* no authority, no additional */
	return n;
}

/* usage - print the usage and exit */
static void __attribute__((noreturn)) usage(int status)
{
	fprintf(status ? stderr : stdout,
	    "usage: mj_testdns [-p port] [--port-file F] [--pid-file F] "
	    "[--log F] [--ad] zonefile\n");
	exit(status);
}

/* main - load the zone, bind, answer until SIGTERM */
int
main(int argc, char **argv)
{
	static const struct option opts[] = {{"port", 1, 0, 'p'},
	    {"port-file", 1, 0, 'P'}, {"pid-file", 1, 0, 'i'},
	    {"log", 1, 0, 'l'}, {"ad", 0, 0, 'a'}, {"help", 0, 0, 'h'},
	    {0, 0, 0, 0}};
	const char *port_file = NULL, *pid_file = NULL, *log_file = "/dev/null";
	struct sockaddr_in sin = {.sin_family = AF_INET}, from;
	struct sigaction sa = {.sa_handler = on_term};
	unsigned char q[512], out[8192];
	socklen_t len = sizeof(sin);
	char tmp[4096];
	ssize_t n;
	size_t k;
	FILE *log, *fp;
	int c, fd, port = 0;

	while ((c = getopt_long(argc, argv, "hp:", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			port = atoi(optarg);
			break;
		case 'P':
			port_file = optarg;
			break;
		case 'i':
			pid_file = optarg;
			break;
		case 'l':
			log_file = optarg;
			break;
		case 'a':
			ad_bit = 1;
			break;
		case 'h':
			usage(0);
		default:
			usage(1);
		}
	}
	if (optind != argc - 1)
		usage(1);
	zone_load(argv[optind]);
	if ((log = fopen(log_file, "a")) == NULL)
		err(1, "%s", log_file);
	sin.sin_port = htons(port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((fd = socket(AF_INET, SOCK_DGRAM, 0)) == -1 ||
	    bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    getsockname(fd, (struct sockaddr *)&sin, &len) == -1)
		err(1, "bind 127.0.0.1:%d", port);
	/* Publish the port and pid atomically: tests wait for the file. */
	const char *files[] = {port_file, pid_file};
	long vals[] = {ntohs(sin.sin_port), (long)getpid()};
	for (k = 0; k < 2; k++) {
		if (files[k] == NULL)
			continue;
		snprintf(tmp, sizeof(tmp), "%s.tmp", files[k]);
		if ((fp = fopen(tmp, "w")) == NULL ||
		    fprintf(fp, "%ld\n", vals[k]) < 0 || fclose(fp) == EOF ||
		    rename(tmp, files[k]) == -1)
			err(1, "%s", files[k]);
	}
	/* A signal between the stop check and recvfrom must not hang us. */
	struct timeval tv = {.tv_usec = 100000};
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) == -1)
		err(1, "SO_RCVTIMEO");
	if (sigaction(SIGTERM, &sa, NULL) == -1 ||
	    sigaction(SIGINT, &sa, NULL) == -1)
		err(1, "sigaction");
	while (!stop) {
		len = sizeof(from);
		if ((n = recvfrom(fd, q, sizeof(q), 0, (struct sockaddr *)&from,
			 &len)) == -1) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			err(1, "recvfrom");
		}
		if ((k = answer(q, n, out, sizeof(out), log)) > 0)
			(void)sendto(
			    fd, out, k, 0, (struct sockaddr *)&from, len);
	}
	if (pid_file != NULL)
		unlink(pid_file);
	free(zone);
	return 0;
}
