/*
 * mj_measure - run a command N times and report its wall time and memory.
 *
 *   mj_measure -n RUNS -i INPUT [-o OUTPUT] -- COMMAND [ARGS...]
 *
 * Each run gets INPUT on stdin (and its stdout into OUTPUT, the last
 * run's left there).  Prints one line:
 *   runs=N median_us=M p90_us=P max_rss_kb=R tree_rss_kb=T failures=F
 *   median_cpu_us=C max_us=X
 * (on one line); median_cpu_us is the median of the runs' user + system
 * time, max_us the slowest run's wall time.
 * max_rss_kb is the largest peak RSS of the command itself over the runs;
 * tree_rss_kb the largest of any process it started and waited for (for
 * sendmail: postdrop).  Timing is the fork-to-reap wall time, measured
 * here so both peers of a benchmark are timed by the same code.
 */
#include <err.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* measure_cmp - qsort for longs */
static int
measure_cmp(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

/* measure_now_us - monotonic microseconds */
static long
measure_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000L + ts.tv_nsec / 1000;
}

/* main - run the command RUNS times, then print the one line */
int
main(int argc, char **argv)
{
	const char *input = NULL, *output = NULL;
	long runs = 20, i, *us, *cpu, maxrss = 0, t0, failures = 0;
	struct rusage ru;
	int c, st, fd, ofd = -1;
	pid_t pid;

	while ((c = getopt(argc, argv, "n:i:o:")) != -1) {
		if (c == 'n')
			runs = atol(optarg);
		else if (c == 'i')
			input = optarg;
		else if (c == 'o')
			output = optarg;
		else
			errx(64, "usage: mj_measure -n RUNS -i INPUT [-o "
				 "OUTPUT] -- CMD...");
	}
	if (optind >= argc || input == NULL || runs < 1)
		errx(64, "usage: mj_measure -n RUNS -i INPUT [-o OUTPUT] -- "
			 "CMD...");
	if ((us = calloc((size_t)runs, sizeof(*us))) == NULL ||
	    (cpu = calloc((size_t)runs, sizeof(*cpu))) == NULL)
		err(1, "calloc");
	for (i = 0; i < runs; i++) {
		if ((fd = open(input, O_RDONLY)) == -1)
			err(1, "%s", input);
		if (output != NULL &&
		    (ofd = open(output, O_WRONLY | O_CREAT | O_TRUNC, 0644)) ==
			-1)
			err(1, "%s", output);
		t0 = measure_now_us();
		if ((pid = fork()) == -1)
			err(1, "fork");
		if (pid == 0) {
			dup2(fd, 0);
			if (ofd != -1)
				dup2(ofd, 1);
			execvp(argv[optind], argv + optind);
			_exit(127);
		}
		close(fd);
		if (ofd != -1)
			close(ofd);
		if (wait4(pid, &st, 0, &ru) == -1)
			err(1, "wait4");
		us[i] = measure_now_us() - t0;
		cpu[i] = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000L +
			 ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
		if (ru.ru_maxrss > maxrss)
			maxrss = ru.ru_maxrss;
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			failures++;
	}
	getrusage(RUSAGE_CHILDREN, &ru);
	qsort(us, (size_t)runs, sizeof(*us), measure_cmp);
	qsort(cpu, (size_t)runs, sizeof(*cpu), measure_cmp);
	printf("runs=%ld median_us=%ld p90_us=%ld max_rss_kb=%ld "
	       "tree_rss_kb=%ld failures=%ld median_cpu_us=%ld max_us=%ld\n",
	    runs, us[runs / 2], us[(runs * 9) / 10], maxrss, ru.ru_maxrss,
	    failures, cpu[runs / 2], us[runs - 1]);
	free(us);
	free(cpu);
	return failures ? 1 : 0;
}
