/* loop.c - epoll, a timerfd and a signalfd (see loop.h). */
#include "loop.h"
#include "clock.h"
#include "log.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#define BATCH 256

static void on_timer(satin_watch *w, uint32_t events)
{
    uint64_t expirations;
    (void)events;
    /* Only to clear it: the pump after this batch does the work. */
    if (read(w->fd, &expirations, sizeof expirations) < 0 && errno != EAGAIN)
        log_warn("timerfd read: %s", strerror(errno));
}

static void on_signal(satin_watch *w, uint32_t events)
{
    satin_loop *l = w->arg;
    struct signalfd_siginfo si;
    (void)events;
    while (read(w->fd, &si, sizeof si) == (ssize_t)sizeof si) {
        l->signal = (int)si.ssi_signo;
        l->stop = 1;
    }
}

int satin_loop_init(satin_loop *l, const int *stop_signals, char *err, size_t errlen)
{
    sigset_t set;
    memset(l, 0, sizeof *l);
    l->epfd = l->timerfd = l->sigfd = -1;
    l->armed_ns = SATIN_LOOP_NEVER;
    signal(SIGPIPE, SIG_IGN);   /* a peer gone mid-write is an EPIPE to handle */
    sigemptyset(&set);
    for (const int *s = stop_signals; s && *s; s++)
        sigaddset(&set, *s);
    if ((l->epfd = epoll_create1(EPOLL_CLOEXEC)) < 0 ||
        (l->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC)) < 0 ||
        satin_loop_add(l, &l->timer_w, l->timerfd, EPOLLIN, on_timer) < 0)
        goto fail;
    if (stop_signals && *stop_signals) {
        if (sigprocmask(SIG_BLOCK, &set, NULL) < 0 ||
            (l->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC)) < 0 ||
            satin_loop_add(l, &l->sig_w, l->sigfd, EPOLLIN, on_signal) < 0)
            goto fail;
        l->sig_w.arg = l;
    }
    return 0;
fail:
    snprintf(err, errlen, "cannot set up the event loop: %s", strerror(errno));
    satin_loop_close(l);
    return -1;
}

void satin_loop_close(satin_loop *l)
{
    if (l->sigfd >= 0)
        close(l->sigfd);
    if (l->timerfd >= 0)
        close(l->timerfd);
    if (l->epfd >= 0)
        close(l->epfd);
    l->epfd = l->timerfd = l->sigfd = -1;
}

int satin_loop_add(satin_loop *l, satin_watch *w, int fd, uint32_t mask, satin_watch_fn fn)
{
    struct epoll_event ev = {.events = mask, .data.ptr = w};
    w->fn = fn;
    w->fd = fd;
    /* w->arg is the owner's: set before or after, never touched here. */
    w->mask = mask;
    w->added = 0;
    if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, fd, &ev) < 0)
        return -1;
    w->added = 1;
    return 0;
}

int satin_loop_set(satin_loop *l, satin_watch *w, uint32_t mask)
{
    if (!w->added || w->mask == mask)
        return 0;
    struct epoll_event ev = {.events = mask, .data.ptr = w};
    if (epoll_ctl(l->epfd, EPOLL_CTL_MOD, w->fd, &ev) < 0)
        return -1;
    w->mask = mask;
    return 0;
}

void satin_loop_remove(satin_loop *l, satin_watch *w)
{
    if (w->added)
        epoll_ctl(l->epfd, EPOLL_CTL_DEL, w->fd, NULL);
    w->added = 0;
}

/* The timer at `when`, or disarmed; no system call if it is set so already. */
static void arm(satin_loop *l, int64_t when)
{
    struct itimerspec its;
    if (when == l->armed_ns)
        return;
    memset(&its, 0, sizeof its);
    if (when != SATIN_LOOP_NEVER) {
        its.it_value.tv_sec = when / 1000000000;
        its.it_value.tv_nsec = when % 1000000000;
    }
    if (timerfd_settime(l->timerfd, TFD_TIMER_ABSTIME, &its, NULL) < 0)
        log_warn("timerfd_settime: %s", strerror(errno));
    l->armed_ns = when;
}

void satin_loop_run(satin_loop *l, int64_t (*pump)(void *arg, int64_t now), void *arg)
{
    struct epoll_event evs[BATCH];
    l->due_ns = SATIN_LOOP_NEVER;
    while (!l->stop) {
        int64_t now = satin_now_ns();
        l->late_ns = l->due_ns != SATIN_LOOP_NEVER && now > l->due_ns ? now - l->due_ns : 0;
        int64_t next = pump(arg, now);
        l->due_ns = next > now ? next : now;
        int timeout = -1;
        if (next <= now) {
            timeout = 0;   /* more is due already: look at events, come back */
        } else {
            arm(l, next);
            /* A deadline met while we were away: the timerfd fires at once
             * (an absolute time in the past), so -1 is safe. */
        }
        int n = epoll_wait(l->epfd, evs, BATCH, timeout);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            log_error("epoll_wait: %s", strerror(errno));
            break;
        }
        for (int i = 0; i < n && !l->stop; i++) {
            satin_watch *w = evs[i].data.ptr;
            if (w->added)   /* removed earlier in this batch: its events are stale */
                w->fn(w, evs[i].events);
        }
    }
}

void satin_loop_stop(satin_loop *l)
{
    l->stop = 1;
}
