/*
 * selfpath.h - a program that comes with this one: beside this
 * program's executable (installed), or in a folder of the build tree.
 */
#ifndef MJQ_SELFPATH_H
#define MJQ_SELFPATH_H

#include <stddef.h>

int selfpath_sibling(const char *name, const char *builddir, char *out,
    size_t outlen, char *err, size_t errlen);

#endif
