/*
 * io.h - small I/O helpers with no mail knowledge.
 */
#ifndef MJQ_IO_H
#define MJQ_IO_H

#include <stddef.h>
#include <sys/stat.h>

int io_write_all(int fd, const void *buf, size_t len);
int io_fsync_close(int fd);
int io_fsync_dir(const char *dir);
int io_fsync_parent(const char *path);
int io_open_private(const char *path, off_t maxsize, struct stat *sb);

#endif
