/* An LD_PRELOAD library for the bad-input corpus: every write to a file under $TLC_FULL_DISK
   fails with ENOSPC, as on a full disk, while the rest of the file system works. Only what
   reaches libc's write entry points is caught (tlc's own writes all do). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/uio.h>
#include <unistd.h>

static int onFullDisk(int fd) {
  const char* prefix = getenv("TLC_FULL_DISK");
  if (!prefix || !*prefix)
    return 0;
  char link[64], path[4096];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t length = readlink(link, path, sizeof path - 1);
  if (length <= 0)
    return 0;
  path[length] = '\0';
  return strncmp(path, prefix, strlen(prefix)) == 0;
}

#define FULL_IF(fd)                                                                                \
  if (onFullDisk(fd)) {                                                                            \
    errno = ENOSPC;                                                                                \
    return -1;                                                                                     \
  }

typedef ssize_t (*WriteFn)(int, const void*, size_t);
typedef ssize_t (*PwriteFn)(int, const void*, size_t, off_t);
typedef ssize_t (*WritevFn)(int, const struct iovec*, int);
typedef ssize_t (*CopyRangeFn)(int, off_t*, int, off_t*, size_t, unsigned);
typedef ssize_t (*SendfileFn)(int, int, off_t*, size_t);
typedef int (*FallocateFn)(int, off_t, off_t);

static void* real(const char* name) {
  return dlsym(RTLD_NEXT, name);
}

ssize_t write(int fd, const void* data, size_t size) {
  if (size)
    FULL_IF(fd);
  return ((WriteFn)real("write"))(fd, data, size);
}

ssize_t pwrite(int fd, const void* data, size_t size, off_t offset) {
  if (size)
    FULL_IF(fd);
  return ((PwriteFn)real("pwrite"))(fd, data, size, offset);
}

ssize_t pwrite64(int fd, const void* data, size_t size, off_t offset) {
  if (size)
    FULL_IF(fd);
  return ((PwriteFn)real("pwrite64"))(fd, data, size, offset);
}

ssize_t writev(int fd, const struct iovec* parts, int count) {
  FULL_IF(fd);
  return ((WritevFn)real("writev"))(fd, parts, count);
}

ssize_t copy_file_range(int in, off_t* inOffset, int out, off_t* outOffset, size_t size,
                        unsigned flags) {
  FULL_IF(out);
  return ((CopyRangeFn)real("copy_file_range"))(in, inOffset, out, outOffset, size, flags);
}

ssize_t sendfile(int out, int in, off_t* offset, size_t size) {
  FULL_IF(out);
  return ((SendfileFn)real("sendfile"))(out, in, offset, size);
}

int posix_fallocate(int fd, off_t offset, off_t size) {
  if (onFullDisk(fd))
    return ENOSPC;
  return ((FallocateFn)real("posix_fallocate"))(fd, offset, size);
}
