/*
 * crash.h - whether the death of a message's last runner counts against
 * the message ([queuerun] max_crashes), and faults only a test build can
 * cause (crash.c, test_fault.c).
 */
#ifndef MJQ_QUEUERUN_CRASH_H
#define MJQ_QUEUERUN_CRASH_H

#include <stddef.h>
#include <sys/types.h>

struct queuerun;

int crash_weigh(const struct queuerun *q, const char *name, pid_t holder,
    int counted, int progressed, char *how, size_t howlen);
void crash_mark(const struct queuerun *q, const char *name);
void test_fault(const char *text, size_t len);
/* test_fault_batch - 1: the batch being made finds no memory (a test
 * build with MJQ_TEST_FAULT_BATCHES=N, for its first N batches); 0 */
int test_fault_batch(void);

#endif
