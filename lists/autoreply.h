/*
 * autoreply.h - is a message an automatic answer (autoreply.c): a
 * vacation notice, an out-of-office reply, an autoresponder's, as RFC
 * 3834 marks them and as the common programs do.
 */
#ifndef MJQ_AUTOREPLY_H
#define MJQ_AUTOREPLY_H

#include <stddef.h>

/* autoreply_is - 1 when the message (text, len) is an automatic answer
 * and no delivery report, else 0 */
int autoreply_is(const char *text, size_t len);

#endif
