/*
 * head_rules.h - a list's header rules (head_rules.c): fields removed
 * from posts ([list] remove_headers) and fields added (the list's
 * custom_headers file).
 */
#ifndef MJQ_HEAD_RULES_H
#define MJQ_HEAD_RULES_H

#include <stddef.h>

#define HEAD_RULES_NAMES_MAX 1024 /* remove_headers' size, with its NUL */
#define HEAD_RULES_FILE "custom_headers"

int head_rules_parse(const char *text, void *var, char *err, size_t errlen);
int head_rules_removes(const char *names, const char *p, size_t n);
int head_rules_load(const char *path, char **out, char *err, size_t errlen);

#endif
