/* pidfile.c - the --pidfile of satind (see pidfile.h). */
#include "pidfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

static int held_fd = -1;
static char held_path[4096];

/* The pid written in the file open at fd, or 0. */
static long pid_in(int fd)
{
    char buf[32];
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    return strtol(buf, NULL, 10);
}

static int held_by_other(const char *path, int fd, char *err, size_t errlen)
{
    long pid = pid_in(fd);
    snprintf(err, errlen,
             "the pid file %s names a running satind (pid %ld); stop it first, or choose "
             "another --pidfile", path, pid);
    return -1;
}

int satind_pidfile_check(const char *path, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) {
        if (errno == ENOENT)
            return 0;
        snprintf(err, errlen, "cannot open the pid file %s: %s", path, strerror(errno));
        return -1;
    }
    int rc = 0;
    if (flock(fd, LOCK_SH | LOCK_NB) < 0)
        rc = errno == EWOULDBLOCK ? held_by_other(path, fd, err, errlen) : 0;
    close(fd);
    return rc;
}

int satind_pidfile_write(const char *path, char *err, size_t errlen)
{
    if (strlen(path) >= sizeof held_path) {
        snprintf(err, errlen, "the pid file path %s is too long", path);
        return -1;
    }
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0) {
        snprintf(err, errlen, "cannot create the pid file %s: %s", path, strerror(errno));
        return -1;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
        int rc = errno == EWOULDBLOCK
                     ? held_by_other(path, fd, err, errlen)
                     : (snprintf(err, errlen, "cannot lock the pid file %s: %s", path,
                                 strerror(errno)), -1);
        close(fd);
        return rc;
    }
    char line[32];
    int n = snprintf(line, sizeof line, "%ld\n", (long)getpid());
    if (ftruncate(fd, 0) < 0 || pwrite(fd, line, (size_t)n, 0) != n) {
        snprintf(err, errlen, "cannot write the pid file %s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    held_fd = fd;
    snprintf(held_path, sizeof held_path, "%s", path);
    return 0;
}

void satind_pidfile_remove(void)
{
    if (held_fd < 0)
        return;
    /* Unlinked while still locked: a new satind cannot take it in between. */
    unlink(held_path);
    close(held_fd);
    held_fd = -1;
}
