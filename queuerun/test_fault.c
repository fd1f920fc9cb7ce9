/*
 * test_fault.c - faults that only a test build can trigger.
 *
 * Built with -DMJQ_TEST_FAULTS (make fault-runner, for t/69), a message
 * whose header section has "X-Mjq-Test-Fault: segv", "abort" or "hang"
 * makes the runner crash, abort or hang every time it prepares it, as a
 * real poison message would; MJQ_TEST_FAULT_BATCHES=N in the runner's
 * environment makes its first N batches find no memory (dispatch.c), so
 * that the admitted delivery is given back untried.  In every other
 * build these are empty functions: no header, variable, option or
 * setting reaches them.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crash.h"
#include "lists.h"

/* test_fault - crash as the message asks, in a test build only */
void
test_fault(const char *text, size_t len)
{
#ifdef MJQ_TEST_FAULTS
	static const char key[] = "\nX-Mjq-Test-Fault: ";
	const char *hend = header_end(text, len), *p;

	p = memmem(text, (size_t)(hend - text), key, sizeof(key) - 1);
	if (p == NULL)
		return;
	p += sizeof(key) - 1;
	if (strncmp(p, "segv", 4) == 0)
		raise(SIGSEGV);
	else if (strncmp(p, "abort", 5) == 0)
		abort();
	else if (strncmp(p, "hang", 4) == 0)
		for (;;)
			pause();
#else
	(void)text;
	(void)len;
#endif
}

/* test_fault_batch - the batch being made finds no memory, as the test
 * asks, in a test build only */
int
test_fault_batch(void)
{
#ifdef MJQ_TEST_FAULTS
	static long left = -1;
	const char *v;

	if (left == -1)
		left = (v = getenv("MJQ_TEST_FAULT_BATCHES")) != NULL
			   ? strtol(v, NULL, 10)
			   : 0;
	if (left > 0) {
		left--;
		return 1;
	}
#endif
	return 0;
}
