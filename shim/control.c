/* control.c - the control socket's server side (control.h). */
#include "control.h"
#include "ctlcmd.h"
#include "strbuf.h"
#include "log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define LINE_MAX_LEN 1024
#define OUT_MAX (64u << 20)   /* a client that never reads is dropped */

typedef struct client {
    satin_watch w;                  /* first: a watch* is a client* */
    control *ctl;
    char in[LINE_MAX_LEN];
    size_t inlen;
    strbuf out;
    int closing;              /* close once `out` is sent */
    struct client *prev, *next;
} client;

struct control {
    satin_watch w;
    satin_loop *loop;
    relay *r;
    const satin_topology *t;
    char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    client *clients;
};

void control_default_path(char *buf, size_t len)
{
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    if (xdg && xdg[0] == '/')
        snprintf(buf, len, "%s/satin-wanem.ctl", xdg);
    else
        snprintf(buf, len, "/tmp/satin-wanem-%u.ctl", (unsigned)getuid());
}

/* Each fd has at most one event per batch, and a client is closed only by
 * its own event or control_free(), so it can be freed at once. */
static void client_close(client *cl)
{
    control *ctl = cl->ctl;
    satin_loop_remove(ctl->loop, &cl->w);
    close(cl->w.fd);
    if (cl->prev)
        cl->prev->next = cl->next;
    else
        ctl->clients = cl->next;
    if (cl->next)
        cl->next->prev = cl->prev;
    sb_free(&cl->out);
    free(cl);
}

/* Sends what it can; returns -1 once the client is closed. */
static int client_flush(client *cl)
{
    while (cl->out.len) {
        ssize_t n = send(cl->w.fd, cl->out.p, cl->out.len, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                break;
            client_close(cl);
            return -1;
        }
        sb_drop(&cl->out, (size_t)n);
    }
    if (cl->out.failed || cl->out.len > OUT_MAX || (cl->closing && !cl->out.len)) {
        client_close(cl);
        return -1;
    }
    uint32_t mask = cl->closing ? EPOLLOUT : EPOLLIN | (cl->out.len ? EPOLLOUT : 0);
    satin_loop_set(cl->ctl->loop, &cl->w, mask);
    return 0;
}

static void run_lines(client *cl)
{
    char *start = cl->in, *nl;
    while ((nl = memchr(start, '\n', cl->inlen - (size_t)(start - cl->in)))) {
        *nl = '\0';
        if (strlen(start) != (size_t)(nl - start))
            sb_printf(&cl->out, "error: a NUL byte in the command\n");
        else
            ctlcmd_run(cl->ctl->r, cl->ctl->t, start, &cl->out);
        start = nl + 1;
    }
    cl->inlen -= (size_t)(start - cl->in);
    memmove(cl->in, start, cl->inlen);
    if (cl->inlen == sizeof cl->in) {
        sb_printf(&cl->out, "error: a command longer than %d characters\n", LINE_MAX_LEN - 1);
        cl->closing = 1;
    }
}

static void on_client(satin_watch *w, uint32_t events)
{
    client *cl = (client *)w;
    if ((events & (EPOLLIN | EPOLLHUP | EPOLLERR)) && !cl->closing) {
        ssize_t n = recv(w->fd, cl->in + cl->inlen, sizeof cl->in - cl->inlen, 0);
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
            client_close(cl);
            return;
        }
        if (n > 0) {
            cl->inlen += (size_t)n;
            run_lines(cl);
        } else if (n == 0) {
            cl->closing = 1;   /* answered what it asked; done */
        }
    } else if (events & (EPOLLHUP | EPOLLERR)) {
        client_close(cl);
        return;
    }
    client_flush(cl);
}

static void on_accept(satin_watch *w, uint32_t events)
{
    control *ctl = (control *)w;
    (void)events;
    for (;;) {
        int fd = accept4(w->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                log_warn("control socket: accept: %s", strerror(errno));
            return;
        }
        client *cl = calloc(1, sizeof *cl);
        if (!cl || satin_loop_add(ctl->loop, &cl->w, fd, EPOLLIN, on_client) < 0) {
            log_warn("control socket: cannot take a client: %s", strerror(cl ? errno : ENOMEM));
            free(cl);
            close(fd);
            continue;
        }
        cl->ctl = ctl;
        cl->next = ctl->clients;
        if (ctl->clients)
            ctl->clients->prev = cl;
        ctl->clients = cl;
    }
}

/* A socket file at `path` that nobody answers on is a leftover: remove it.
 * 0 when the path is free now. */
static int clear_stale(const char *path, const struct sockaddr_un *sa, char *err, size_t errlen)
{
    struct stat st;
    if (lstat(path, &st) < 0)
        return 0;
    if (!S_ISSOCK(st.st_mode)) {
        snprintf(err, errlen, "control socket %s: the path exists and is not a socket", path);
        return -1;
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd >= 0 && connect(fd, (const struct sockaddr *)sa, sizeof *sa) == 0) {
        close(fd);
        snprintf(err, errlen, "control socket %s: another satin-wanem answers there", path);
        return -1;
    }
    if (fd >= 0)
        close(fd);
    unlink(path);
    return 0;
}

control *control_new(satin_loop *loop, relay *r, const satin_topology *t, const char *path,
                     char *err, size_t errlen)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    control *ctl;
    if (strlen(path) >= sizeof sa.sun_path) {
        snprintf(err, errlen, "control socket %s: the path is too long (at most %zu bytes)",
                 path, sizeof sa.sun_path - 1);
        return NULL;
    }
    memcpy(sa.sun_path, path, strlen(path) + 1);
    if (clear_stale(path, &sa, err, errlen) < 0)
        return NULL;
    if (!(ctl = calloc(1, sizeof *ctl))) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    ctl->loop = loop;
    ctl->r = r;
    ctl->t = t;
    snprintf(ctl->path, sizeof ctl->path, "%s", path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    /* Whoever can connect can cut links: the owner only. */
    mode_t old = umask(077);
    int rc = fd < 0 ? -1 : bind(fd, (struct sockaddr *)&sa, sizeof sa);
    umask(old);
    if (rc < 0 || listen(fd, 16) < 0 || satin_loop_add(loop, &ctl->w, fd, EPOLLIN, on_accept) < 0) {
        snprintf(err, errlen, "control socket %s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        if (rc == 0)
            unlink(path);
        free(ctl);
        return NULL;
    }
    return ctl;
}

void control_free(control **cp)
{
    control *ctl = *cp;
    if (!ctl)
        return;
    while (ctl->clients)
        client_close(ctl->clients);
    satin_loop_remove(ctl->loop, &ctl->w);
    close(ctl->w.fd);
    unlink(ctl->path);
    free(ctl);
    *cp = NULL;
}
