/* submit_output.c - satin-submit --output FILE (submit_output.h). */
#include "submit_output.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int submit_output_precheck(const char *path, char *why, size_t len)
{
    char dir[4096];
    struct stat st;
    const char *slash = strrchr(path, '/');
    if (!*path) {
        snprintf(why, len, "--output wants a file name");
        return -1;
    }
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(why, len, "cannot write %s: it is a directory", path);
        return -1;
    }
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else
        snprintf(dir, sizeof dir, "%.*s", slash == path ? 1 : (int)(slash - path), path);
    if (access(dir, W_OK | X_OK) < 0) {
        snprintf(why, len, "cannot write %s: %s (directory %s)", path, strerror(errno), dir);
        return -1;
    }
    return 0;
}

int submit_output_write(const satin_job_report *r, const char *path, char *why, size_t len)
{
    if (!r->data_type || !r->data_type[0]) {
        snprintf(why, len, "job %" PRIu64 " (%s) returned no data: nothing written to %s",
                 r->job_id, r->kind, path);
        return -1;
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) {
        snprintf(why, len, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    /* Only a regular file cut short is removed: never a device (/dev/full). */
    struct stat st;
    int regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    size_t done = 0;
    while (done < r->data_len) {
        ssize_t n = write(fd, r->data + done, r->data_len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            snprintf(why, len, "cannot write %s: %s (%zu of %zu bytes written)", path,
                     n < 0 ? strerror(errno) : "no progress", done, r->data_len);
            close(fd);
            if (regular)
                unlink(path);
            return -1;
        }
        done += (size_t)n;
    }
    /* close() is where some file systems (NFS, a full disk) report the write. */
    if (close(fd) < 0) {
        snprintf(why, len, "cannot write %s: %s", path, strerror(errno));
        if (regular)
            unlink(path);
        return -1;
    }
    return 0;
}
