/*
 * ctlclient.c - `satin-wanem ctl [--control PATH] COMMAND ARGS...`: sends one
 * command line to a running satin-wanem and prints the reply: its data
 * lines and the text after "ok" on stdout (exit 0), or the error on stderr
 * (exit 1).  Exit 2 for a usage error.
 */
#include "ctlclient.h"
#include "control.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define REPLY_TIMEOUT_MS 10000

static int usage(void)
{
    fprintf(stderr,
            "usage: satin-wanem ctl [--control PATH] COMMAND [ARGS...]\n"
            "  stats [A B]                  per directed link: parameters and counters\n"
            "  partition A B                cut both directions between clusters A and B\n"
            "  restore [A B]                undo a partition (every one without names)\n"
            "  reset A B                    break the open connections between A and B\n"
            "                               (both ends see a reset; bytes held are lost)\n"
            "  set A B [latency=MS] [jitter=MS] [bandwidth=KBPS]   change the link A -> B\n"
            "  help\n");
    return 2;
}

/* Prints one reply line; returns 1 for the last line (0 ok, -1 error). */
static int show(const char *line, int *status)
{
    if (strncmp(line, "error: ", 7) == 0) {
        fprintf(stderr, "satin-wanem: %s\n", line);
        *status = 1;
        return 1;
    }
    if (strcmp(line, "ok") == 0 || strncmp(line, "ok ", 3) == 0) {
        if (line[2])
            printf("%s\n", line + 3);
        *status = 0;
        return 1;
    }
    printf("%s\n", line);
    return 0;
}

static int connect_to(const char *path)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof sa.sun_path) {
        fprintf(stderr, "satin-wanem: control socket %s: the path is too long\n", path);
        return -1;
    }
    memcpy(sa.sun_path, path, strlen(path) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
        fprintf(stderr, "satin-wanem: cannot connect to the control socket %s: %s%s\n", path,
                strerror(errno), errno == ENOENT ? " (is satin-wanem running?)" : "");
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

static int send_all(int fd, const char *p, size_t len)
{
    while (len) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

int wanem_ctl_main(int argc, char **argv)
{
    char path[256], cmd[1024], buf[65536];
    size_t len = 0, have = 0;
    int i = 1, status = 1;
    control_default_path(path, sizeof path);
    while (i < argc && argv[i][0] == '-') {
        if (strcmp(argv[i], "--control") == 0 && i + 1 < argc) {
            snprintf(path, sizeof path, "%s", argv[i + 1]);
            i += 2;
        } else if (strncmp(argv[i], "--control=", 10) == 0) {
            snprintf(path, sizeof path, "%s", argv[i] + 10);
            i++;
        } else {
            return usage();
        }
    }
    if (i >= argc)
        return usage();
    for (; i < argc; i++) {
        if (strpbrk(argv[i], "\n\r") || len + strlen(argv[i]) + 2 > sizeof cmd) {
            fprintf(stderr, "satin-wanem: the command must be one line of at most %zu "
                            "characters\n",
                    sizeof cmd - 2);
            return 2;
        }
        len += (size_t)snprintf(cmd + len, sizeof cmd - len, "%s%s", len ? " " : "", argv[i]);
    }
    cmd[len++] = '\n';

    int fd = connect_to(path);
    if (fd < 0)
        return 1;
    if (send_all(fd, cmd, len) < 0) {
        fprintf(stderr, "satin-wanem: control socket %s: %s\n", path, strerror(errno));
        close(fd);
        return 1;
    }
    /* Lines until the last one ("ok..." or "error: ..."). */
    for (;;) {
        char *nl;
        while ((nl = memchr(buf, '\n', have))) {
            *nl = '\0';
            int last = show(buf, &status);
            have -= (size_t)(nl + 1 - buf);
            memmove(buf, nl + 1, have);
            if (last) {
                close(fd);
                return status;
            }
        }
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        int rc = poll(&pfd, 1, REPLY_TIMEOUT_MS);
        if (rc < 0 && errno == EINTR)
            continue;
        ssize_t n = rc > 0 ? recv(fd, buf + have, sizeof buf - have - 1, 0) : -1;
        if (n <= 0 || have + (size_t)n >= sizeof buf - 1) {
            fprintf(stderr, "satin-wanem: control socket %s: %s\n", path,
                    rc == 0 ? "no reply" : n == 0 ? "closed before the reply ended"
                                                  : "a reply line too long or unreadable");
            close(fd);
            return 1;
        }
        have += (size_t)n;
    }
}
