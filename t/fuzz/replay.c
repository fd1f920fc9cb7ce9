/*
 * replay.c - a main for a fuzz target without libFuzzer: each file named
 * (or each file in a directory named, its seed corpus) is read whole and
 * given to the target's LLVMFuzzerTestOneInput, once.  Linked with a
 * target and built with any C compiler and its sanitizers (make
 * fuzz-replay, t/640), it shows that every target still builds and
 * that no seed crashes, where clang is not at hand.  Exit 0 every input
 * ran, 1 one could not be read; a crash ends it as the sanitizer says.
 */
#include <dirent.h>
#include <err.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* replay_file - the bytes of path given to the target; 0, or -1 */
static int
replay_file(const char *path)
{
	uint8_t *buf;
	size_t len;
	FILE *fp;
	struct stat st;

	if ((fp = fopen(path, "rb")) == NULL) {
		warn("%s", path);
		return -1;
	}
	if (fstat(fileno(fp), &st) == -1 ||
	    (buf = malloc((size_t)st.st_size + 1)) == NULL) {
		warn("%s", path);
		fclose(fp);
		return -1;
	}
	len = fread(buf, 1, (size_t)st.st_size, fp);
	if (ferror(fp) || len != (size_t)st.st_size) {
		warnx("%s: cannot read it whole", path);
		free(buf);
		fclose(fp);
		return -1;
	}
	fclose(fp);
	/* exactly len bytes, as libFuzzer gives them: an overread shows */
	(void)LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	return 0;
}

/* replay_dir - every file in dir replayed; the number of them, or -1 */
static long
replay_dir(const char *dir)
{
	char path[4096];
	struct dirent *de;
	long n = 0;
	DIR *d;

	if ((d = opendir(dir)) == NULL) {
		warn("%s", dir);
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >=
			(int)sizeof(path) ||
		    replay_file(path) == -1) {
			closedir(d);
			return -1;
		}
		n++;
	}
	closedir(d);
	return n;
}

/* main - each argument, a file or a directory of them, replayed */
int
main(int argc, char **argv)
{
	struct stat st;
	long n = 0, k;
	int i;

	if (argc < 2)
		errx(1, "usage: %s file|dir...", argv[0]);
	for (i = 1; i < argc; i++) {
		if (stat(argv[i], &st) == -1)
			err(1, "%s", argv[i]);
		if (S_ISDIR(st.st_mode))
			k = replay_dir(argv[i]);
		else
			k = replay_file(argv[i]) == 0 ? 1 : -1;
		if (k == -1)
			return 1;
		n += k;
	}
	printf("%s: %ld inputs replayed\n", argv[0], n);
	return 0;
}
