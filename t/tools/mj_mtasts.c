/*
 * mj_mtasts - the MTA-STS parsers and matcher (smtp/mta_sts.c) from the
 * command line, for t/230-mta-sts.bats:
 *
 *	mj_mtasts policy FILE        "mode max_age mx,mx" or the error, 65
 *	mj_mtasts txt TEXT           the id, or exit 65 (no valid record)
 *	mj_mtasts match PATTERN HOST exit 0 when HOST matches, else 1
 *	mj_mtasts tlsrpt TEXT        the rua mailto: addresses of a TLS-RPT
 *	                             TXT record (smtp/tlsrpt.c), one a line,
 *	                             or exit 65 (no valid record)
 */
#include <err.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "smtp.h"

/* policy - parse a policy file and print it */
static int
policy(const char *path)
{
	static char buf[MTA_STS_POLICY_MAX + 2];
	struct mta_sts_policy p;
	char why[200];
	ssize_t n;
	size_t i;
	int fd;

	if ((fd = open(path, O_RDONLY)) == -1)
		err(EX_NOINPUT, "%s", path);
	if ((n = read(fd, buf, sizeof(buf))) == -1)
		err(EX_IOERR, "%s", path);
	(void)close(fd);
	if (mta_sts_policy_parse(buf, (size_t)n, &p, why, sizeof(why)) == -1) {
		printf("invalid: %s\n", why);
		return EX_DATAERR;
	}
	printf("%s %ld ", mta_sts_mode_names[p.mode], p.max_age);
	for (i = 0; i < p.nmx; i++)
		printf("%s%s", i ? "," : "", p.mx[i]);
	printf("\n");
	return 0;
}

/* main - one of the four commands */
int
main(int argc, char **argv)
{
	char id[MTA_STS_ID_MAX + 1], rua[1024];

	if (argc == 3 && strcmp(argv[1], "policy") == 0)
		return policy(argv[2]);
	if (argc == 3 && strcmp(argv[1], "txt") == 0) {
		if (mta_sts_txt_parse(argv[2], id, sizeof(id)) == -1)
			return EX_DATAERR;
		printf("%s\n", id);
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "tlsrpt") == 0) {
		if (tlsrpt_txt_parse(argv[2], rua, sizeof(rua)) == -1)
			return EX_DATAERR;
		printf("%s", rua);
		return 0;
	}
	if (argc == 4 && strcmp(argv[1], "match") == 0)
		return mta_sts_mx_match(argv[2], argv[3]) ? 0 : 1;
	errx(EX_USAGE, "usage: mj_mtasts policy FILE | txt TEXT | match "
		       "PATTERN HOST | tlsrpt TEXT");
}
