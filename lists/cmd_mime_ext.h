/*
 * cmd_mime_ext.h - a MIME parameter's value as UTF-8 text, in its RFC
 * 2231 extended or continued form or its plain one (cmd_mime_ext.c).
 */
#ifndef MJQ_CMD_MIME_EXT_H
#define MJQ_CMD_MIME_EXT_H

#include <stddef.h>

int cmd_mime_ext_param(
    const char *value, const char *param, char *out, size_t outlen);

#endif
